/*
 * tracename.h - a trace's name, as the table, the JSON and a baseline show it.
 *
 * A file's name without .rep / .rep.gz; when files of the run share it (a/x.rep
 * and b/x.rep, from two -t or -f), each of them is named by as many of its last
 * folders as tell it from the others ("a/x", "b/x"; "a/x.rep" and "a/x.rep.gz"
 * when only that differs), so that no two rows, JSON entries or baseline timings
 * share a name.  A trace read from a shell's pipe
 * (`-f <(zcat x.rep.gz)`) has a path such as /dev/fd/63, whose "63" says nothing:
 * it takes the name its first line gives, `# NAME: what it is`, as the kit's
 * traces begin (so a baseline saved from the file matches it), unless another
 * trace of the run has that name; else "fd63" (or its path's name if that is not
 * a number: "stdin").  Names are no longer than a trace_t's name holds (TRACE_NAME_MAX,
 * trace.h), which any file's own name fits.
 */
#ifndef DRIVER_TRACENAME_H
#define DRIVER_TRACENAME_H

#include <stddef.h>

/* The name of a trace file at path (its name in the run, for one of tracename_reserve's). */
void tracename_of_path(const char *path, char *buf, size_t len);
/* The run's traces, before any is read: their names, unique in the run, which a piped trace may not take. */
void tracename_reserve(char *const *paths, size_t n);
/* The name of the piped trace at path whose bytes (unpacked) are given; no later
 * piped trace takes it. */
void tracename_of_pipe(const char *path, const char *bytes, size_t len, char *buf, size_t size);

#endif
