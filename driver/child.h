/*
 * child.h - run one trace in child processes, and judge it in the parent.
 *
 * The allocator runs only in a child, and the child decides nothing: the parent
 * keeps the trace, asks for one allocator call at a time (channel.h) and checks
 * each result itself on the heap the two share (check.c); it times the child's
 * replays on the child's own CPU clock and compares what each replay left with
 * the checked run (measure.c).  Whatever the child does (crash, hang, exit,
 * abort, print, write anywhere in its own memory), the parent keeps control:
 * it reads the child's output from a pipe, kills it at the time limit, and turns
 * a death into an outcome naming the pass and op it had asked for.  libc is
 * timed in a child of its own, where no allocator code ever runs.
 */
#ifndef DRIVER_CHILD_H
#define DRIVER_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "driver/check.h"
#include "driver/measure.h"
#include "mm_stats.h"

typedef struct {
    bool run_allocator;  /* the correctness passes, and its timing */
    bool check_heap;     /* mm_checkheap after every op */
    bool util;           /* report utilization (of the first correctness pass) */
    bool time_mm;        /* time the allocator */
    bool time_libc;      /* time libc malloc */
    int min_samples;
    double time_limit;   /* seconds, for the trace's children together */
} child_plan_t;

/* The child's stack: it serves calls on a mapping of this size that it shares
 * with the parent (which empties its dead part, audit.h), above an inaccessible
 * guard; sanitizer builds serve on their own stack, limited to this by
 * RLIMIT_STACK.  The stack is storage no check of the heap sees.  Every kit
 * variant passes every trace with 64 KiB (the sanitizer build with 256 KiB):
 * 2 MiB leaves a student's deeper recursion or larger local arrays room. */
enum { CHILD_STACK_BYTES = 2 << 20 };

/* What the parent concluded about a trace. */
typedef struct {
    verdict_t verdict;
    bool has_util, has_stats;
    util_result_t util;
    timing_t mm_time, libc_time;
    mm_stats_t stats;       /* the allocator's own figures (mm_stats), as it gave them */
} child_report_t;

typedef struct {
    child_report_t report;   /* verdict.outcome says what happened, crash or not */
    char *output;            /* the first MDRIVER_OUTPUT_KEEP bytes the child printed (NUL-terminated) */
    size_t output_len, output_total;
    char output_tail[MDRIVER_OUTPUT_TAIL];  /* the last bytes past those, output_tail_len of them */
    size_t output_tail_len;
    bool interrupted;        /* the driver was interrupted (interrupt.h): the trace is not completed, report has no verdict */
} child_result_t;

/* Where output_tail's first whole line begins: a window with bytes left out before it starts in
 * mid-line (one that holds a single line is kept whole, as cut). */
static inline size_t child_output_tail_start(const child_result_t *r)
{
    if (r->output_total == r->output_len + r->output_tail_len)
        return 0;
    const char *nl = memchr(r->output_tail, '\n', r->output_tail_len);
    size_t at = nl ? (size_t)(nl + 1 - r->output_tail) : 0;
    return at < r->output_tail_len ? at : 0;
}

/* Run the plan for trace t in a child; never fails to fill *r.  An interrupt
 * received meanwhile kills the child and sets r->interrupted. */
void child_run(const trace_t *t, const child_plan_t *plan, child_result_t *r);
void child_result_free(child_result_t *r);

#endif
