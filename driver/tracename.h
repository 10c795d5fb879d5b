/*
 * tracename.h - a trace's name, as the table, the JSON and a baseline show it.
 *
 * A file's name without .rep / .rep.gz.  A trace read from a shell's pipe
 * (`-f <(zcat x.rep.gz)`) has a path such as /dev/fd/63, whose "63" says nothing:
 * it takes the name its first line gives, `# NAME: what it is`, as the kit's
 * traces begin (so a baseline saved from the file matches it), unless another
 * trace of the run has that name; else "fd63" (or its path's name if that is not
 * a number: "stdin").  Names are no longer than a trace_t's name holds.
 */
#ifndef DRIVER_TRACENAME_H
#define DRIVER_TRACENAME_H

#include <stddef.h>

/* The name of a trace file at path. */
void tracename_of_path(const char *path, char *buf, size_t len);
/* The run's traces, before any is read: names a piped trace may not take. */
void tracename_reserve(char *const *paths, size_t n);
/* The name of the piped trace at path whose bytes (unpacked) are given; no later
 * piped trace takes it. */
void tracename_of_pipe(const char *path, const char *bytes, size_t len, char *buf, size_t size);

#endif
