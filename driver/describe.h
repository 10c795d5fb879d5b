/*
 * describe.h - `mdriver --describe`: what a program reading the driver's results
 * needs to know, as JSON.
 */
#ifndef DRIVER_DESCRIBE_H
#define DRIVER_DESCRIBE_H

#include <stdio.h>

/* `mdriver --describe`: constants, whether the trace's process gets the seccomp
 * sandbox, outcome vocabulary, statistics fields. */
void json_write_description(FILE *out);

#endif
