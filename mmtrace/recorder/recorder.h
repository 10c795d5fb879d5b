/*
 * recorder.h - what the recorder's two files share: recorder.c logs the malloc-family
 * calls, launch.c watches the programs a process starts.  Both are one preloaded
 * library; these names stay inside it (hidden), never interposing a program's own.
 */
#ifndef MMTRACE_RECORDER_H
#define MMTRACE_RECORDER_H

#include <stddef.h>

/* Append ".<value>" at buf[*n], without snprintf (which may allocate); -1 if it does
 * not fit with its terminator. */
__attribute__((visibility("hidden"))) int put_number(char *buf, size_t cap, size_t *n, long value);

/* Find the real exec, spawn, system and popen, and read MMTRACE_OUT: once, at load. */
__attribute__((visibility("hidden"))) void launch_init(void);

#endif
