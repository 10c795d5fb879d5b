/*
 * best-blocks.h - the ordinary blocks of variants/best.c: coalescing (kept
 * neighbours included), growing the heap, and placing a request in a free
 * block (small ones at its bottom, large ones at its top).
 *
 * Part of best.c, kept apart to keep each file about one idea: it uses best.c's
 * state (best-state.h), its free and quick lists, and is included by best.c
 * alone, after them and before the runs, which place their blocks with it.
 */
#ifndef VARIANTS_BEST_BLOCKS_H
#define VARIANTS_BEST_BLOCKS_H

/* bp is free, on no list, and its header holds its size and the allocated
 * bit of the block below (its other flags and footer may be stale): merge it
 * with its free and kept neighbours, tag the result, list it.  Merging kept
 * blocks too means keeping a block never stops a merge that immediate
 * coalescing would make.  Kept blocks may lie in a row; above a free block
 * lies no free or kept block, and below a kept block no free one, so each
 * walk ends after a free block or at a live one.  The tags are written once,
 * at the end: a block that merges leaves its own header and footer inside
 * the merged block, where nothing reads them. */
static inline __attribute__((always_inline)) void *coalesce_in(void *bp, bool classed)
{
    size_t size = cb_size(bp);
    unsigned merges = 0, free_merges = 0;
    for (;;) {
        void *next = (char *)bp + size;
        if (is_kept(next))
            mid_unmark(next), quick_take(next);
        else if (!cb_alloc(next))
            list_remove_in(next, classed), free_merges++;
        else
            break;
        size += cb_size(next);
        merges++;
    }
    for (;;) {
        void *below;
        if (!cb_prev_alloc(bp))
            below = cb_prev(bp), list_remove_in(below, classed), free_merges++;
        else if (!st->quick_count || !(below = kept_below(bp)))
            break;
        else
            mid_unmark(below), quick_take(below);
        size += cb_size(below);
        bp = below;
        merges++;
    }
    cb_set(bp, size, false, cb_prev_alloc(bp));
    cb_set_prev_alloc((char *)bp + size, false);
    if (merges) {
        st->free_count -= free_merges;
        stat_add(&stats.coalesces, merges);
    }
    list_push_in(bp, class_of(size), classed);
    return bp;
}

FEW_PATH static void *coalesce_few(void *bp) { return coalesce_in(bp, false); }

/* coalesce_in on a classed heap when the block above is kept. */
static __attribute__((noinline)) void *coalesce_kept(void *bp) { return coalesce_in(bp, true); }

/* Merge block bp (of *sizep bytes) with the free block just above it and
 * with `low`, the free block just below it (else bp itself), off their
 * classed lists: the merged block starts at low; its size goes to *sizep and
 * the merges are added to *mergesp. */
static inline __attribute__((always_inline)) void merge_free(char *bp, char *low, size_t *sizep, unsigned *mergesp)
{
    char *next = bp + *sizep;
    if (!cb_alloc(next)) {
        list_remove_in(next, true);
        *sizep += cb_size(next);
        ++*mergesp;
    }
    if (low != bp) {
        list_remove_in(low, true);
        *sizep += cb_size(low);
        ++*mergesp;
    }
}

/* coalesce_in on a classed heap when the block above is not kept and kb, a
 * kept block, lies just below bp or below the free block below bp: the free
 * neighbours merge, then kb and the kept blocks in a row below it (below a
 * kept block lies no free one). */
static __attribute__((noinline)) void *coalesce_kept_below(void *bp, void *kb)
{
    size_t size = cb_size(bp);
    unsigned merges = 0;
    char *low = cb_prev_alloc(bp) ? bp : cb_prev(bp);
    merge_free(bp, low, &size, &merges);
    bp = low;
    st->free_count -= merges;
    do {
        mid_unmark(kb);
        quick_take(kb);
        size += cb_size(kb);
        bp = kb;
        merges++;
    } while (st->quick_count && (kb = kept_below(bp)));
    cb_set(bp, size, false, cb_prev_alloc(bp));
    cb_set_prev_alloc((char *)bp + size, false);
    stat_add(&stats.coalesces, merges);
    list_push_in(bp, class_of(size), true);
    return bp;
}

/* coalesce_in on a classed heap, with the common case -- no kept neighbour,
 * nine calls in ten -- spelled out: then at most the free block above and
 * the free block below merge (the invariants above, checked as C4 and Q1),
 * nothing is called, and the frame is smaller (3 registers saved, not 5).
 * The neighbours are looked at before anything is written, so that the
 * paths with a kept one start from the untouched block. */
static __attribute__((noinline)) void *coalesce(void *bp)
{
    if (few())
        return coalesce_few(bp);
    size_t size = cb_size(bp);
    char *next = (char *)bp + size;
    if (is_kept(next))
        return coalesce_kept(bp);
    char *low = cb_prev_alloc(bp) ? bp : cb_prev(bp);
    void *kb;
    if (st->quick_count && (kb = kept_below(low)))
        return coalesce_kept_below(bp, kb);
    unsigned merges = 0;
    merge_free(bp, low, &size, &merges);
    cb_set(low, size, false, cb_prev_alloc(low));
    cb_set_prev_alloc(low + size, false);
    st->free_count -= merges;            /* (no branch: half the calls merge) */
    stat_add(&stats.coalesces, merges);
    list_push_in(low, class_of(size), true);
    return low;
}

/* Grow the heap by `bytes`; returns the (coalesced) free block at the top. */
static void *extend_heap(size_t bytes)
{
    if (bytes < CB_MIN_BLOCK)
        bytes = CB_MIN_BLOCK;
    if (bytes > CB_HEAP_LIMIT - (size_t)(heap_brk() - st->base))
        return NULL;                      /* past what 32-bit offsets can name */
    char *bp = heap_brk();
    if (mem_sbrk((intptr_t)bytes) == (void *)-1)
        return NULL;
    st = memmove(bp + bytes, st, state_bytes());      /* the state stays on top */
    cb_set(bp, bytes, false, cb_prev_alloc(bp));     /* the old epilogue's header */
    *cb_hdr(cb_next(bp)) = cb_pack(0, true, false);
    st->free_count++;
    stat_add(&stats.extensions, 1);
    stat_max(&stats.peak_heap, mem_heapsize());
    bp = coalesce(bp);
    /* On a heap this big the tables cost under 1/128 of it: the time the
     * searches of the one list take is worth more than their bytes. */
    if (few() && heap_span() >> FEW_HEAP_SHIFT >= sizeof *st - FEW_BYTES)
        add_classes();
    return bp;
}

/* The free block at the top of the heap, or NULL. */
static inline void *top_free(void)
{
    char *end = heap_brk();
    return cb_prev_alloc(end) ? NULL : cb_prev(end);
}

/* Is a request of asize bytes small for this workload: no larger than the
 * running mean of recent requests (weight 1/16)?  A mean, not a fixed size,
 * so that the front/back split follows whatever sizes the program uses. */
static inline bool is_small(size_t asize)
{
    return asize << MEAN_SHIFT <= st->mean;
}

static inline void note_request(size_t asize)
{
    st->mean += asize - (st->mean >> MEAN_SHIFT);
}

/* Grow the heap for a request of asize.  A small request grows it by a slice
 * of the heap's size, so that the small blocks that follow gather at the bottom
 * of that space while large ones fill it from the top (see place()). */
static void *grow_for(size_t asize)
{
    void *top = top_free();
    if (top && cb_size(top) >= asize) {   /* missed by find_fit's BEST_PROBES bound */
        stat_add(&stats.reuses, 1);
        return top;
    }
    size_t need = asize - (top ? cb_size(top) : 0);
    if (is_small(asize)) {
        size_t chunk = cb_round_up(heap_span() / CHUNK_DIV, CB_ALIGN);
        chunk = chunk < CHUNK_MAX ? chunk : CHUNK_MAX;
        need = need > chunk ? need : chunk;
    }
    return extend_heap(need);
}

/* Pins (best-pins.h): a small request that would exactly fill a sliver below
 * a large block looks for another hole first.  Is the block above free block
 * bp large (over twice the mean request)? */
static inline bool below_large(void *bp, size_t mean)
{
    return cb_size(cb_next(bp)) << (MEAN_SHIFT - 1) > mean;
}

static __attribute__((noinline)) void *unpin_place(void *bp, size_t asize);

/* Allocate asize bytes of free block bp (of class k), at its top when `back`,
 * else at its bottom; the rest stays free.  Returns the allocated block.
 * With `pin`, a small request that would fill bp below a large block looks
 * for another hole first (unpin_place). */
static inline __attribute__((always_inline)) void *place_in(void *bp, size_t asize, bool back, unsigned k,
                                                             bool classed, bool pin)
{
    size_t csize = cb_size(bp), rest = csize - asize;
    cb_word_t below = *cb_hdr(bp) & CB_PREV_ALLOC;
    if (rest < CB_MIN_BLOCK) {
        if (pin && !back && asize << (MEAN_SHIFT + 1) <= st->mean && below_large(bp, st->mean))
            return unpin_place(bp, asize);
        list_unlink_in(bp, k, classed);
        st->free_count--;
        cb_set_below(bp, csize, true, below);
        cb_set_prev_alloc(cb_next(bp), true);
        return bp;
    }
    stat_add(&stats.splits, 1);
    /* The rest goes to the head of its class's list.  When bp heads that very
     * list (a third of all places: the top of the heap, a large hole cut
     * again and again), the rest just takes bp's place there: the lists end
     * up as list_unlink + list_push would leave them, with fewer stores. */
    cb_links_t *n = cb_links(bp);
    unsigned kr = class_of(rest);
    bool in_place = kr == k && !n->prev;
    if (!in_place)
        list_unlink_in(bp, k, classed);
    if (back) {
        cb_set_below(bp, rest, false, below);
        if (!in_place)
            list_push_in(bp, kr, classed);
        void *a = (char *)bp + rest;
        cb_set(a, asize, true, false);
        cb_set_prev_alloc(cb_next(a), true);
        return a;
    }
    cb_set_below(bp, asize, true, below);
    void *r = cb_next(bp);
    cb_set(r, rest, false, true);
    if (in_place) {
        cb_links_t *m = cb_links(r);
        m->next = n->next;
        m->prev = 0;
        if (n->next)
            cb_links(at(n->next))->prev = off_of(r);
        if (one_list(classed))          /* r takes bp's place at the head of the one list */
            st->one = off_of(r);
        else
            st->head[k] = off_of(r);
    } else {
        list_push_in(r, kr, classed);
    }
    return bp;
}

/* (place_in is inlined in the malloc path; the other callers share place_at.) */
static __attribute__((noinline)) void *place_at(void *bp, size_t asize, bool back)
{
    return place_in(bp, asize, back, class_of(cb_size(bp)), false, false);
}

/* Small requests at the bottom of a free block, large ones at its top. */
static inline void *place(void *bp, size_t asize) { return place_at(bp, asize, !is_small(asize)); }

/* Return the part of allocated block bp past asize bytes, if it makes a block. */
static void shrink_to(void *bp, size_t asize)
{
    size_t size = cb_size(bp);
    if (size - asize < CB_MIN_BLOCK)
        return;
    cb_set(bp, asize, true, cb_prev_alloc(bp));
    void *rest = cb_next(bp);
    cb_set(rest, size - asize, false, true);
    cb_set_prev_alloc(cb_next(rest), false);
    st->free_count++;
    stat_add(&stats.splits, 1);
    coalesce(rest);
}

/* A block for the run index: best fit, at the bottom of the hole (the index
 * lives as long as runs do, and small blocks gather at the bottom), and never
 * a kept block of the quick lists. */
static void *alloc_meta(size_t size)
{
    size_t asize = adjust(size);
    void *bp = find_fit(asize);
    if (!bp && st->quick_count) {
        quick_flush();
        bp = find_fit(asize);
    }
    if (!bp) {
        void *top = top_free();
        if (top && cb_size(top) >= asize)     /* missed by find_fit's BEST_PROBES bound, as in grow_for */
            bp = top;
        else if (!(bp = extend_heap(asize - (top ? cb_size(top) : 0))))
            return NULL;
    }
    return place_at(bp, asize, false);
}

#endif
