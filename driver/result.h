/*
 * result.h - the result documents (JSON) of a run of traces, for programs.
 *
 * mdriver's is schema 1 (schema/mdriver-result.schema.json).  mmreplay's
 * (schema/mmreplay-result.schema.json) has the same fields where the two programs measure the same thing (per trace: name,
 * path, weight, ops, outcome, message, op, utilization, peak payload, high-water
 * mark; the summary's counts and utilization), and no timing, statistics or
 * score, which mmreplay does not measure; "tool" says which program wrote it.
 */
#ifndef DRIVER_RESULT_H
#define DRIVER_RESULT_H

#include <stdio.h>

#include "driver/options.h"
#include "driver/run.h"

typedef struct {
    const char *allocator;
    const char *secret;       /* NULL when no --secret-fd */
    const char *baseline;     /* "measured" or "cached" */
    const char *baseline_source;
    const char *hostname, *cpu, *date;
} run_info_t;

/* mdriver's whole result document, schema 1 (schema/mdriver-result.schema.json). */
void json_write_result(FILE *out, const options_t *o, const run_info_t *info, const trace_run_t *runs, size_t n,
                       const summary_t *s);
/* mmreplay's document (info: only the allocator's name is used). */
void json_write_replay(FILE *out, const options_t *o, const run_info_t *info, const trace_run_t *runs, size_t n,
                       const summary_t *s);
/* Where --json DEST puts a document: a file, "-" (stdout) or "fd:N"; NULL with errno
 * set when it cannot go there. */
FILE *result_open(const char *dest);

#endif
