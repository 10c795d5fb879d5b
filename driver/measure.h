/*
 * measure.h - the timing pass (utilization is utilization.h's).
 *
 * Timing replays a trace that the correctness pass has already accepted: a
 * pre-decoded op array in a loop with nothing else in it, for libc malloc (in a
 * child of its own, where no allocator code ever runs) or for the allocator, and
 * estimates each one's time with the K-best rule below.  The child runs the
 * loop; the parent reads the child's CPU clock around it and judges the run.
 */
#ifndef DRIVER_MEASURE_H
#define DRIVER_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "driver/channel.h"
#include "driver/check.h"
#include "driver/trace.h"
#include "driver/utilization.h"

typedef struct {
    double seconds;  /* the estimate: mean of the K fastest samples */
    int n;
    double samples[MDRIVER_MAX_SAMPLES];
    long faults[MDRIVER_MAX_SAMPLES];  /* the child's page faults in each sample's run, -1 unknown */
    bool has_faults;                   /* faults[] measured (not for a cached baseline) */
} timing_t;

/* Payload tags.  A timed run writes no payloads, so an allocator that knew when
 * it was timed could move a block on realloc without copying it.  Each timed run
 * writes one byte into every new block, at a place and with a value drawn at
 * random for this trace, and records after each realloc the byte found where
 * the old block's tag was; the parent compares it with the value it kept. */
enum { NO_TAG = UINT32_MAX };

typedef struct {
    uint32_t write_at;  /* where op i's new block gets its tag; NO_TAG: nowhere (no bytes) */
    uint32_t check_at;  /* where a realloc's block must still hold the old block's tag; NO_TAG: not checked */
    uint8_t value;      /* the tag op i writes */
    uint8_t expect;     /* the tag a realloc must find: the parent's copy only */
} tag_plan_t;

/* What a replay reads and writes (the second checked run and the timed runs):
 * pages the parent and the trace's child share, made before fork.  The parent puts the ops and tags in only when the
 * child may see them (after its checked runs), and clears the rest before each
 * run; the parent judges what the child wrote. */
typedef struct {
    size_t num_ops;
    uint32_t num_ids;
    op_t *ops;
    tag_plan_t *tags;
    void **ptr;             /* each id's block */
    uint32_t *placed;       /* where each op's block landed (placement()) */
    uint8_t *seen;          /* what each checked realloc found where the old block's tag was */
    unsigned char *live;    /* libc: the ids the trace leaves allocated, given back after each run */
} timed_arrays_t;

bool timed_arrays_open(timed_arrays_t *a, const trace_t *t);
void timed_arrays_close(timed_arrays_t *a);
/* In the parent: a child forked later gets none of the arrays. */
void timed_arrays_share_no_further(timed_arrays_t *a);
/* True when no one has written the arrays since they were opened (the child
 * has no business there before its replays). */
bool timed_arrays_untouched(const timed_arrays_t *a);

/* How many runs a timing pass takes: at least `least`, and then until the K
 * fastest agree, but never more than `most` (nor MDRIVER_MAX_SAMPLES), nor
 * past the timing budget. */
typedef struct {
    int least, most;
} sampling_t;

/* In the parent: time the allocator (mm) or else libc in the child rc, as
 * `want` says, into *out; a pass given an *out that holds samples adds to them
 * (libc's, topped up to the allocator's count).  Every timed run of mm must
 * place its blocks as *pl says the checked run did, inside the heap the
 * checked run used (high_water). */
typedef struct remote remote_t;
bool time_trace(remote_t *rc, const trace_t *t, bool mm, sampling_t want, const placements_t *pl, size_t high_water,
                timed_arrays_t *a, timing_t *out, verdict_t *v);

/* In the parent, after a run: false (out_of_heap) when it touched a guard page
 * of the heap (heap_guard_touched). */
bool heap_guards_untouched(verdict_t *v);

/* In the parent: the second checked run, a replay of the shared ops in the child
 * in checked mode (pages past the break inaccessible), untimed, judged as a timed
 * run is: every block where the first checked run put it, every realloc's tag
 * kept, the blocks left live inside the heap and apart.  One call for the whole
 * run, where the first costs a round trip an op. */
bool recheck_trace(remote_t *rc, const trace_t *t, const placements_t *pl, timed_arrays_t *a, verdict_t *v);

/* In the child, what the timed calls do: a run's clean start (heap and stack),
 * one run of the allocator (mm_init's status), one of libc, and, untimed, the
 * return of the blocks libc's run left live. */
void timed_prepare(const call_t *prepare);
int timed_run_mm(const timed_arrays_t *a);
/* The second checked run: timed_run_mm's replay, noting each op in progress.h for a death's message. */
int checked_run_mm(const timed_arrays_t *a);
void timed_run_libc(const timed_arrays_t *a);
void libc_release(const timed_arrays_t *a);
/* In libc's child, before its first run: glibc keeps the memory it gets, as the
 * simulated heap does for the allocator (its pages stay resident between runs). */
void timed_libc_keep_memory(void);

/* The K-best estimate of a set of samples; *converged when the K fastest agree. */
double kbest_estimate(const double *samples, int n, bool *converged);

#endif
