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
#include "driver/output.h"
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
/* Where --json DEST puts a document: "-" (stdout), "fd:N", or a FILE, replaced whole
 * once the document is complete (output.h): a run that does not finish leaves an
 * earlier result as it was. */
typedef struct {
    const char *dest;
    FILE *stream;  /* "-" or "fd:N" */
    replace_t file;
} result_out_t;

/* Taken before any trace runs: a stream is opened, a file only checked.  False with errno set. */
bool result_open(result_out_t *out, const char *dest);
/* Whether the document goes to stdout ("-", "fd:1", a path naming its file or pipe): the table then goes to stderr. */
bool result_on_stdout(const result_out_t *out);
/* Where to write the document now; NULL with errno set. */
FILE *result_begin(result_out_t *out);
/* The document flushed and closed (a file renamed into place); false with errno set. */
bool result_end(result_out_t *out);

#endif
