/*
 * measure.c - utilization and the timing pass (see measure.h).
 *
 * Timing estimator (K-best, as in the 64-bit lab's driver): sort the samples;
 * the estimate is the mean of the K = MDRIVER_BEST_K fastest.  Sampling stops
 * once the K fastest lie within MDRIVER_BEST_K_TOLERANCE of each other (after at
 * least min_samples), after MDRIVER_MAX_SAMPLES, or when MDRIVER_TIMING_BUDGET
 * seconds have gone, whichever comes first (so a very slow allocator may get
 * fewer than min_samples: each of its samples is long enough to be steady).
 * Samples use the thread's CPU clock, which a busy neighbour process does not
 * inflate the way it inflates wall time.
 */
#define _GNU_SOURCE
#include "driver/measure.h"

#include <inttypes.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver/heap.h"
#include "driver/pages.h"
#include "driver/progress.h"
#include "memlib.h"
#include "mm.h"

/* ------------------------------------------------------------ utilization */

static inline size_t align_up(size_t n) { return (n + MM_ALIGNMENT - 1) & ~(size_t)(MM_ALIGNMENT - 1); }

void util_compute(const trace_t *t, size_t heap_high_water, util_result_t *u)
{
    memset(u, 0, sizeof *u);
    size_t *size = pages_alloc((t->num_ids ? t->num_ids : 1) * sizeof *size);
    uint64_t live = 0, live_aligned = 0;
    for (size_t i = 0; size && i < t->num_ops; i++) {
        const op_t *op = &t->ops[i];
        live -= size[op->id];
        live_aligned -= align_up(size[op->id]);
        size[op->id] = op->kind == OP_FREE ? 0 : op->size;
        live += size[op->id];
        live_aligned += align_up(size[op->id]);
        if (live > u->peak_payload)
            u->peak_payload = live;
        if (live_aligned > u->peak_aligned)
            u->peak_aligned = live_aligned;
    }
    pages_free(size);
    u->heap_high_water = heap_high_water;
    u->util = heap_high_water ? (double)u->peak_payload / (double)heap_high_water : (u->peak_payload ? 0.0 : 1.0);
    u->ideal = u->peak_aligned ? (double)u->peak_payload / (double)u->peak_aligned : 1.0;
}

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
enum { NO_TAG = UINT32_MAX };

typedef struct {
    uint32_t write_at;  /* where op i's new block gets its tag; NO_TAG: nowhere (no bytes) */
    uint32_t check_at;  /* where a realloc's block must still hold the old block's tag; NO_TAG: not checked */
    uint8_t value;      /* the tag op i writes */
    uint8_t expect;     /* the tag a realloc must find */
} tag_plan_t;

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
                                                         const alloc_api_t api)
{
    for (size_t i = 0; i < n; i++) {
        const op_t op = ops[i];
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

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The stack below the timed loop, scrubbed before each timed run: an allocator
 * that knows it is timed (mm_init's third call on) could replay a table of the
 * checked run's placements kept there (the red team kept one 1 MiB below its
 * frame).  The nearest STACK_SCRUB_NEAR bytes, where the allocator's own frames
 * will be, are zeroed and stay resident (no page fault in the timed window);
 * everything deeper, as far as the stack limit lets the stack reach, is dropped
 * (private pages read back as zeros).  Assumes a stack limit of at most
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

/* One timed run of the allocator, mm_init included; -1 when mm_init fails.  It
 * starts with nothing of an earlier run in reach: the heap and the stack below
 * are clean, and the driver's own arrays are sealed or cleared (time_trace).
 * mm_init is timed: a table computed there, untimed, would need no memory that
 * outlived a run. */
static __attribute__((noinline)) double sample_mm(const trace_t *t, const tag_plan_t *tags, void **ptr,
                                                 uint32_t *placed, uint8_t *seen)
{
    memset(seen, 0, t->num_ops);  /* tags are never 0: a realloc the run skipped cannot pass */
    heap_restart(false);
    scrub_stack();
    double start = cpu_now();
    if (mm_init() != 0)
        return -1;
    replay(t->ops, t->num_ops, tags, ptr, placed, seen, heap_lo(), (alloc_api_t){mm_malloc, mm_free, mm_realloc});
    return cpu_now() - start;
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

static __attribute__((noinline)) double sample_libc(const trace_t *t, const tag_plan_t *tags, void **ptr,
                                                    uint32_t *placed, uint8_t *seen, const unsigned char *live)
{
    double start = cpu_now();
    replay(t->ops, t->num_ops, tags, ptr, placed, seen, heap_lo(), (alloc_api_t){malloc, free, realloc});
    double elapsed = cpu_now() - start;
    for (uint32_t id = 0; id < t->num_ids; id++)
        if (live[id])
            free(ptr[id]);
    return elapsed;
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

static bool settled(const timing_t *tm, int min_samples)
{
    bool converged;
    kbest_estimate(tm->samples, tm->n, &converged);
    return tm->n >= min_samples && converged;
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

static bool timed_blocks_sound(const trace_t *t, void *const *ptr, const size_t *final, span_t *spans, verdict_t *v)
{
    size_t n = 0;
    for (uint32_t id = 0; id < t->num_ids; id++)
        if (final[id])
            spans[n++] = (span_t){(uintptr_t)ptr[id], final[id]};
    qsort(spans, n, sizeof *spans, by_address);
    for (size_t i = 0; i < n; i++) {
        if (!spans[i].p)
            return verdict_fail(v, OUTCOME_ALLOC_FAILED, -1, "in the timing pass, a %zu-byte block still live at the "
                                "end was NULL: the timed runs must get what the checked runs got", spans[i].size);
        if (!heap_contains(spans[i].p, spans[i].size))
            return verdict_fail(v, OUTCOME_OUT_OF_HEAP, -1, "in the timing pass, a %zu-byte block still live at the "
                                "end, at %#" PRIxPTR ", is outside the heap [%#" PRIxPTR ", %#" PRIxPTR ")",
                                spans[i].size, spans[i].p, heap_lo(), heap_lo() + mem_heapsize());
        if (i && spans[i - 1].p + spans[i - 1].size > spans[i].p)
            return verdict_fail(v, OUTCOME_OVERLAP, -1, "in the timing pass, blocks still live at the end overlap: "
                                "[%#" PRIxPTR ", %#" PRIxPTR ") and [%#" PRIxPTR ", %#" PRIxPTR ")", spans[i - 1].p,
                                spans[i - 1].p + spans[i - 1].size, spans[i].p, spans[i].p + spans[i].size);
    }
    return true;
}

/* A timed run must place every block where the first correctness run did. */
static bool placed_as_checked(const trace_t *t, const uint32_t *placed, const placements_t *pl, verdict_t *v)
{
    for (size_t i = 0; i < t->num_ops; i++) {
        if (t->ops[i].kind == OP_FREE || placed[i] == pl->offset[i])
            continue;
        char text[48];
        op_describe(&t->ops[i], text, sizeof text);
        return verdict_fail(v, OUTCOME_INCONSISTENT, (int64_t)i,
                            "op %zu (%s): the timed run placed the block at heap offset %#" PRIx32 ", the checked run at %#"
                            PRIx32 " (mm_init must reset all state; an allocator must not behave differently when timed)",
                            i, text, placed[i], pl->offset[i]);
    }
    return true;
}

/* A timed run's every realloc must have kept what the block held (the tags above). */
static bool tags_kept(const trace_t *t, const tag_plan_t *tags, const uint8_t *seen, verdict_t *v)
{
    for (size_t i = 0; i < t->num_ops; i++) {
        if (tags[i].check_at == NO_TAG || seen[i] == tags[i].expect)
            continue;
        char text[48];
        op_describe(&t->ops[i], text, sizeof text);
        return verdict_fail(v, OUTCOME_INCONSISTENT, (int64_t)i,
                            "op %zu (%s): the timed run's realloc lost the block's payload (a byte the driver had "
                            "written into it was not in the block it returned; an allocator must not behave "
                            "differently when timed)", i, text);
    }
    return true;
}

/* What the timed runs need besides the trace, kept outside libc's heap (pages.h). */
typedef struct {
    void **ptr;           /* each id's block */
    uint32_t *placed;     /* where each op's block landed */
    tag_plan_t *tags;
    uint8_t *seen;        /* what each checked realloc found where the old block's tag was */
    unsigned char *live;  /* libc: the ids the trace leaves allocated */
    size_t *final;        /* mm: the sizes the trace leaves allocated */
    span_t *spans;
} timing_arrays_t;

/* The arrays the timing pass writes are cleared before each run of the allocator:
 * ptr and placed would hold the last run's placements (when libc is not timed in
 * between), spans the last run's final blocks, or a table the allocator put there. */
static void clear_written(const trace_t *t, timing_arrays_t *a)
{
    size_t ids = t->num_ids ? t->num_ids : 1;
    memset(a->ptr, 0, ids * sizeof *a->ptr);
    memset(a->placed, 0, (t->num_ops ? t->num_ops : 1) * sizeof *a->placed);
    memset(a->spans, 0, ids * sizeof *a->spans);
}

static void timing_arrays_put(const trace_t *t, timing_arrays_t *a)
{
    pages_free(a->ptr);
    placements_array_free(a->placed, t->num_ops);
    pages_free(a->tags);
    pages_free(a->seen);
    pages_free(a->live);
    pages_free(a->final);
    pages_free(a->spans);
}

static bool timing_arrays_get(const trace_t *t, bool mm, timing_arrays_t *a)
{
    size_t ids = t->num_ids ? t->num_ids : 1;
    *a = (timing_arrays_t){
        .ptr = pages_alloc(ids * sizeof *a->ptr),
        .placed = placements_array(t->num_ops),
        .tags = pages_alloc((t->num_ops ? t->num_ops : 1) * sizeof *a->tags),
        .seen = pages_alloc(t->num_ops ? t->num_ops : 1),
        .live = mm ? NULL : pages_alloc(ids),
        .final = mm ? pages_alloc(ids * sizeof *a->final) : NULL,
        .spans = mm ? pages_alloc(ids * sizeof *a->spans) : NULL,
    };
    size_t *last = pages_alloc(ids * sizeof *last);
    bool ok = a->ptr && a->placed && a->tags && a->seen && last && (mm ? a->final && a->spans : a->live != NULL);
    if (ok) {
        plan_tags(t, a->tags, last);
        trace_end(t, a->live, a->final);
        /* Read-only from here on: an allocator could otherwise keep a table in them
         * from one run to the next, or rewrite them to switch a check off. */
        pages_protect(a->tags, t->num_ops * sizeof *a->tags, PAGES_READ_ONLY);
        pages_protect(a->live, ids, PAGES_READ_ONLY);
        pages_protect(a->final, ids * sizeof *a->final, PAGES_READ_ONLY);
    } else {
        timing_arrays_put(t, a);
    }
    pages_free(last);
    return ok;
}

bool time_trace(const trace_t *t, bool mm, int min_samples, const placements_t *pl, timing_t *out, verdict_t *v)
{
    timing_arrays_t a;
    if (!timing_arrays_get(t, mm, &a))
        return verdict_fail(v, OUTCOME_CRASHED, -1, "the driver ran out of memory for %u ids", t->num_ids);
    memset(out, 0, sizeof *out);
    double began = wall_now();
    bool ok = true;
    for (int round = 0; round < MDRIVER_MAX_SAMPLES; round++) {
        if (mm) {
            progress_at(PASS_TIMING, -1);
            /* The checked run's placements are the perfect table to replay: unreadable while the allocator runs. */
            pages_protect(pl->offset, t->num_ops * sizeof *pl->offset, PAGES_NO_ACCESS);
            clear_written(t, &a);
            double s = sample_mm(t, a.tags, a.ptr, a.placed, a.seen);
            pages_protect(pl->offset, t->num_ops * sizeof *pl->offset, PAGES_READ_WRITE);
            if (s < 0) {
                ok = verdict_fail(v, OUTCOME_INIT_FAILED, -1, "mm_init failed before a timing run");
                break;
            }
            out->samples[out->n++] = s;
            if (!(ok = placed_as_checked(t, a.placed, pl, v) && tags_kept(t, a.tags, a.seen, v) &&
                       timed_blocks_sound(t, a.ptr, a.final, a.spans, v)))
                break;
        } else {
            progress_at(PASS_LIBC, -1);
            out->samples[out->n++] = sample_libc(t, a.tags, a.ptr, a.placed, a.seen, a.live);
        }
        /* A replay so slow that the budget is spent before min_samples is its own
         * average, and more of them would only eat the trace's time limit. */
        if ((round + 1 >= min_samples && settled(out, min_samples)) || wall_now() - began > MDRIVER_TIMING_BUDGET)
            break;
    }
    bool unused;
    out->seconds = kbest_estimate(out->samples, out->n, &unused);
    timing_arrays_put(t, &a);
    return ok;
}
