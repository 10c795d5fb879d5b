/*
 * child.h - run one trace's passes in a child process.
 *
 * The allocator runs only in the child.  Whatever it does there (crash, hang,
 * exit, abort, print) the parent keeps control: it reads the child's report from
 * a private pipe, its output from another, kills it at the time limit, and turns
 * a death into an outcome naming the pass and op the child had reached.
 *
 * The allocator shares the child's process, so it could write a report of its
 * own.  The parent accepts exactly one report carrying the random nonce it gave
 * this run (read by the child only after the allocator's last call), and only
 * values a real run can produce: among them a heap high-water mark at least as
 * high as the heap pages the first checked run touched, which the parent sees
 * itself (the heap is shared with it until then).  Anything else is
 * OUTCOME_TAMPERED.
 */
#ifndef DRIVER_CHILD_H
#define DRIVER_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    double time_limit;   /* seconds, for the whole child */
} child_plan_t;

enum { CHILD_NONCE_BYTES = 16 };

/* The child's stack limit (RLIMIT_STACK), set before any allocator code runs:
 * the stack is storage no check sees.  Every kit variant passes every trace
 * with the limit at 64 KiB (the sanitizer build at 256 KiB; pages the stack
 * already had at fork stay usable): 2 MiB leaves a student's deeper recursion
 * or larger local arrays room. */
enum { CHILD_STACK_BYTES = 2 << 20 };

/* What the child sends back when it gets to the end. */
typedef struct {
    uint8_t nonce[CHILD_NONCE_BYTES];  /* the parent's, for this run only */
    verdict_t verdict;
    bool has_util, has_stats;
    util_result_t util;
    timing_t mm_time, libc_time;
    mm_stats_t stats;
} child_report_t;

typedef struct {
    child_report_t report;   /* verdict.outcome says what happened, crash or not */
    char *output;            /* the first MDRIVER_OUTPUT_KEEP bytes the child printed (NUL-terminated) */
    size_t output_len, output_total;
} child_result_t;

/* Run the plan for trace t in a child; never fails to fill *r. */
void child_run(const trace_t *t, const child_plan_t *plan, child_result_t *r);
void child_result_free(child_result_t *r);

#endif
