/* run.c - a trace's run: its start and what it notes (see run.h). */
#include "driver/run.h"

#include <stdio.h>

#include "driver/interrupt.h"
#include "driver/utilization.h"

bool run_load(trace_run_t *r, const char *path, size_t max_size, const char *program, trace_t *t)
{
    r->path = path;
    return run_take(r, program, t, trace_load(path, max_size, t, r->bad_trace, sizeof r->bad_trace));
}

bool run_take(trace_run_t *r, const char *program, trace_t *t, bool ok)
{
    snprintf(r->name, sizeof r->name, "%s", t->name);
    if (!ok) {
        r->outcome = OUTCOME_BAD_TRACE;
        if (!interrupt_signal())  /* else not a bad trace: a read cut short (a gzip killed by Ctrl-C) */
            fprintf(stderr, "%s: %s\n", program, r->bad_trace);
        return false;
    }
    r->weight = t->weight;
    r->ops = t->num_ops;
    r->fingerprint = trace_fingerprint(t);
    r->peak_payload = payload_peak(t);
    return true;
}

void run_note_op(trace_run_t *r, const trace_t *t)
{
    int64_t at = r->result.report.verdict.op_index;
    if (at >= 0 && (size_t)at < t->num_ops)
        op_describe(&t->ops[at], r->op_text, sizeof r->op_text);
}
