/*
 * run.h - the driver's data model: each trace's run, and the run's summary.
 */
#ifndef DRIVER_RUN_H
#define DRIVER_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/child.h"
#include "driver/trace.h"

typedef struct {
    const char *path;
    char name[TRACE_NAME_MAX];
    int weight;
    size_t ops;
    uint64_t fingerprint;  /* of the ops (trace_fingerprint): a saved baseline keeps it */
    uint64_t peak_payload; /* the trace's (0: it scores no utilization; see utilization.h) */
    outcome_t outcome;
    char bad_trace[TRACE_ERROR_MAX]; /* "FILE:LINE: what", when the trace could not be read */
    child_result_t result; /* the allocator's child */
    char op_text[48];      /* the op where a failure was found, as written in the trace */
    bool has_libc;         /* libc's timing, from this run or a cached baseline */
    timing_t libc;
    double seconds;        /* wall time the trace took, all passes */
} trace_run_t;

/* A run cut short by an interrupt (interrupt.h): its figures are over the
 * traces completed, and it has no performance index. */
typedef struct {
    int signal;          /* 0: the run was not interrupted */
    int planned;         /* the traces it was given */
    const char *during;  /* the path of the trace in progress, not completed */
} interruption_t;

typedef struct {
    int traces, valid, failed, bad_traces;
    double utilization;             /* mean over the traces that score utilization */
    bool has_utilization;           /* some trace scores it */
    bool has_throughput;            /* some trace scores it (valid or not) */
    double throughput, libc_throughput, ratio; /* ops/s over the valid throughput traces; ratio scaled by validity */
    double util_points, throughput_points, perf_index;
    interruption_t interrupted;
} summary_t;

/* Whether the run was cut short: no index is given for part of a suite. */
static inline bool summary_partial(const summary_t *s) { return s->interrupted.signal != 0; }

/* Whether the run has an index: a whole run with some trace that scores.  A run of
 * weight-0, empty or unreadable traces has none: 0 would read as measured. */
static inline bool summary_has_index(const summary_t *s)
{
    return !summary_partial(s) && (s->has_utilization || s->has_throughput);
}

static inline bool run_ok(const trace_run_t *r) { return r->outcome == OUTCOME_OK; }

/* Whether the trace counts in the utilization average: its weight asks for it and
 * it holds some payload. */
static inline bool run_scores_util(const trace_run_t *r)
{
    return (r->weight == WEIGHT_BOTH || r->weight == WEIGHT_UTIL_ONLY) && r->peak_payload > 0;
}

/* Read the trace at path into *t and note what it is in *r (its path, name, weight
 * and ops).  False when it cannot be read: *r is then a bad_trace, and "PROGRAM:
 * FILE:LINE: what" is on stderr. */
bool run_load(trace_run_t *r, const char *path, size_t max_size, const char *program, trace_t *t);
/* The same for a trace read earlier (a pipe can be read only once): ok is what its
 * trace_load returned, r->path and, when !ok, r->bad_trace are already set. */
bool run_take(trace_run_t *r, const char *program, trace_t *t, bool ok);
/* r->op_text: the op of t where r's verdict was found, as written in the trace. */
void run_note_op(trace_run_t *r, const trace_t *t);

#endif
