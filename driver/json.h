/*
 * json.h - a small streaming JSON writer, and the driver's result document.
 *
 * The writer tracks only whether a comma is due at each depth; values are
 * escaped so that nothing an allocator printed can break the document.
 */
#ifndef DRIVER_JSON_H
#define DRIVER_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "driver/options.h"
#include "driver/run.h"

typedef struct {
    FILE *out;
    int depth;
    bool need_comma[64];
} json_t;

void json_open(json_t *j, const char *key, char bracket);
void json_close(json_t *j, char bracket);
void json_string(json_t *j, const char *key, const char *value);
void json_string_n(json_t *j, const char *key, const char *value, size_t len);
void json_number(json_t *j, const char *key, double value);
void json_integer(json_t *j, const char *key, long long value);
void json_bool(json_t *j, const char *key, bool value);
void json_null(json_t *j, const char *key);

typedef struct {
    const char *allocator;
    const char *secret;       /* NULL when no --secret-fd */
    const char *baseline;     /* "measured" or "cached" */
    const char *baseline_source;
    const char *hostname, *cpu, *date;
} run_info_t;

/* The whole result document, schema 1 (schema/mdriver-result.schema.json). */
void json_write_result(FILE *out, const options_t *o, const run_info_t *info, const trace_run_t *runs, size_t n,
                       const summary_t *s);
/* `mdriver --describe`: constants, whether the trace's process gets the seccomp
 * sandbox, outcome vocabulary, statistics fields. */
void json_write_description(FILE *out);

#endif
