/*
 * tags-core.h - the boundary-tag allocator that the implicit, explicit and
 * segregated variants share (layout and invariants in block.h).
 *
 * A variant is this core plus a few small policy functions it defines itself:
 *
 *   static void *find_fit(size_t asize);          a free block of >= asize bytes, or NULL
 *   static void fl_insert(void *bp);              a free block joins the free list(s)
 *   static void fl_remove(void *bp);              ... and leaves them
 *   static bool fl_check(int lineno, size_t *n);  check the list(s), count their blocks
 *                                                 (*n = FL_NO_LISTS for an implicit list)
 *
 * and two constants, declared before including this file:
 *
 *   CORE_MIN_BLOCK      smallest block: room for the header, the free-list links
 *                       and the footer, rounded to MM_ALIGNMENT
 *   CORE_ALLOC_FOOTER   1: allocated blocks keep a footer (textbook);
 *                       0: they drop it and the next header's BLK_PREV_ALLOC bit
 *                       says whether the block below is free
 *
 * A variant that appends to a list (FIFO) also defines CORE_LIST_TAILS: only
 * then are the lists' last nodes kept, a store on many list changes saved.
 *
 * The variant also defines mm_realloc, as realloc_copy() (allocate, copy, free)
 * or realloc_in_place() (the ladder: shrink, absorb the next block, grow at the
 * heap's end, else copy).
 *
 * The entry points are core_init, core_malloc, core_free, core_stats and
 * core_checkheap; the mm_* names forward to them unless the variant defines
 * CORE_WRAPPED and its own mm_* around them (ts-lock: a lock around each).
 *
 * Shared policies: immediate coalescing; a free block is split when the rest is
 * at least CORE_MIN_BLOCK; the heap grows by exactly what a request lacks (a
 * free block at the top of the heap counts towards it), never by a fixed chunk.
 *
 * State: everything mutable is one `struct core`, kept in the simulated heap
 * below the prologue and reached through the global pointer `core` (block.h
 * draws where); mm_init takes a new one each time, since the driver empties
 * the heap (mem_reset_brk) before calling it again.
 */
#ifndef VARIANTS_TAGS_CORE_H
#define VARIANTS_TAGS_CORE_H

#include <stdio.h>
#include <string.h>

#include "block.h"
#include "memlib.h"
#include "mm.h"
#include "stats.h"

static const size_t FL_NO_LISTS = (size_t)-1;
enum { CORE_OVERHEAD = CORE_ALLOC_FOOTER ? 2 * BLK_WSIZE : BLK_WSIZE };
_Static_assert(CORE_MIN_BLOCK % MM_ALIGNMENT == 0 && CORE_MIN_BLOCK >= 2 * BLK_WSIZE,
               "CORE_MIN_BLOCK must hold a header and footer and keep alignment");

/* Size classes of the segregated variants; unused by the others. */
enum { CORE_CLASSES = 20 };

#ifndef CORE_LIST_TAILS
#define CORE_LIST_TAILS 0
#endif

typedef struct fl_node {
    struct fl_node *next, *prev;
} fl_node_t;

/* All mutable state.  It lives at the bottom of the simulated heap, below the
 * prologue (block.h draws it), so that the only writable global is the pointer
 * to it: the lab's rule allows 128 bytes of globals, and this struct is 296
 * bytes (448 with CORE_LIST_TAILS).  mm_init takes a fresh one from mem_sbrk
 * and zeroes it every time. */
struct core {
    char *heap;                     /* the prologue's payload */
    char *rover;                    /* next fit: where the next search starts */
    fl_node_t *hint;                /* explicit lists: a node on the list near the last change */
    fl_node_t *head[CORE_CLASSES];  /* explicit: head[0]; segregated: one per class */
    fl_node_t *tail[CORE_LIST_TAILS ? CORE_CLASSES : 1];  /* kept only with CORE_LIST_TAILS */
    uint32_t nonempty;              /* segregated: bit k set while head[k] is not empty */
    size_t free_count;              /* free blocks in the heap, kept as they come and go */
    mm_stats_t stats;
};

static struct core *core;           /* NULL until mm_init succeeds */

static void *find_fit(size_t asize);
static void fl_insert(void *bp);
static void fl_remove(void *bp);
static bool fl_check(int lineno, size_t *listed);

/* ------------------------------------------------------------ small helpers */

static inline void *first_block(void) { return blk_next(core->heap); }
static inline bool is_epilogue(const void *bp) { return blk_size(bp) == 0; }
static inline char *heap_brk(void) { return (char *)mem_heap_hi() + 1; }
static inline size_t payload_size(const void *bp) { return blk_size(bp) - CORE_OVERHEAD; }

/* The block size that serves a request of `size` payload bytes. */
static inline size_t adjust(size_t size)
{
    size_t asize = blk_round_up(size + CORE_OVERHEAD, BLK_ALIGN);
    return asize < CORE_MIN_BLOCK ? CORE_MIN_BLOCK : asize;
}

static inline bool in_heap(const void *p)
{
    return (const char *)p > core->heap && (const char *)p < heap_brk();
}

/* Write a block's tags; allocated blocks get a footer only when the variant keeps one. */
static inline void set_block(void *bp, size_t size, bool alloc, bool prev_alloc)
{
    blk_set(bp, size, alloc, prev_alloc, !alloc || CORE_ALLOC_FOOTER);
}

/* ------------------------------------------------------------ the heap */

/* Bytes from `brk` to the start of the state area, so that the struct is aligned. */
static inline size_t state_lead(const char *brk)
{
    return (size_t)(-(uintptr_t)brk) & (_Alignof(struct core) - 1);
}

/* The prologue's payload for the state at `state`: | struct core | pad | prologue hdr,
 * ftr | epilogue hdr |, where pad makes the first payload, 24 bytes past it, aligned.
 * The checker recomputes it to test core->heap before following it. */
static inline char *prologue_of(const struct core *state)
{
    const char *pro = (const char *)(state + 1);
    size_t pad = (size_t)(-(uintptr_t)(pro + 3 * BLK_WSIZE)) & (BLK_ALIGN - 1);
    return (char *)pro + pad + BLK_WSIZE;
}

static int core_init(void)
{
    core = NULL;
    char *brk = mem_sbrk(0);
    if (brk == (void *)-1)
        return -1;
    char *state = brk + state_lead(brk);
    char *heap = prologue_of((struct core *)state);
    if (mem_sbrk((intptr_t)(heap + 2 * BLK_WSIZE - brk)) == (void *)-1)
        return -1;
    core = (struct core *)state;
    memset(core, 0, sizeof *core);
    core->heap = heap;
    blk_set(core->heap, 2 * BLK_WSIZE, true, true, true);          /* prologue */
    *blk_hdr(blk_next(core->heap)) = blk_pack(0, true, true);     /* epilogue */
    core->rover = core->heap;
    stat_max(&core->stats.peak_heap, mem_heapsize());
    return 0;
}

/* Keep the next-fit rover on a block boundary when blocks merge under it. */
static inline void rover_fix(char *merged, size_t size)
{
    if (core->rover > merged && core->rover < merged + size)
        core->rover = merged;
}

/* bp is free, tagged, and on no list: merge it with free neighbours and list the result. */
static void *coalesce(void *bp)
{
    size_t size = blk_size(bp);
    unsigned merges = 0;
    void *next = blk_next(bp);
    if (!blk_alloc(next)) {
        fl_remove(next);
        size += blk_size(next);
        merges++;
    }
    if (!blk_prev_alloc(bp)) {
        void *prev = blk_prev(bp);
        fl_remove(prev);
        size += blk_size(prev);
        bp = prev;
        merges++;
    }
    if (merges) {
        set_block(bp, size, false, blk_prev_alloc(bp));
        core->free_count -= merges;
        stat_add(&core->stats.coalesces, merges);
        rover_fix(bp, size);
    }
    blk_set_prev_alloc(blk_next(bp), false);
    fl_insert(bp);
    return bp;
}

/* Grow the heap by `bytes` (a multiple of the alignment); the new free block is
 * coalesced with a free block at the old top. */
static void *extend_heap(size_t bytes)
{
    if (bytes < CORE_MIN_BLOCK)      /* a free block must hold its links */
        bytes = CORE_MIN_BLOCK;
    char *bp = mem_sbrk((intptr_t)bytes);
    if (bp == (void *)-1)
        return NULL;
    /* bp is the old break: the old epilogue's header becomes this block's */
    set_block(bp, bytes, false, blk_prev_alloc(bp));
    *blk_hdr(blk_next(bp)) = blk_pack(0, true, false);
    core->free_count++;
    stat_add(&core->stats.extensions, 1);
    stat_max(&core->stats.peak_heap, mem_heapsize());
    return coalesce(bp);
}

/* Extend the heap for a request of asize bytes, counting a free block at the top.
 * A bounded search (seglist's CLASS_PROBES) can miss a top block that already
 * fits: then it is the answer, and asize - have would wrap below zero. */
static void *grow_for(size_t asize)
{
    void *end = heap_brk();
    size_t have = blk_prev_alloc(end) ? 0 : blk_size(blk_prev(end));
    if (have < asize)
        return extend_heap(asize - have);
    stat_add(&core->stats.reuses, 1);
    return blk_prev(end);
}

/* Allocate asize bytes at the start of free block bp, splitting off the rest. */
static void place(void *bp, size_t asize)
{
    size_t csize = blk_size(bp);
    bool prev_alloc = blk_prev_alloc(bp);
    fl_remove(bp);
    core->free_count--;
    if (csize - asize >= CORE_MIN_BLOCK) {
        set_block(bp, asize, true, prev_alloc);
        void *rest = blk_next(bp);
        set_block(rest, csize - asize, false, true);
        core->free_count++;
        stat_add(&core->stats.splits, 1);
        fl_insert(rest);
    } else {
        set_block(bp, csize, true, prev_alloc);
        blk_set_prev_alloc(blk_next(bp), true);
    }
}

/* ------------------------------------------------------------ the API */

static void *alloc_block(size_t size)
{
    if (size == 0 || size > BLK_MAX_REQUEST)
        return NULL;
    size_t asize = adjust(size);
    void *bp = find_fit(asize);
    if (bp)
        stat_add(&core->stats.reuses, 1);
    else if (!(bp = grow_for(asize)))
        return NULL;
    place(bp, asize);
    core->rover = bp;
    return bp;
}

static void free_block(void *bp)
{
    set_block(bp, blk_size(bp), false, blk_prev_alloc(bp));
    core->free_count++;
    coalesce(bp);
}

static void *core_malloc(size_t size)
{
    void *bp = alloc_block(size);
    if (bp) {
        stat_add(&core->stats.mallocs, 1);
        stat_add(&core->stats.bytes_requested, size);
    }
    return bp;
}

static void core_free(void *bp)
{
    if (!bp)
        return;
    stat_add(&core->stats.frees, 1);
    free_block(bp);
}

/* realloc's edge cases, the same for every policy: true when *result is the answer. */
static inline bool realloc_edge(void *ptr, size_t size, void **result)
{
    stat_add(&core->stats.reallocs, 1);
    if (ptr == NULL) {               /* realloc(NULL, n) is malloc(n) */
        *result = core_malloc(size);
        return true;
    }
    if (size == 0) {                 /* realloc(p, 0) frees p and returns NULL */
        core_free(ptr);
        *result = NULL;
        return true;
    }
    if (size > BLK_MAX_REQUEST) {    /* cannot be met: p stays valid */
        *result = NULL;
        return true;
    }
    stat_add(&core->stats.bytes_requested, size);
    return false;
}

/* Allocate, copy, free: the textbook realloc. */
static inline void *realloc_move(void *ptr, size_t size)
{
    void *moved = alloc_block(size);
    if (!moved)
        return NULL;
    size_t keep = payload_size(ptr);
    memcpy(moved, ptr, keep < size ? keep : size);
    free_block(ptr);
    return moved;
}

static inline void *realloc_copy(void *ptr, size_t size)
{
    void *result;
    if (realloc_edge(ptr, size, &result))
        return result;
    return realloc_move(ptr, size);
}

/* Give the tail of allocated block bp past asize back, if it makes a block. */
static inline void shrink_to(void *bp, size_t asize)
{
    size_t size = blk_size(bp);
    if (size - asize < CORE_MIN_BLOCK)
        return;
    set_block(bp, asize, true, blk_prev_alloc(bp));
    void *rest = blk_next(bp);
    set_block(rest, size - asize, false, true);
    core->free_count++;
    stat_add(&core->stats.splits, 1);
    coalesce(rest);
}

/* Rungs 1 and 2 of the in-place ladder: ptr resized where it lies, or NULL
 * when it must move.  Each rung returns as soon as it can serve the request. */
static inline void *resize_in_place(void *ptr, size_t size)
{
    size_t asize = adjust(size), have = blk_size(ptr);
    /* 1. shrinking, or growing within the rounding: stay, return the tail */
    if (asize <= have) {
        shrink_to(ptr, asize);
        stat_add(&core->stats.reallocs_in_place, 1);
        return ptr;
    }
    void *next = blk_next(ptr);
    /* 2. the next block is free (and at the top, the heap can grow under it) */
    if (!blk_alloc(next) || is_epilogue(next)) {
        size_t avail = have + blk_size(next);
        bool at_top = is_epilogue(next) || is_epilogue(blk_next(next));
        if (avail < asize && at_top && extend_heap(asize - avail))
            next = blk_next(ptr);
        avail = have + blk_size(next);
        if (avail >= asize) {
            fl_remove(next);
            core->free_count--;
            stat_add(&core->stats.coalesces, 1);
            set_block(ptr, avail, true, blk_prev_alloc(ptr));
            blk_set_prev_alloc(blk_next(ptr), true);
            rover_fix(ptr, avail);
            shrink_to(ptr, asize);
            stat_add(&core->stats.reallocs_in_place, 1);
            return ptr;
        }
    }
    return NULL;
}

static inline void *realloc_in_place(void *ptr, size_t size)
{
    void *result;
    if (realloc_edge(ptr, size, &result))
        return result;
    void *kept = resize_in_place(ptr, size);
    /* 3. nothing beside it: allocate, copy, free */
    return kept ? kept : realloc_move(ptr, size);
}

/* Zeros before mm_init (the shim may report a process that never allocated). */
static void core_stats(mm_stats_t *out)
{
    if (core)
        stat_report(out, &core->stats, core->free_count);
    else
        stat_report(out, &(mm_stats_t){0}, 0);
}

/* ------------------------------------------------------------ the checker */

static bool check_fail(int lineno, const char *invariant, const void *bp, const char *what)
{
    fprintf(stderr, "mm_checkheap(line %d): %s violated at block %p: %s\n",
            lineno, invariant, bp, what);
    return false;
}

/* Layer 1: one block on its own (I1, I2, I3). */
static bool check_block(int lineno, const void *bp)
{
    if (!blk_aligned(bp) || !in_heap(bp))
        return check_fail(lineno, "I1", bp, "payload misaligned or outside the heap");
    size_t size = blk_size(bp);
    if (size % BLK_ALIGN || size < CORE_MIN_BLOCK)
        return check_fail(lineno, "I2", bp, "size not a multiple of the alignment or below the minimum");
    if ((char *)bp + size > heap_brk())
        return check_fail(lineno, "I4", bp, "block runs past the break");
    if ((!blk_alloc(bp) || CORE_ALLOC_FOOTER) && !blk_footer_ok(bp))
        return check_fail(lineno, "I3", bp, "footer differs from header");
    return true;
}

/* Layer 2: walk the heap by sizes (I4, I5, I6); count the free blocks. */
static bool check_walk(int lineno, size_t *free_seen)
{
    /* every other test measures against core->heap: a damaged state is reported, not followed */
    if (core->heap != prologue_of(core))
        return check_fail(lineno, "I4", core->heap, "state's heap pointer damaged (not the prologue mm_init placed)");
    if (blk_size(core->heap) != 2 * BLK_WSIZE || !blk_alloc(core->heap) || !blk_footer_ok(core->heap))
        return check_fail(lineno, "I4", core->heap, "prologue damaged");
    bool prev_alloc = true;
    bool rover_seen = core->rover == core->heap;
    *free_seen = 0;
    char *bp = first_block();
    for (; in_heap(bp) && !is_epilogue(bp); bp = blk_next(bp)) {
        if (!check_block(lineno, bp))
            return false;
        if (blk_prev_alloc(bp) != prev_alloc)
            return check_fail(lineno, "I6", bp, "BLK_PREV_ALLOC bit disagrees with the block below");
        if (!prev_alloc && !blk_alloc(bp))
            return check_fail(lineno, "I5", bp, "two free blocks side by side");
        rover_seen |= bp == core->rover;
        prev_alloc = blk_alloc(bp);
        *free_seen += !prev_alloc;
    }
    if (bp != heap_brk() || !blk_alloc(bp))
        return check_fail(lineno, "I4", bp, "walk does not end on the epilogue at the break");
    if (blk_prev_alloc(bp) != prev_alloc)
        return check_fail(lineno, "I6", bp, "epilogue's BLK_PREV_ALLOC bit is wrong");
    if (!rover_seen && core->rover != bp)
        return check_fail(lineno, "I4", core->rover, "next-fit rover is not on a block boundary");
    return true;
}

static bool core_checkheap(int lineno)
{
    size_t walked, listed;
    if (!check_walk(lineno, &walked))
        return false;
    /* Layer 3: the free lists, checked by the variant. */
    if (!fl_check(lineno, &listed))
        return false;
    /* Layer 4: the free-block counts found each way agree (I7). */
    if (walked != core->free_count)
        return check_fail(lineno, "I7", core->heap, "heap walk and running count of free blocks differ");
    if (listed != FL_NO_LISTS && listed != walked)
        return check_fail(lineno, "I7", core->heap, "heap walk and free lists hold different numbers of blocks");
    return true;
}

#ifndef CORE_WRAPPED
int mm_init(void) { return core_init(); }
void *mm_malloc(size_t size) { return core_malloc(size); }
void mm_free(void *bp) { core_free(bp); }
void mm_stats(mm_stats_t *out) { core_stats(out); }
bool mm_checkheap(int lineno) { return core_checkheap(lineno); }
#endif

/* ------------------------------------------------------------ list helpers */

/* Link free block bp after `after` in list i (after == NULL: at the head). */
static inline void list_link_after(unsigned i, fl_node_t *after, void *bp)
{
    fl_node_t *n = bp;
    n->prev = after;
    n->next = after ? after->next : core->head[i];
    if (n->next)
        n->next->prev = n;
    else if (CORE_LIST_TAILS)
        core->tail[i] = n;
    if (after)
        after->next = n;
    else
        core->head[i] = n;
}

static inline void list_unlink(unsigned i, void *bp)
{
    fl_node_t *n = bp;
    if (n->prev)
        n->prev->next = n->next;
    else
        core->head[i] = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else if (CORE_LIST_TAILS)
        core->tail[i] = n->prev;
}

/* Layer 3 for list variants: each node is a free block in the heap, the links
 * agree both ways, and `class_of` (if given) puts it in this list. */
static inline bool list_check(int lineno, unsigned i, unsigned (*class_of)(size_t), size_t *count)
{
    fl_node_t *prev = NULL;
    for (fl_node_t *n = core->head[i]; n; prev = n, n = n->next) {
        if (!in_heap(n) || !blk_aligned(n))
            return check_fail(lineno, "I7", n, "free-list node outside the heap or misaligned");
        if (blk_alloc(n))
            return check_fail(lineno, "I7", n, "allocated block on a free list");
        if (n->prev != prev)
            return check_fail(lineno, "I7", n, "free-list prev link does not match");
        if (class_of && class_of(blk_size(n)) != i)
            return check_fail(lineno, "I7", n, "free block in the wrong size class");
        if (++*count > core->free_count)
            return check_fail(lineno, "I7", n, "more list nodes than free blocks (a cycle?)");
    }
    if (CORE_LIST_TAILS && core->tail[i] != prev)
        return check_fail(lineno, "I7", core->tail[i], "list tail is not the last node");
    return true;
}

#endif
