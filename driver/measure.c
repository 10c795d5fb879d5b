/*
 * measure.c - the timing pass (see measure.h).
 * (Utilization: utilization.c.)
 *
 * Timing estimator (K-best, as in the 64-bit lab's driver): sort the samples;
 * the estimate is the mean of the K = MDRIVER_BEST_K fastest.  Sampling stops
 * once the K fastest lie within MDRIVER_BEST_K_TOLERANCE of each other (after at
 * least min_samples), after MDRIVER_MAX_SAMPLES, or when MDRIVER_TIMING_BUDGET
 * seconds have gone, whichever comes first (so a very slow allocator may get
 * fewer than min_samples: each of its samples is long enough to be steady).
 * Samples are the child's CPU time, read by the parent from the child's clock
 * (a busy neighbour process does not inflate it the way it inflates wall time;
 * remote_timed).
 */
#define _GNU_SOURCE
#include "driver/measure.h"

#include <inttypes.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver/clock.h"
#include "driver/heap.h"
#include "driver/hooks.h"
#include "driver/pages.h"
#include "driver/progress.h"
#include "driver/remote.h"
#include "memlib.h"
#include "mm.h"

/* ------------------------------------------------------------ timing */

typedef struct {
    void *(*malloc)(size_t);
    void (*free)(void *);
    void *(*realloc)(void *, size_t);
} alloc_api_t;

/* Payload tags.  A timed run writes no payloads, so an allocator that knew when
 * it was timed (from mm_init's third call on) could move a block on realloc
 * without copying it.  Each timed run writes one byte into every new block, at
 * a place and with a value drawn at random for this process, and checks after
 * each realloc that the byte moved with the block; libc's loop does the same. */

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint64_t tag_seed(void)
{
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));
    return seed;
}

/* Untimed: the tags of every op of t; `last` has room for one entry per id. */
static void plan_tags(const trace_t *t, tag_plan_t *plan, size_t *last)
{
    uint64_t seed = tag_seed();
    for (size_t i = 0; i < t->num_ops; i++) {
        const op_t op = t->ops[i];
        tag_plan_t *tp = &plan[i];
        *tp = (tag_plan_t){.write_at = NO_TAG, .check_at = NO_TAG};
        size_t prev = last[op.id];  /* 1 + the op whose tag the id's block carries; 0: none */
        last[op.id] = 0;
        if (op.kind == OP_FREE)
            continue;
        if (op.kind == OP_REALLOC && prev && plan[prev - 1].write_at < op.size) {
            tp->check_at = plan[prev - 1].write_at;
            tp->expect = plan[prev - 1].value;
        }
        if (op.size) {
            uint64_t r = mix64(seed ^ i);
            tp->write_at = (uint32_t)(r % op.size);
            tp->value = (uint8_t)(r >> 56) | 1;
            last[op.id] = i + 1;
        }
    }
}

static inline void put_tag(char *p, const tag_plan_t *tp)
{
    if (p && tp->write_at != NO_TAG)
        p[tp->write_at] = (char)tp->value;
}

/* The timed loop.  Inlined into each caller with constant function pointers, so
 * the calls are direct and the loop carries nothing but the ops, one store per
 * new block of where it landed (placed[], compared untimed with the checked
 * run's), its tag, and for a realloc the byte found where the old block's tag
 * was (seen[], compared untimed: no verdict lives in a variable on the stack
 * just above the allocator's frame); libc's loop does the same work. */
static inline __attribute__((always_inline)) void replay(const op_t *ops, size_t n, const tag_plan_t *tags,
                                                         void **ptr, uint32_t *placed, uint8_t *seen, uintptr_t lo,
                                                         const alloc_api_t api, const bool note_op)
{
    for (size_t i = 0; i < n; i++) {
        const op_t op = ops[i];
        if (note_op)  /* the second checked run only: a death there is then said at its op */
            progress->op = (int64_t)i;
        char *p;
        switch (op.kind) {
        case OP_FREE: api.free(ptr[op.id]); continue;
        case OP_ALLOC: p = api.malloc(op.size); break;
        case OP_REALLOC:
            p = api.realloc(ptr[op.id], op.size);
            if (p && tags[i].check_at != NO_TAG)
                seen[i] = (uint8_t)p[tags[i].check_at];
            if (p && !op.size)  /* given back at once, as the checked runs do: the runs stay comparable */
                api.free(p);
            break;
        default: p = api.realloc(NULL, op.size); break;
        }
        ptr[op.id] = p;
        placed[i] = placement(p, lo);
        put_tag(p, &tags[i]);
    }
}

/* The stack below the timed loop, scrubbed before each timed run: an allocator
 * that knows it is timed (mm_init's third call on) could replay a table of the
 * checked run's placements kept there (the red team kept one 1 MiB below its
 * frame).  The nearest STACK_SCRUB_NEAR bytes, where the allocator's own frames
 * will be, are zeroed and stay resident (no page fault in the timed window).
 * On the shared stack the child serves on, the parent has removed everything
 * deeper already (child.c); on the process's own stack (sanitizer builds) it
 * is dropped here, as far as the stack limit lets the stack reach (private
 * pages read back as zeros).  Assumes a stack limit of at most
 * STACK_SCRUB_DEPTH (the default is 8 MiB, and the child may set less): under a
 * larger limit or none, nothing deeper than STACK_SCRUB_DEPTH is dropped. */
enum { STACK_SCRUB_NEAR = 64 << 10, STACK_SCRUB_SLACK = 8 << 10 };
static const size_t STACK_SCRUB_DEPTH = (size_t)64 << 20;

static __attribute__((noinline)) void zero_near_stack(void)
{
    char near[STACK_SCRUB_NEAR + STACK_SCRUB_SLACK];  /* reaches below the dropped range's top */
    memset(near, 0, sizeof near);
    __asm__ volatile("" : : "r"(near) : "memory");
}

static __attribute__((noinline)) void scrub_stack(void)
{
    struct rlimit rl;
    size_t depth = STACK_SCRUB_DEPTH;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur < depth)
        depth = rl.rlim_cur;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t top = ((uintptr_t)__builtin_frame_address(0) & ~(page - 1)) - STACK_SCRUB_NEAR;
    /* The range below the stack's lowest page is unmapped: ENOMEM, after the pages above it are dropped. */
    if (depth > STACK_SCRUB_NEAR)
        madvise((void *)(top - (depth - STACK_SCRUB_NEAR)), depth - STACK_SCRUB_NEAR, MADV_DONTNEED);
    zero_near_stack();
}

/* ---- in the child: what a timed call does */

void timed_prepare(const call_t *prepare)
{
    heap_keep_mark(prepare->kept_high_water, prepare->heap_lo, prepare->heap_end);
    heap_restart(false);
    scrub_stack();
}

/* One timed run of the allocator, mm_init included (a table computed there,
 * untimed, would need no memory that outlived a run).  It starts with nothing
 * of an earlier run in reach: the heap and the stack below are clean
 * (timed_prepare, heap_drop_above), the arrays cleared by the parent. */
int timed_run_mm(const timed_arrays_t *a)
{
    int status = run_init();
    if (status != 0)
        return status;
    replay(a->ops, a->num_ops, a->tags, a->ptr, a->placed, a->seen, heap_lo(),
           (alloc_api_t){mm_malloc, mm_free, mm_realloc}, false);
    return 0;
}

int checked_run_mm(const timed_arrays_t *a)
{
    int status = run_init();
    if (status != 0)
        return status;
    replay(a->ops, a->num_ops, a->tags, a->ptr, a->placed, a->seen, heap_lo(),
           (alloc_api_t){mm_malloc, mm_free, mm_realloc}, true);
    progress->op = -1;
    return 0;
}

/* By default glibc serves a large block by mmap and gives the top of its heap
 * back past a threshold, so each run of libc mapped, faulted and unmapped the
 * same memory again: on large-churn 2,961 page faults and 8.2 ms a run, against
 * none and 0.18 ms with its memory kept (AMD host; classic-expr: 705 a run), a
 * figure of the kernel's and the host's rather than of malloc's, and the
 * noisiest in the suite.  Kept, libc's later runs, like the allocator's, replay
 * on memory already mapped; the first pays for it, and the estimator keeps the
 * fastest.  It also fixes glibc's thresholds, which otherwise move with the
 * sizes freed before. */
void timed_libc_keep_memory(void)
{
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
}

/* The same work as timed_run_mm's replay, no more: giving back the blocks the
 * trace leaves live (a walk over every id) is libc_release's, outside the
 * sample, as the allocator's are dropped with its heap.  Inside, a trace with
 * a large id count charged libc for the walk: 5431x libc on a 2-op trace. */
void timed_run_libc(const timed_arrays_t *a)
{
    replay(a->ops, a->num_ops, a->tags, a->ptr, a->placed, a->seen, heap_lo(), (alloc_api_t){malloc, free, realloc},
           false);
}

void libc_release(const timed_arrays_t *a)
{
    for (uint32_t id = 0; id < a->num_ids; id++)
        if (a->live[id])
            free(a->ptr[id]);
}

/* How the trace leaves each id: live[id] when a block is still allocated (libc's
 * must be given back between samples), size[id] its size (0 when not live). */
static void trace_end(const trace_t *t, unsigned char *live, size_t *size)
{
    for (size_t i = 0; i < t->num_ops; i++) {
        const op_t *op = &t->ops[i];
        bool alive = op->kind != OP_FREE && !(op->kind == OP_REALLOC && op->size == 0);
        if (live)
            live[op->id] = alive;
        if (size)
            size[op->id] = alive ? op->size : 0;
    }
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double kbest_estimate(const double *samples, int n, bool *converged)
{
    double sorted[MDRIVER_MAX_SAMPLES];
    memcpy(sorted, samples, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
    int k = n < MDRIVER_BEST_K ? n : MDRIVER_BEST_K;
    double sum = 0;
    for (int i = 0; i < k; i++)
        sum += sorted[i];
    *converged = n >= MDRIVER_BEST_K && sorted[k - 1] <= sorted[0] * (1 + MDRIVER_BEST_K_TOLERANCE);
    return k ? sum / k : 0;
}

static bool settled(const timing_t *tm, int least)
{
    bool converged;
    kbest_estimate(tm->samples, tm->n, &converged);
    return tm->n >= least && converged;
}

/* The blocks a timed run left live must lie inside the heap and apart, as in the
 * checked runs: unchecked, the timed runs could be served by anything (the same
 * static buffer every time is very fast).  Checked after each run, untimed. */
typedef struct {
    uintptr_t p;
    size_t size;
} span_t;

static int by_address(const void *a, const void *b)
{
    uintptr_t x = ((const span_t *)a)->p, y = ((const span_t *)b)->p;
    return (x > y) - (x < y);
}

static bool timed_blocks_sound(const trace_t *t, void *const *ptr, const size_t *final, span_t *spans,
                               size_t brk, verdict_t *v)
{
    uintptr_t lo = heap_shared_lo();
    size_t n = 0;
    for (uint32_t id = 0; id < t->num_ids; id++)
        if (final[id])
            spans[n++] = (span_t){(uintptr_t)ptr[id], final[id]};
    qsort(spans, n, sizeof *spans, by_address);
    for (size_t i = 0; i < n; i++) {
        if (!spans[i].p)
            return verdict_fail(v, OUTCOME_ALLOC_FAILED, -1, "in the timing pass, a %zu-byte block still live at the "
                                "end was NULL: the timed runs must get what the checked runs got", spans[i].size);
        if (spans[i].p < lo || spans[i].p - lo > brk || spans[i].size > brk - (spans[i].p - lo))
            return verdict_fail(v, OUTCOME_OUT_OF_HEAP, -1, "in the timing pass, a %zu-byte block still live at the "
                                "end, at %#" PRIxPTR ", is outside the heap [%#" PRIxPTR ", %#" PRIxPTR ")",
                                spans[i].size, spans[i].p, lo, lo + brk);
        if (i && spans[i - 1].p + spans[i - 1].size > spans[i].p)
            return verdict_fail(v, OUTCOME_OVERLAP, -1, "in the timing pass, blocks still live at the end overlap: "
                                "[%#" PRIxPTR ", %#" PRIxPTR ") and [%#" PRIxPTR ", %#" PRIxPTR ")", spans[i - 1].p,
                                spans[i - 1].p + spans[i - 1].size, spans[i].p, spans[i].p + spans[i].size);
    }
    return true;
}

/* Another cause of a run placing blocks elsewhere, when only the first run called the checker:
 * one that tidies the allocator's state (coalesces, resets a pointer) was sent to mm_init. */
static const char *checker_hint(const placements_t *pl, bool in_question)
{
    if (!pl->with_checker)
        return "";
    return in_question ? ", or does mm_checkheap change the allocator's state (-c runs it in the first run only)"
                       : "; does mm_checkheap change the allocator's state? -c runs it in the first run only";
}

/* A timed run must place every block where the first correctness run did. */
static bool placed_as_checked(const trace_t *t, const uint32_t *placed, const placements_t *pl, bool timed,
                              verdict_t *v)
{
    const char *hint = checker_hint(pl, false);
    for (size_t i = 0; i < t->num_ops; i++) {
        if (t->ops[i].kind == OP_FREE || placed[i] == pl->offset[i])
            continue;
        char text[48];
        op_describe(&t->ops[i], text, sizeof text);
        if (placed[i] == PLACEMENT_NULL)
            return verdict_fail(v, OUTCOME_INCONSISTENT, (int64_t)i,
                                "op %zu (%s): the %s run got NULL, the checked run a block at heap offset %#" PRIx32
                                " (mm_init must reset all state%s%s)", i, text, timed ? "timed" : "second checked",
                                pl->offset[i], timed ? "; an allocator must not behave differently when timed" : "", hint);
        if (pl->offset[i] == PLACEMENT_NULL)     /* a 0-byte request the checked run answered with NULL */
            return verdict_fail(v, OUTCOME_INCONSISTENT, (int64_t)i,
                                "op %zu (%s): the %s run placed a block at heap offset %#" PRIx32 ", the checked run "
                                "got NULL (mm_init must reset all state%s%s)", i, text, timed ? "timed" : "second checked",
                                placed[i], timed ? "; an allocator must not behave differently when timed" : "", hint);
        if (!timed)
            return verdict_fail(v, OUTCOME_INCONSISTENT, (int64_t)i,
                                "op %zu (%s): the second checked run placed the block at heap offset %#" PRIx32
                                ", the first at %#" PRIx32 " (mm_init must reset all state: the same ops from mm_init "
                                "must give the same blocks; does the allocator read heap bytes it never wrote%s?)",
                                i, text, placed[i], pl->offset[i], checker_hint(pl, true));
        return verdict_fail(v, OUTCOME_INCONSISTENT, (int64_t)i,
                            "op %zu (%s): the timed run placed the block at heap offset %#" PRIx32 ", the checked run at %#"
                            PRIx32 " (mm_init must reset all state; an allocator must not behave differently when timed%s)",
                            i, text, placed[i], pl->offset[i], hint);
    }
    return true;
}

/* A timed run's every realloc must have kept what the block held (the tags above). */
static bool tags_kept(const trace_t *t, const tag_plan_t *tags, const uint8_t *seen, bool timed, verdict_t *v)
{
    for (size_t i = 0; i < t->num_ops; i++) {
        if (tags[i].check_at == NO_TAG || seen[i] == tags[i].expect)
            continue;
        char text[48];
        op_describe(&t->ops[i], text, sizeof text);
        return verdict_fail(v, OUTCOME_INCONSISTENT, (int64_t)i,
                            "op %zu (%s): the %s run's realloc lost the block's payload (a byte the driver had "
                            "written into it was not in the block it returned; an allocator must not behave "
                            "differently when timed)", i, text, timed ? "timed" : "second checked");
    }
    return true;
}

/* Pages past the break are inaccessible only in the checked runs; a timed run's
 * heap is writable to its maximum (fast mode), so the parent looks, untimed, at
 * what a run touched above the checked runs' highest break. */
static bool stayed_below(size_t high_water, verdict_t *v)
{
    size_t at;
    if (!heap_touched_above(high_water, &at))
        return true;
    return verdict_fail(v, OUTCOME_OUT_OF_HEAP, -1, "in the timing pass, the allocator touched the heap at %#" PRIxPTR
                        " (%zu bytes above its start), past the break: the checked runs' highest break was %zu bytes "
                        "above it (bytes past the break are not the allocator's, timed or not)",
                        heap_shared_lo() + at, at, high_water);
}

/* The guard pages around the heap are nobody's: the one below it, opened with
 * mprotect, held 1,024 sizes outside the heap, and outlived every run's clean
 * start, which zeroes the heap and drops the pages above the mark only. */
bool heap_guards_untouched(verdict_t *v)
{
    int side = heap_guard_touched();
    if (!side)
        return true;
    return verdict_fail(v, OUTCOME_OUT_OF_HEAP, -1, "the allocator touched the guard page %s the heap (%s): memory "
                        "outside the heap is not the allocator's, mprotect or not", side < 0 ? "below" : "above",
                        side < 0 ? "just below mem_heap_lo()" : "past the largest heap -M allows");
}

/* ---- in the parent */

bool timed_arrays_open(timed_arrays_t *a, const trace_t *t)
{
    size_t ops = t->num_ops ? t->num_ops : 1, ids = t->num_ids ? t->num_ids : 1;
    *a = (timed_arrays_t){
        .num_ops = t->num_ops,
        .num_ids = t->num_ids,
        .ops = pages_alloc_shared(ops * sizeof *a->ops),
        .tags = pages_alloc_shared(ops * sizeof *a->tags),
        .ptr = pages_alloc_shared(ids * sizeof *a->ptr),
        .placed = pages_alloc_shared(ops * sizeof *a->placed),
        .seen = pages_alloc_shared(ops),
        .live = pages_alloc_shared(ids),
    };
    if (a->ops && a->tags && a->ptr && a->placed && a->seen && a->live)
        return true;
    timed_arrays_close(a);
    return false;
}

/* Every array of a, for what is done to each alike. */
enum { TIMED_ARRAYS = 6 };
static void each_array(const timed_arrays_t *a, void *arrays[TIMED_ARRAYS])
{
    void *all[TIMED_ARRAYS] = {a->ops, a->tags, a->ptr, a->placed, a->seen, a->live};
    memcpy(arrays, all, sizeof all);
}

void timed_arrays_share_no_further(timed_arrays_t *a)
{
    void *arrays[TIMED_ARRAYS];
    each_array(a, arrays);
    for (size_t i = 0; i < TIMED_ARRAYS; i++)
        pages_share_no_further(arrays[i]);
}

bool timed_arrays_untouched(const timed_arrays_t *a)
{
    void *arrays[TIMED_ARRAYS];
    each_array(a, arrays);
    for (size_t i = 0; i < TIMED_ARRAYS; i++)
        if (!pages_untouched(arrays[i]))
            return false;
    return true;
}

void timed_arrays_close(timed_arrays_t *a)
{
    void *arrays[TIMED_ARRAYS];
    each_array(a, arrays);
    for (size_t i = 0; i < TIMED_ARRAYS; i++)
        pages_free(arrays[i]);
    memset(a, 0, sizeof *a);
}

/* What only the parent keeps: the tags each realloc must find, the sizes the
 * trace leaves allocated, room to sort the blocks it leaves. */
typedef struct {
    tag_plan_t *plan;
    size_t *final;
    span_t *spans;
} judge_t;

static void judge_put(judge_t *j)
{
    pages_free(j->plan);
    pages_free(j->final);
    pages_free(j->spans);
}

/* A new tag plan for the parent and, when `hand_over`, the ops and each op's
 * tag without the value a realloc must find (which the parent keeps) put in the
 * child's arrays: the child gets them only now that its checked runs are over. */
static bool judge_get(const trace_t *t, timed_arrays_t *a, judge_t *j, bool hand_over)
{
    size_t ids = t->num_ids ? t->num_ids : 1;
    *j = (judge_t){
        .plan = pages_alloc((t->num_ops ? t->num_ops : 1) * sizeof *j->plan),
        .final = pages_alloc(ids * sizeof *j->final),
        .spans = pages_alloc(ids * sizeof *j->spans),
    };
    size_t *last = pages_alloc(ids * sizeof *last);
    bool ok = j->plan && j->final && j->spans && last;
    if (ok) {
        plan_tags(t, j->plan, last);
        trace_end(t, a->live, j->final);
    } else {
        judge_put(j);
    }
    if (ok && hand_over) {
        memcpy(a->ops, t->ops, t->num_ops * sizeof *t->ops);
        for (size_t i = 0; i < t->num_ops; i++)
            a->tags[i] = (tag_plan_t){j->plan[i].write_at, j->plan[i].check_at, j->plan[i].value, 0};
    }
    pages_free(last);
    return ok;
}

/* The arrays a timed run writes, cleared before it: a run that skipped an op
 * must not pass on what the run before it wrote. */
static void clear_written(timed_arrays_t *a)
{
    memset(a->ptr, 0, (a->num_ids ? a->num_ids : 1) * sizeof *a->ptr);
    memset(a->placed, 0, (a->num_ops ? a->num_ops : 1) * sizeof *a->placed);
    memset(a->seen, 0, a->num_ops ? a->num_ops : 1);  /* tags are never 0 */
}

/* What a replay of the allocator left, against the first checked run. */
static bool run_sound(const trace_t *t, const timed_arrays_t *a, judge_t *j, const placements_t *pl, size_t brk,
                      bool timed, verdict_t *v)
{
    return placed_as_checked(t, a->placed, pl, timed, v) && tags_kept(t, j->plan, a->seen, timed, v) &&
           timed_blocks_sound(t, a->ptr, j->final, j->spans, brk, v) && heap_guards_untouched(v);
}

bool recheck_trace(remote_t *rc, const trace_t *t, const placements_t *pl, timed_arrays_t *a, verdict_t *v)
{
    judge_t j;
    if (!judge_get(t, a, &j, true))
        return verdict_fail(v, OUTCOME_CRASHED, -1, "the driver ran out of memory for %u ids", t->num_ids);
    progress_at(PASS_RECHECK, -1);
    clear_written(a);
    call_t run = {.kind = CALL_CHECKED_REPLAY, .op = -1};
    answer_t done;
    char said[80];
    bool ok = remote_call(rc, &run, &done)
                  ? done.result == 0 ? run_sound(t, a, &j, pl, (size_t)done.brk, false, v)
                                     : verdict_fail(v, OUTCOME_INIT_FAILED, -1, "mm_init returned %s before the second "
                                                    "run (does it reset all its state?)",
                                                    init_failure((int)(intptr_t)done.result, said, sizeof said))
                  : verdict_fail(v, OUTCOME_CRASHED, -1, "the trace's process ended in the second checked run");
    judge_put(&j);
    return ok;
}

bool time_trace(remote_t *rc, const trace_t *t, bool mm, sampling_t want, const placements_t *pl, size_t high_water,
                timed_arrays_t *a, timing_t *out, verdict_t *v)
{
    judge_t j;
    /* libc's top-up replays the ops and tags its child already has: new tags
     * would land on pages of its large blocks that its first pass never
     * touched, a page fault each (about 57 a run on 20 blocks of 100-800 KB). */
    bool top_up = !mm && out->n;
    if (!top_up)
        memset(out, 0, sizeof *out);
    if (!judge_get(t, a, &j, !top_up))
        return verdict_fail(v, OUTCOME_CRASHED, -1, "the driver ran out of memory for %u ids", t->num_ids);
    double began = monotonic_seconds();
    bool ok = true;
    int most = want.most < MDRIVER_MAX_SAMPLES ? want.most : MDRIVER_MAX_SAMPLES;
    out->has_faults = true;
    while (out->n < most) {
        double s;
        long faults;
        answer_t done;
        if (mm) {
            progress_at(PASS_TIMING, -1);
            clear_written(a);
            heap_drop_above(high_water);
            call_t prepare = {.kind = CALL_PREPARE_TIMED, .op = -1, .kept_high_water = high_water,
                              .heap_lo = heap_shared_lo(), .heap_end = heap_shared_end()};
            call_t run = {.kind = CALL_TIMED_RUN, .op = -1};
            if (!(ok = remote_call(rc, &prepare, &done) && remote_timed(rc, &run, &s, &faults, &done))) {
                verdict_fail(v, OUTCOME_CRASHED, -1, "the trace's process ended in the timing pass");
                break;
            }
            if (done.result != 0) {
                char said[80];
                ok = verdict_fail(v, OUTCOME_INIT_FAILED, -1, "mm_init returned %s before a timing run",
                                  init_failure((int)(intptr_t)done.result, said, sizeof said));
                break;
            }
            out->faults[out->n] = faults;
            out->samples[out->n++] = s;
            if (!(ok = run_sound(t, a, &j, pl, (size_t)done.brk, true, v) && stayed_below(high_water, v)))
                break;
        } else {
            progress_at(PASS_LIBC, -1);
            call_t run = {.kind = CALL_LIBC_RUN, .op = -1}, release = {.kind = CALL_LIBC_RELEASE, .op = -1};
            if (!(ok = remote_timed(rc, &run, &s, &faults, &done) && remote_call(rc, &release, &done))) {
                verdict_fail(v, OUTCOME_CRASHED, -1, "the trace's process ended in libc's timing pass");
                break;
            }
            out->faults[out->n] = faults;
            out->samples[out->n++] = s;
        }
        /* A replay so slow that the budget is spent before `least` samples is its
         * own average, and more of them would only eat the trace's time limit. */
        if (settled(out, want.least) || monotonic_seconds() - began > MDRIVER_TIMING_BUDGET)
            break;
    }
    bool unused;
    out->seconds = kbest_estimate(out->samples, out->n, &unused);
    judge_put(&j);
    return ok;
}
