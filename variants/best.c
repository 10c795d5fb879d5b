/*
 * best.c - the kit's strongest general-purpose allocator.
 *
 *   state       in the heap, like a student's must be (best-state.h):
 *               at its top (moved up as the heap grows): 44 bytes while
 *               at most 8 blocks are free or kept (one list of each) and
 *               the heap is small, 480 once the class tables are added
 *               (504 at 16-byte alignment, with the medium sizes' live
 *               counts), plus a run index while runs live; the globals are a
 *               pointer to it, the statistics and a count of the mallocs
 *               served before the class tables exist (mm_init resets all)
 *   free lists  segregated, doubly linked by 32-bit offsets, LIFO: one class
 *               per 16 bytes below 576 bytes, the quick lists' sizes (one
 *               block size at 16-byte alignment, two at 8), four per power
 *               of two up to 64 KiB, one above: 64 classes, so that one
 *               64-bit word of bitmap finds the next non-empty class
 *   fit         exact classes: the head; the others: best fit within the
 *               class, then the smallest block of the next non-empty class
 *               (among a list's first 512 blocks: a bound no suite trace meets);
 *               blocks of 64 KiB and more: address-ordered first fit; a
 *               small request that would exactly fill a sliver just below
 *               a large block takes another hole if one is near (pins)
 *   runs        headerless slots: a size whose 4-byte header would cost a whole
 *               alignment unit (13-16, 29-32, ... bytes at 16) gets a slot in
 *               a run with a bitmap: up to 64 bytes a 1 KiB run, once 8 small
 *               blocks live (a run of a few packed KiB, up to 63 slots, once
 *               16 runs of its size live); up to 384 bytes a run of a few
 *               packed KiB, for each size whose live blocks' headers would
 *               pay for half a run (at 8-byte alignment: the size that leads
 *               the medium requests needing new space), and in a hole when
 *               one could take the request (then as much of the hole as it
 *               can use, <= 8 KiB)
 *   quick lists a freed block below 576 bytes with no free block below it
 *               is kept whole, still tagged allocated, on a singly linked
 *               LIFO list of its size (at most QUICK_DEPTH per list); the
 *               next request of that size pops it: no split, no list search,
 *               no bitmap scan
 *   coalescing  immediate, except for kept blocks, which are freed for real
 *               when a neighbour is, before the heap grows, and when a growing
 *               realloc meets one above it; footers only on free and kept
 *               blocks (compact.h)
 *   split       when the rest is at least 16 bytes; a request no larger
 *               than the running mean of requests takes the bottom of the free
 *               block and a larger one its top, so that the two kinds gather
 *               apart and freed large blocks coalesce into large holes
 *   growth      by what the request lacks beyond the free block at the top;
 *               a small request grows the heap by heap/128 (at most 16 KiB)
 *   realloc     shrink: move down to the bottom of a lower hole that fits
 *               (the lowest for a large block, one of heap/256 or more; else
 *               the tightest), else in place (a large block first slides
 *               down into a free block just below it); grow (best fit over
 *               the places it could go): a hole elsewhere that fits tighter
 *               than the neighbours would (for a large block, the bottom of
 *               the lowest such hole); absorb the free block above; slide
 *               down into a free block below; at the top, grow the heap if no
 *               hole fits; else allocate, copy, free.  A large growing block
 *               keeps a rest under 1/8 of its size as room to grow
 *   min block   16 bytes: a 4-byte header and 12 bytes of payload
 *
 * Layout, heap picture and invariants: compact.h; the state and where
 * placement counts from: best-state.h; the size classes and free lists:
 * best-lists.h; the quick lists: best-quick.h; the small heap's one-list
 * state: best-few.h; coalescing, growth and placement: best-blocks.h; the
 * runs: best-runs.h; pins: best-pins.h; which requests runs serve:
 * best-choice.h; realloc: best-realloc.h; the layered heap checker:
 * best-check.h.
 * The 32-bit offsets limit the heap to 4 GiB; growth past it fails cleanly.
 */
#include <stdio.h>
#include <string.h>

#include "compact.h"
#include "memlib.h"
#include "mm.h"
#include "stats.h"

/* The tuning, in one place.  Each figure was chosen by measuring whole trace
 * groups (docs/results.md), never one trace's sizes.  The class and quick-list
 * limits also set the state's size, which every trace pays in utilization:
 * quick lists for requests up to 512 bytes were the best trade measured:
 * quick lists only below 256 bytes made 256- and 512-byte malloc+free pairs
 * as the process malloc 2.3x glibc's time instead of 1.4x; up to 1 KiB they
 * cost the classic traces, whose heaps are the smallest, 0.2 points more.
 * Exact classes stop where the quick lists do: above, best fit within a class
 * of four sizes finds the same block exact classes would (the smallest that
 * fits, the most recently freed of its size), the bitmap is one word, and
 * the state 104 bytes smaller.  (Exact classes only below 256 bytes save 64
 * bytes more, but the searches cost realloc-strings 8% more instructions.) */
enum {
    QUICK_LIMIT = 576,         /* quick lists below this block size: requests up to 512 bytes
                                  and a little over (the shim adds 16 to each) */
    EXACT_LIMIT = QUICK_LIMIT,                           /* below: one class per 16 bytes */
    RANGE_BITS = 9,            /* above: four classes per power of two from 512 (the first
                                  starts at EXACT_LIMIT), so that the classes number 64 */
    CLASS_STEP = 16,
    N_EXACT = (EXACT_LIMIT - CB_MIN_BLOCK) / CLASS_STEP,
    N_QUICK = (QUICK_LIMIT - CB_MIN_BLOCK) / CLASS_STEP,
    SPLIT_BITS = 2,
    RANGE_SPLITS = 1 << SPLIT_BITS,                      /* classes per power of two above */
    HUGE_BITS = 16,
    HUGE_FIT = 1 << HUGE_BITS,  /* from here on one class, address-ordered first fit */
    N_CLASSES = N_EXACT + RANGE_SPLITS * (HUGE_BITS - RANGE_BITS) + 1,
    MAP_WORDS = (N_CLASSES + 63) / 64,
    MEAN_SHIFT = 4,            /* the running mean of request sizes weighs the last 1/16 */
    CHUNK_DIV = 128,           /* a small request grows the heap by heap / CHUNK_DIV ... */
    CHUNK_MAX = 16384,         /* ... but at most this.  Round 10's joint search (means over
                                  16 layouts): 128 and 16 KiB against 32 and 8 KiB, with
                                  QUICK_DEPTH, RUN_MAX_OBJ, RUN_WASTE_DIV and RUN_LONG_LIVE
                                  moved too: suite +0.14, held-out +0.10, validation seeds
                                  +0.12 +- 0.03.  heap/128 alone: +0.03 / +0.08 / +0.07
                                  (realloc-many +0.4..2.5 on every set); 16 KiB alone loses
                                  0.08 (lab64-bdd-a), with heap/128 it gains */
    SHRINK_MOVE_MIN = 16,      /* a shrinking realloc may move to a lower hole from this size */
    BIG_DIV = 256,             /* a realloc'd block of heap / BIG_DIV or more is large ... */
    SLACK_SHIFT = 3,           /* ... and a growing one keeps a rest below 1/8 of its size */
    RUN_MIN_LIVE = 8,          /* runs open once this many small blocks are live */
    RUN_MID_LIVE = 64,         /* a medium run opens once its size leads the vote by this */
    RUN_EARN = 2,              /* at 16-byte alignment instead: once the headers its live
                                  blocks cost come to RUN_EARN / 4 of a run's bytes */
    PIN_PROBES = 32,           /* free blocks a small request looks at to pass over a pin */
    QUICK_DEPTH = 7,           /* freed blocks a quick list keeps: 7 (the most quick_count
                                  holds) over 4: validation +0.02 with the rest of round 10's
                                  constants, -0.00 alone (rounds before: 1 and 4 the same
                                  utilization, 4 faster than 1) */
};

/* Runs: headerless objects.  A request whose header would cost a whole
 * alignment unit (e.g. 32 bytes at 16-byte alignment: 36 rounds to 48) goes to
 * a run instead, a RUN_BYTES-aligned allocated block carved into equal slots
 * with a bitmap: one granule for small slots, a few packed granules for
 * medium ones (65-384 bytes; e.g. 128 bytes would cost 144 with a header).
 * free() knows a run's object by its granule's state in the run map, itself
 * an allocated block in the heap (best-runs.h). */
enum {
    RUN_SHIFT = 10,
    RUN_BYTES = 1 << RUN_SHIFT,              /* one granule */
    RUN_META = 24,                           /* run_t */
    RUN_TAIL = 32,                           /* a run with run_t after its slots ends this far
                                                into the next granule (run_t, header, aligned) */
    RUN_HEAD = (RUN_META + CB_ALIGN - 1) / CB_ALIGN * CB_ALIGN,  /* a medium run's run_t, aligned */
    RUN_MIN_OBJ = 16,
    RUN_SMALL_MAX = 64,                      /* small runs: slots up to this, one granule */
    RUN_MAX_OBJ = 384,                       /* medium runs: several granules, packed (384,
                                                not 512: validation +0.03 in round 10's set) */
    RUN_MIN_SLOTS = 16,                      /* a medium run holds at least this many slots */
    RUN_MAX_SPAN = 8,                        /* ... in at most this many granules */
    RUN_WASTE_DIV = 1,                       /* ... wasting under alignment / this per slot
                                                (1, not 2: classic-binary2 +0.37 on every
                                                seed; validation +0.02 alone) */
    RUN_HOLE_FIRST = 1,                      /* medium runs grow the heap only when no hole fits */
    RUN_PROBES = 64,                         /* free blocks looked at for a run's place */
    RUN_LONG_LIVE = 16,                      /* a small size's runs are long (packed, several
                                                granules) once this many of them live (16,
                                                not 32, in round 10's set: validation +0.006
                                                +- 0.006, the weakest of its moves; round 6
                                                saw 16 lose 0.45 on lab64-syn-mix's seeds) */
    RUN_CLASSES = RUN_MAX_OBJ / CB_ALIGN + 1,                /* (at most 255: no_run_class) */
    SMALL_CLASSES = RUN_SMALL_MAX / CB_ALIGN + 1,
};

typedef struct run {
    uint64_t used;                           /* bit i: slot i is allocated */
    uint32_t next, prev;                     /* runs with a free slot, as offsets of the run */
    uint16_t obj;                            /* slot size */
    uint16_t count;                          /* slots in use */
    uint16_t slots;                          /* slots in the run, kept: a division costs ~15 cycles */
    uint16_t inv;                            /* ceil(2^16 / obj): slot index by a multiply */
} run_t;

_Static_assert(sizeof(run_t) <= RUN_META && RUN_META + CB_WSIZE <= RUN_TAIL && RUN_META <= RUN_HEAD,
               "run_t fits after a small run's slots and before a medium run's");
_Static_assert(RUN_BYTES / RUN_MIN_OBJ <= 64, "one 64-bit word maps a run's slots");

_Static_assert(EXACT_LIMIT >> RANGE_BITS == 1 && (EXACT_LIMIT - (1 << RANGE_BITS)) >> (RANGE_BITS - SPLIT_BITS) == 0,
               "the first range class starts at EXACT_LIMIT");

/* Largest request: its block size must fit the 32-bit header. */
static const size_t MAX_REQUEST = (size_t)UINT32_MAX - 4096;

#include "best-state.h"

static inline size_t adjust(size_t size)
{
    size_t asize = cb_round_up(size + CB_WSIZE, CB_ALIGN);
    return asize < CB_MIN_BLOCK ? CB_MIN_BLOCK : asize;
}

/* ------------------------------------------------------------ free lists */

#include "best-lists.h"

#include "best-quick.h"

#include "best-few.h"

/* ------------------------------------------------------------ blocks */

#include "best-blocks.h"

/* ------------------------------------------------------------ runs */

#include "best-runs.h"
#include "best-pins.h"

/* ------------------------------------------------------------ the API */

int mm_init(void)
{
    st = NULL;
    char *brk = mem_sbrk(0);
    if (brk == (void *)-1)
        return -1;
    /* the first payload, aligned, just past a 4-byte header; the state
     * above it, where the blocks end */
    char *first = (char *)cb_round_up((uintptr_t)brk + CB_WSIZE, CB_ALIGN);
    if (mem_sbrk((intptr_t)(first - brk + FEW_BYTES)) == (void *)-1)
        return -1;
    st = (struct best *)first;
    memset(st, 0, FEW_BYTES);
    memset(&stats, 0, sizeof stats);
    few_mallocs = 0;
    st->base = first - ORIGIN_GAP;
    *cb_hdr(first) = cb_pack(0, true, true);     /* the epilogue, for now */
    stat_max(&stats.peak_heap, mem_heapsize());
    return 0;
}

/* No free block fits asize: the kept blocks go back (they coalesce) and the
 * lists are searched again, else the heap grows. */
static __attribute__((noinline)) void *fit_or_grow(size_t asize)
{
    void *bp = NULL;
    if (st->quick_count) {
        quick_flush();
        bp = find_fit(asize);
    }
    if (bp)
        stat_add(&stats.reuses, 1);
    else
        bp = grow_for(asize);
    return bp;
}

/* The slow part of a malloc: no quick-list block fits.  Best fit from the
 * free lists, else fit_or_grow.  Its search and split are inlined here, the
 * path of every malloc that the quick lists do not serve. */
static inline __attribute__((always_inline)) void *alloc_fit_in(size_t asize, bool classed)
{
    unsigned k;
    void *bp = find_fit_in(asize, &k, classed);
    bool found = bp;
    if (bp)
        stat_add(&stats.reuses, 1);
    else if ((bp = fit_or_grow(asize)))
        k = class_of(cb_size(bp));
    else
        return NULL;
    return place_in(bp, asize, !is_small(asize), k, classed, classed && found);   /* (pins: malloc_mid's path) */
}

/* The same, out of line, for the rarer callers (a run that declined, realloc). */
static __attribute__((noinline)) void *alloc_fit(size_t asize) { return alloc_fit_in(asize, false); }

/* A block of asize bytes: a kept one of that size if there is one (inline:
 * the common case of a small malloc is a pop and a few stores), else the
 * slow path. */
static inline __attribute__((always_inline)) void *alloc_block(size_t asize)
{
    void *bp = quick_pop(asize);
    return bp ? bp : alloc_fit(asize);
}

/* Free allocated (or no longer kept) block bp; coalesce tags it. */
static void free_block(void *bp)
{
    mid_unmark(bp);
    st->free_count++;
    coalesce(bp);
}

/* ------------------------------------------------------------ which requests runs serve */

#include "best-choice.h"

/* A run's slot for sizes that fit one, else an ordinary block (for realloc;
 * mm_malloc spells out the same steps with its fast paths inline). */
static void *alloc_any(size_t size)
{
    if (size == 0 || size > MAX_REQUEST)
        return NULL;
    size_t asize = adjust(size);
    void *bp = NULL;
    if (takes_run(size, asize))
        bp = run_alloc(size, false);
    else if (mid_open(size, asize))
        bp = run_alloc(size, true);
    if (!bp)
        bp = quick_pop(asize);
    if (!bp && (bp = mid_request(size, asize)))
        return bp;
    if (!bp) {
        bp = alloc_fit(asize);
        mid_mark(bp, size, asize);
    }
    return bp;
}

static inline void count_malloc(size_t size)
{
    stat_add(&stats.mallocs, 1);
    stat_add(&stats.bytes_requested, size);
}

/* mm_malloc's paths other than a pop from a quick list or an open small run,
 * apart so that those need no stack frame (all are tail calls). */
static __attribute__((noinline)) void *malloc_run(size_t size, size_t asize, bool medium)
{
    void *bp = run_alloc(size, medium);
    if (!bp)
        bp = alloc_block(asize);
    if (bp)
        count_malloc(size);
    return bp;
}

/* No free block fits: flush the kept blocks or grow the heap, then split. */
static __attribute__((noinline)) void *malloc_grow(size_t size, size_t asize)
{
    void *bp = fit_or_grow(asize);
    if (!bp)
        return NULL;
    bp = place_in(bp, asize, !is_small(asize), class_of(cb_size(bp)), true, false);
    count_malloc(size);
    return bp;
}

/* place_in on a classed heap, out of line: malloc_fit's split (bp has room
 * for a rest), at the top of bp and at its bottom ... */
static inline __attribute__((always_inline)) void *split_in(void *bp, size_t asize, bool back, unsigned k)
{
    if (cb_size(bp) - asize < CB_MIN_BLOCK)
        __builtin_unreachable();         /* (fewer registers: no whole-block path) */
    return place_in(bp, asize, back, k, true, false);
}
static __attribute__((noinline)) void *malloc_back(void *bp, size_t asize, unsigned k)
{
    return split_in(bp, asize, true, k);
}
static __attribute__((noinline)) void *malloc_front(void *bp, size_t asize, unsigned k)
{
    return split_in(bp, asize, false, k);
}

/* ... and its whole block (no rest), apart: it needs no stack frame; a small
 * request may pass over a pin here (place_in). */
static __attribute__((noinline)) void *malloc_whole(void *bp, size_t asize, unsigned k)
{
    return place_in(bp, asize, false, k, true, true);
}

/* alloc_fit_in(asize, true), split in parts that each need fewer registers:
 * the search here, without a stack frame; the split (a whole block, the
 * bottom or the top of one: three functions, the first without a frame, the
 * second with 2 registers saved instead of 4) and the paths that call out (a
 * flush or growth) as tail calls.  (3% fewer instructions in the allocator
 * with coalesce's fast path; the three splits 0.6% more; placements
 * unchanged.) */
static inline __attribute__((always_inline)) void *fit_search(size_t size, size_t asize)
{
    unsigned k;
    void *bp = find_fit_in(asize, &k, true);
    if (!bp)
        return malloc_grow(size, asize);
    stat_add(&stats.reuses, 1);
    count_malloc(size);
    if (cb_size(bp) - asize < CB_MIN_BLOCK)
        return malloc_whole(bp, asize, k);
    return is_small(asize) ? malloc_front(bp, asize, k) : malloc_back(bp, asize, k);
}

/* A medium request that a new run's slot takes (its size earned runs or
 * leads the vote), else as fit_search, and marked. */
static __attribute__((noinline)) void *malloc_mid_run(size_t size, size_t asize)
{
    void *bp = run_alloc(size, true);
    if (!bp) {
        bp = alloc_fit_in(asize, true);           /* mm_malloc's classed path */
        mid_mark(bp, size, asize);
    }
    if (bp)
        count_malloc(size);
    return bp;
}

/* A medium request: perhaps a new run's slot, else as fit_search, and at
 * 16-byte alignment marked; at 8 (the vote, no mark) without a stack frame. */
static __attribute__((noinline)) void *malloc_mid(size_t size, size_t asize)
{
    if (mid_takes_run(size, asize))
        return malloc_mid_run(size, asize);
    if (!MID_MARK)
        return fit_search(size, asize);
    void *bp = alloc_fit_in(asize, true);
    mid_mark(bp, size, asize);
    if (bp)
        count_malloc(size);
    return bp;
}

/* The search, and the medium runs' vote or count (malloc_mid). */
static __attribute__((noinline)) void *malloc_fit(size_t size, size_t asize)
{
    /* (at 16-byte alignment a medium request no run would serve -- two in
     * three -- has nothing to count or earn: the plain path) */
    if (is_mid_block(asize) && (!MID_MARK || run_obj(size) < asize))    /* (wants_run(size)) */
        return malloc_mid(size, asize);
    return fit_search(size, asize);
}

/* A heap without the class tables: alloc_any, out of line. */
FEW_PATH static void *malloc_few(size_t size)
{
    if (++few_mallocs == FEW_MALLOCS)
        add_classes();
    void *bp = alloc_any(size);
    if (bp)
        count_malloc(size);
    return bp;
}

/* alloc_any(size), spelled out so that its common cases, a slot of an open
 * small run and a pop from a quick list, run without a call.  Only a block
 * above small runs' sizes looks for an open medium run. */
void *mm_malloc(size_t size)
{
    if (few())
        return malloc_few(size);
    if (size == 0 || size > MAX_REQUEST)
        return NULL;
    size_t asize = adjust(size);
    if (takes_run(size, asize)) {
        size_t obj = run_obj(size);
        unsigned c = (unsigned)(obj / CB_ALIGN);
        char *p0 = open_run(c, false);
        if (!p0)
            return malloc_run(size, asize, false);
        stat_add(&stats.reuses, 1);
        count_malloc(size);
        return run_take(p0, c, obj, false);
    }
    if (mid_open(size, asize))
        return malloc_run(size, asize, true);
    void *bp = quick_pop_classed(asize);
    if (!bp)
        return malloc_fit(size, asize);
    count_malloc(size);
    return bp;
}

/* Free slot p of medium run p0: out of line, so that free_slot's path for
 * small runs stays as short as before medium runs. */
static __attribute__((noinline)) void free_mid_slot(char *p0, void *p)
{
    size_t obj = meta_at(p0, true)->obj;
    mid_freed(obj + CB_ALIGN);
    if (is_medium(obj))                  /* (a long run's small slots go uncounted) */
        mid_live_down(obj);
    run_free(p0, p, true);
}

/* Free slot p of a run.  Out of line, as run_free always was: free()'s fast
 * path stays short.  Only a wide index (medium runs live) may hold a medium
 * run's slot. */
static __attribute__((noinline)) void free_slot(void *p)
{
    bool medium = false;
    char *p0 = map_wide() ? run_start(p, &medium) : granule_at(granule_of(p));
    if (medium) {
        free_mid_slot(p0, p);
        return;
    }
    st->small_live -= st->small_live > 0;   /* (no branch) */
    run_free(p0, p, false);
}

void mm_free(void *bp)
{
    if (!bp)
        return;
    stat_add(&stats.frees, 1);
    if (in_run(bp)) {
        free_slot(bp);
        return;
    }
    cb_word_t h = *cb_hdr(bp);           /* (read once: the stores below may alias it) */
    if (is_small_block(cb_size_of(h)))
        st->small_live -= st->small_live > 0;
    if (!quick_push(bp, h)) {
        mid_freed(cb_size(bp));          /* (read again: h kept across quick_push's call
                                            on a heap without the tables cost mm_free
                                            a stack frame) */
        if (MID_MARK && (*cb_hdr(bp) & MID_MARK)) {
            free_block(bp);
            return;
        }
        st->free_count++;                /* free_block, with no mark to take off */
        coalesce(bp);
    }
}

#include "best-realloc.h"

/* Zeros before mm_init: the shim reports into a struct it did not clear, even
 * when its start failed and mm_init never ran. */
void mm_stats(mm_stats_t *out)
{
    if (st)
        stat_report(out, &stats, st->free_count + st->quick_count);
    else
        stat_report(out, &(mm_stats_t){0}, 0);
}

#include "best-check.h"
