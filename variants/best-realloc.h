/*
 * best-realloc.h - the realloc ladder of variants/best.c.
 *
 * Part of best.c, kept apart to keep each file about one idea: it uses best.c's
 * state (st), its block, list and run functions and its BIG_DIV / SLACK_SHIFT
 * constants, and is included by best.c alone, after its malloc and free.
 * Realloc is the one call that may move a live block, so it is where best
 * fights fragmentation beyond placement: the ladder in best.c's card, tried in
 * its order (a tighter hole elsewhere, the block above, the block below, new
 * heap at the top, a copy), with the rules for large blocks that decide the
 * heap's peak on realloc-heavy programs (docs/results.md).
 */
#ifndef VARIANTS_BEST_REALLOC_H
#define VARIANTS_BEST_REALLOC_H

/* Is a realloc'd block of asize bytes large for this heap?  Its moves decide
 * the heap's peak: a copy of it needs room for both. */
static inline bool is_big(size_t asize) { return asize >= heap_span() / BIG_DIV; }

/* Does a large growing block of asize bytes, given `total` bytes, keep them
 * all?  A rest under 1/8 of its size, split off, is a sliver just above it
 * that the next small block fills, walling the buffer in so that its next
 * growth must copy it; kept, it is room for that growth. */
static inline bool keeps_slack(size_t asize, size_t total)
{
    return total - asize < asize >> SLACK_SHIFT && is_big(asize);
}

/* The hole a realloc'd block of asize bytes would move to: the lowest that
 * fits for a large block (packed low, large blocks leave the heap's top free
 * for the next one's growth), else the tightest. */
static inline void *realloc_hole(size_t asize)
{
    unsigned k;
    return is_big(asize) ? lowest_fit(class_of(asize), asize, &k) : find_fit(asize);
}

/* Make allocated block bp span `total` bytes from `to` (bp itself, or the free
 * block below it), taking in the free block above if `to` + total reaches past
 * it; the payload moves down when `to` is below bp. */
static void *widen(void *bp, void *to, size_t total, size_t asize)
{
    size_t keep = cb_size(bp) - CB_WSIZE;
    void *next = cb_next(bp);
    bool prev_alloc;
    if (to != bp) {
        list_remove(to);
        st->free_count--;
        stat_add(&stats.coalesces, 1);
        prev_alloc = cb_prev_alloc(to);
    } else {
        prev_alloc = cb_prev_alloc(bp);
    }
    if ((char *)to + total > (char *)next) {
        list_remove(next);
        st->free_count--;
        stat_add(&stats.coalesces, 1);
    }
    if (to != bp)
        memmove(to, bp, keep);
    cb_set(to, total, true, prev_alloc);
    cb_set_prev_alloc(cb_next(to), true);
    if (!keeps_slack(asize, total))
        shrink_to(to, asize);
    stat_add(&stats.reallocs_in_place, 1);
    return to;
}

/* Copy what ptr holds (at most size bytes) to block `to`, free ptr; returns to. */
static void *move_block(void *ptr, void *to, size_t size)
{
    size_t keep = cb_size(ptr) - CB_WSIZE;
    memcpy(to, ptr, keep < size ? keep : size);
    free_block(ptr);
    return to;
}

void *mm_realloc(void *ptr, size_t size)
{
    stat_add(&stats.reallocs, 1);
    if (!ptr)                                    /* realloc(NULL, n) is malloc(n) */
        return mm_malloc(size);
    if (size == 0) {                             /* realloc(p, 0) frees p */
        mm_free(ptr);
        return NULL;
    }
    if (size > MAX_REQUEST)                      /* cannot be met; p stays valid */
        return NULL;
    stat_add(&stats.bytes_requested, size);
    bool medium;
    char *p0 = run_of(ptr, &medium);
    if (p0) {                                    /* a run's slot: keep it or move */
        size_t obj = meta_at(p0, medium)->obj;
        if (size <= obj) {
            stat_add(&stats.reallocs_in_place, 1);
            return ptr;
        }
        void *moved = alloc_any(size);
        if (moved) {
            memcpy(moved, ptr, obj);
            free_slot(ptr);
        }
        return moved;
    }
    mid_unmark(ptr);                             /* (its size may change: uncounted) */
    size_t asize = adjust(size), have = cb_size(ptr);
    /* 1. it fits already: give back the tail -- unless a hole lower in the
     * heap fits it: then it moves down, to the bottom of the hole, and the
     * whole block goes back.  At the bottom, the hole's rest stays in one
     * piece above it, room if it grows again.  (The lowest hole for small
     * blocks too saved a little more space but looks at every free block:
     * 1.5x slower on realloc-many.) */
    if (asize <= have && asize + CB_MIN_BLOCK <= have && asize >= SHRINK_MOVE_MIN) {
        void *hole = realloc_hole(asize);
        if (hole && hole < ptr)
            return move_block(ptr, place_at(hole, asize, false), size);
    }
    if (asize <= have) {
        /* A large block with a free block just below slides down into it (the
         * copy overlaps): the hole below closes, and the tail given back joins
         * whatever is free above, one piece instead of two. */
        if (!cb_prev_alloc(ptr) && is_big(asize)) {
            void *to = cb_prev(ptr);
            list_remove(to);
            st->free_count--;
            stat_add(&stats.coalesces, 1);
            memmove(to, ptr, size);              /* only what the block keeps */
            cb_set(to, cb_size(to) + have, true, cb_prev_alloc(to));
            ptr = to;
        }
        shrink_to(ptr, asize);
        stat_add(&stats.reallocs_in_place, 1);
        return ptr;
    }
    /* Growing.  A kept block above is freed for real first, so that the block
     * can take it. */
    void *next = cb_next(ptr);
    if (is_kept(next)) {
        quick_release(next);
        next = cb_next(ptr);
    }
    size_t above = cb_alloc(next) ? 0 : cb_size(next);
    bool at_top = is_epilogue(next) || (above && is_epilogue(cb_next(next)));
    void *below = cb_prev_alloc(ptr) ? NULL : cb_prev(ptr);
    size_t under = below ? cb_size(below) : 0;
    /* 2. best fit over the places the block could go: below the top of the
     * heap, a hole elsewhere that it fills more tightly than its neighbours
     * would wins (move, copy, free).  Widening into a roomy neighbour leaves a
     * sliver nobody fits; a string built by appends moves hole to hole
     * instead, each hole it leaves serving the next, shorter string.  A
     * large block takes the lowest hole that fits (realloc_hole), and the
     * whole of it when the rest would be under 1/8 of its size (keeps_slack),
     * at its bottom as a shrinking one does: the rest stays just above it,
     * room to grow in place next time. */
    if (!at_top) {
        size_t rest = have + above >= asize ? have + above - asize
                    : below && under + have + above >= asize ? under + have + above - asize
                    : (size_t)-1;
        void *hole = realloc_hole(asize);
        size_t hsize = hole ? cb_size(hole) : 0;
        if (hole && hole != next && hole != below && hsize - asize < rest) {
            size_t take = keeps_slack(asize, hsize) ? hsize : asize;
            return move_block(ptr, is_big(asize) ? place_at(hole, take, false) : place(hole, take), size);
        }
    }
    /* 3. the free block above */
    if (have + above >= asize)
        return widen(ptr, ptr, have + above, asize);
    /* 4. the free block below too: slide the payload down */
    if (below && under + have + above >= asize)
        return widen(ptr, below, under + have + above, asize);
    /* 5. at the top of the heap: grow the heap under it (no copy), unless a
     * hole elsewhere already fits: new heap is the last resort */
    if (at_top && !find_fit(asize) && extend_heap(asize - (have + above)))
        return widen(ptr, ptr, have + cb_size(cb_next(ptr)), asize);
    /* 6. allocate, copy, free */
    void *moved = alloc_block(asize);
    return moved ? move_block(ptr, moved, size) : NULL;
}

#endif
