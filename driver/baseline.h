/*
 * baseline.h - libc's timings stored for reuse, with where and when they were taken.
 *
 * File format, one record a line:
 *   mdriver-baseline 3
 *   machine HOSTNAME | CPU
 *   date ISO-8601
 *   alignment N
 *   trace NAME OPS FINGERPRINT SECONDS
 * NAME may hold spaces (the other three are the last fields), and is written as the table
 * shows it, control characters escaped (\n, \t, \xNN: shown.h); FINGERPRINT is the
 * ops' digest (trace_fingerprint) in 16 hex digits.  Every line ends in a newline;
 * the machine, date and alignment lines come once, before the traces; a trace
 * (NAME) comes once.  It is saved whole or not at all (output.h).
 * Older versions are refused: version 1's libc timings were taken while glibc
 * gave memory back between and within runs (measure.c, timed_libc_keep_memory);
 * version 2 knew a trace only by name and op count, so a trace edited in place
 * was timed by its old self.
 */
#ifndef DRIVER_BASELINE_H
#define DRIVER_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/result.h"
#include "driver/run.h"

typedef struct {
    char name[sizeof ((trace_t *)0)->name * 4];  /* as shown (shown.h): see baseline.c */
    size_t ops;
    uint64_t fingerprint;
    double seconds;
    size_t line;  /* in the file */
} baseline_entry_t;

typedef struct {
    baseline_entry_t *entries;
    size_t n;
    char source[1024];  /* "cached in FILE, taken on MACHINE at DATE" */
} baseline_t;

/* A message of baseline_read names the file by its path as shown (shown.h), at most
 * BASELINE_PATH_SHOWN bytes of it, then the line and what is wrong: BASELINE_ERROR_MAX
 * bytes hold all of it. */
enum { BASELINE_PATH_SHOWN = 1024, BASELINE_ERROR_MAX = BASELINE_PATH_SHOWN + 512 };

bool baseline_save(const char *path, const run_info_t *info, const trace_run_t *runs, size_t n);
/* Read and check a whole baseline file, before any trace runs.  On a problem
 * writes "FILE:LINE: what" to err and returns false. */
bool baseline_read(const char *path, baseline_t *b, char *err, size_t errlen);
/* The timing saved for the trace called name, or NULL; whether it was taken of
 * the same ops is baseline_matches'. */
const baseline_entry_t *baseline_find(const baseline_t *b, const char *name);
static inline bool baseline_matches(const baseline_entry_t *e, size_t ops, uint64_t fingerprint)
{
    return e->ops == ops && e->fingerprint == fingerprint;
}
void baseline_free(baseline_t *b);

#endif
