/*
 * output.h - the driver's outputs reach their destination whole, or it says so.
 */
#ifndef DRIVER_OUTPUT_H
#define DRIVER_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/* A file replaced whole: written to a temporary file in its folder and renamed over
 * it once complete, so a run that fails or is cut short leaves an earlier one as it was.
 * A path that is not a regular file (/dev/null, a FIFO) is written directly. */
typedef struct {
    char *path;  /* the file replaced, through any symbolic link */
    char *tmp;
    FILE *f;
} replace_t;

/* Whether path could be replaced, found without changing it (a file that is not
 * there is created and removed again).  False with errno set. */
bool replace_check(const char *path);
/* The temporary file to write; NULL with errno set. */
FILE *replace_begin(replace_t *r, const char *path);
/* Flush and close it and rename it over path; on failure (errno set) it is removed. */
bool replace_commit(replace_t *r);
/* Remove it, leaving path as it was. */
void replace_abandon(replace_t *r);

/* Flush and close stdout: false, with "PROGRAM: stdout: ..." on stderr, when what
 * was printed did not get there (a full disk, a closed pipe). */
bool stdout_done(const char *program);

/* Hold each of descriptors 0, 1 and 2 the driver was started without (`mdriver <&-`,
 * `2>&-`) on /dev/null, read-only, before it opens descriptors it keeps: a trace child's
 * channel pipe took the number, the child put its own stdin and output there (serve.c),
 * closing the pipe under the parent, which died of SIGPIPE with its table and JSON.  A
 * write to a held one still fails (EBADF), so a closed stdout is still reported
 * (stdout_done). */
void output_hold_std_fds(void);

#endif
