/*
 * best-check.h - mm_checkheap for variants/best.c, layer by layer: one block
 * (C1, C2), the heap walk (C1, C3, C4), the free lists (C5), the runs (R1-R4),
 * the medium sizes' live counts (M1, M2),
 * the quick lists (Q1, Q2: see best.c), the state at the heap's top (S1:
 * best.c), and the counts found each way (C6).
 * Invariants: compact.h, best-runs.h and best.c.
 *
 * Part of best.c (it reads best.c's state and helpers) and included by it alone,
 * at its end.  A problem is printed with the caller's line and the checker
 * returns false; it never aborts.
 */
#ifndef VARIANTS_BEST_CHECK_H
#define VARIANTS_BEST_CHECK_H

static bool fail(int lineno, const char *invariant, const void *bp, const char *what)
{
    fprintf(stderr, "mm_checkheap(line %d): %s violated at block %p: %s\n", lineno, invariant, bp, what);
    return false;
}

static inline bool in_heap(const void *p) { return (const char *)p >= first_block() && (const char *)p < heap_brk(); }

/* Layer 1: one block on its own. */
static bool check_block(int lineno, const void *bp)
{
    if (((uintptr_t)bp & (CB_ALIGN - 1)) || !in_heap(bp))
        return fail(lineno, "C1", bp, "payload misaligned or outside the heap");
    size_t size = cb_size(bp);
    if (size % CB_ALIGN || size < CB_MIN_BLOCK || (char *)bp + size > heap_brk())
        return fail(lineno, "C1", bp, "bad size (alignment, minimum, or past the break)");
    if (!cb_alloc(bp) && *cb_ftr(bp) != *cb_hdr(bp))
        return fail(lineno, "C2", bp, "free block's footer differs from its header");
    return true;
}

/* Layer 2: walk the heap block by block; count the free and the kept blocks. */
static bool check_walk(int lineno, size_t *free_seen, size_t *kept_seen)
{
    bool prev_alloc = true;
    char *bp = first_block();
    *free_seen = *kept_seen = 0;
    for (; in_heap(bp) && !is_epilogue(bp); bp = cb_next(bp)) {
        if (!check_block(lineno, bp))
            return false;
        if (cb_prev_alloc(bp) != prev_alloc)
            return fail(lineno, "C3", bp, "CB_PREV_ALLOC disagrees with the block below");
        if (!prev_alloc && !cb_alloc(bp))
            return fail(lineno, "C4", bp, "two free blocks side by side");
        if (is_kept(bp) && (!cb_alloc(bp) || !prev_alloc))
            return fail(lineno, "Q1", bp, "a kept block is free, or has a free block below it");
        prev_alloc = cb_alloc(bp);
        *free_seen += !prev_alloc;
        *kept_seen += is_kept(bp);
    }
    if (bp != heap_brk() || !cb_alloc(bp))
        return fail(lineno, "C1", bp, "the walk does not end on the epilogue at the break");
    if (cb_prev_alloc(bp) != prev_alloc)
        return fail(lineno, "C3", bp, "the epilogue's CB_PREV_ALLOC bit is wrong");
    return true;
}

/* An allocated block of metadata (the run index) holding `bytes`. */
static bool holds_metadata(const void *bp, size_t bytes)
{
    return in_heap(bp) && cb_alloc(bp) && !is_kept(bp) && !run_holding(bp) && cb_size(bp) - CB_WSIZE >= bytes;
}

/* One free list: its nodes, their links, their class (k, or any when k is
 * N_CLASSES: the one list of a heap without classes). */
static bool check_list(int lineno, uint32_t head, unsigned k, size_t *listed)
{
    uint32_t prev = 0;
    for (uint32_t off = head; off; prev = off, off = cb_links(at(off))->next) {
        void *bp = at(off);
        if (!in_heap(bp) || ((uintptr_t)bp & (CB_ALIGN - 1)))
            return fail(lineno, "C5", bp, "list node outside the heap or misaligned");
        if (cb_alloc(bp))
            return fail(lineno, "C5", bp, "allocated block on a free list");
        if (cb_links(bp)->prev != prev)
            return fail(lineno, "C5", bp, "prev link does not match");
        if (k < N_CLASSES && class_of(cb_size(bp)) != k)
            return fail(lineno, "C5", bp, "free block in the wrong size class");
        if (++*listed > st->free_count)
            return fail(lineno, "C6", bp, "more list nodes than free blocks (a cycle?)");
    }
    return true;
}

/* Layer 3: every list, its links, its class, and the bitmap. */
static bool check_lists(int lineno, size_t *listed)
{
    *listed = 0;
    if (few())
        return check_list(lineno, st->one, N_CLASSES, listed);
    const uint32_t *head = st->head;
    const uint64_t *map = st->map;
    for (unsigned k = 0; k < N_CLASSES; k++) {
        bool marked = map[k / 64] >> (k % 64) & 1;
        if (marked != (head[k] != 0))
            return fail(lineno, "C5", at(head[k]), "class bitmap disagrees with the list head");
        if (!check_list(lineno, head[k], k, listed))
            return false;
    }
    return true;
}

/* Layer 3b: the runs.  Each run granule of the map is an allocated block's
 * payload (or, GR_MORE, the rest of a medium run) whose run_t is sane; each
 * run on a class list has a free slot; counted every way. */
static bool check_runs(int lineno)
{
    size_t marked = 0, more = 0, walked = 0, spans = 0, open = 0, listed = 0;
    run_index_t *idx = st->runs ? run_index() : NULL;
    if (idx && !holds_metadata(idx, index_bytes(idx->words, map_wide())))
        return fail(lineno, "R4", idx, "the run index is not an allocated block of its length");
    for (size_t g = 0; idx && g < st->run_granules; g++) {
        unsigned s = granule_state(g);
        marked += s == GR_TAIL || s == GR_HEAD;
        more += s == GR_MORE;
    }
    for (char *bp = first_block(); !is_epilogue(bp); bp = cb_next(bp)) {
        size_t g = granule_of(bp);
        unsigned s = granule_state(g);
        if (s == GR_NONE)
            continue;
        if (s == GR_MORE || granule_at(g) != bp || !cb_alloc(bp) || is_kept(bp))
            return fail(lineno, "R1", bp, "a block's payload lies in a run, off its first granule");
        run_t *r = run_meta(bp);
        if (r->obj < RUN_MIN_OBJ || r->obj > RUN_MAX_OBJ || r->obj % CB_ALIGN)
            return fail(lineno, "R1", bp, "run slot size out of range");
        geom_t geom = run_geom(r->obj);
        if (s == GR_HEAD && !is_medium(r->obj) && r->obj / CB_ALIGN >= LONG_CLASS0)   /* a long run */
            geom = long_geom(r->obj);
        else if (s == GR_HEAD && geom.span && run_span(r, true) > geom.span)         /* stretched */
            geom = (geom_t){run_span(r, true), mid_slots(r->obj, run_span(r, true)), true};
        size_t span = geom.span;
        if (!span || geom.head != (s == GR_HEAD))
            return fail(lineno, "R1", bp, "a run of a slot size that has no run, or of the wrong layout");
        if (cb_size(bp) < run_block_of(geom) || r->slots != geom.slots || r->inv != slot_inverse(r->obj))
            return fail(lineno, "R1", bp, "a run's block is shorter than its geometry, or its slot count or divisor wrong");
        for (size_t k = 1; k < span; k++)
            if (granule_state(g + k) != GR_MORE)
                return fail(lineno, "R1", bp, "a medium run's later granule is not marked GR_MORE");
        if (granule_state(g + span) == GR_MORE)
            return fail(lineno, "R1", bp, "a GR_MORE granule past a medium run's span");
        if (r->count != (size_t)__builtin_popcountll(r->used) || (r->used & ~slot_mask(r->slots)) || !r->count)
            return fail(lineno, "R1", bp, "run's slot count disagrees with its bitmap (or it is empty)");
        walked++;
        spans += span - 1;
        open += r->count < r->slots;
    }
    for (unsigned l = 0; idx && l < RUN_CLASSES + SMALL_CLASSES; l++) {
        uint32_t prev = 0;
        unsigned c = l < RUN_CLASSES ? l : l - RUN_CLASSES;      /* then the small sizes' packed lists */
        uint32_t *head = l < RUN_CLASSES ? open_head(c) : c >= LONG_CLASS0 ? open_head_in(c, true) : NULL;
        for (uint32_t off = head ? *head : 0; off; prev = off, off = run_meta(at(off))->next) {
            char *p0 = at(off);
            if (!in_heap(p0) || run_holding(p0) != p0)
                return fail(lineno, "R2", p0, "listed run is not a marked run");
            run_t *r = run_meta(p0);
            if (r->obj != c * CB_ALIGN || r->count >= r->slots || r->prev != prev)
                return fail(lineno, "R2", p0, "listed run in the wrong class, full, or mislinked");
            if (++listed > walked)
                return fail(lineno, "R2", p0, "more listed runs than runs (a cycle?)");
        }
    }
    if (marked != walked || more != spans || listed != open || (idx ? idx->live : 0) != walked)
        return fail(lineno, "R3", first_block(), "runs counted in the map, the heap, the index and the lists differ");
    return true;
}

/* Layer 3b': the medium sizes' live counts (best.c: MID_MARK).  M1: only an
 * allocated (possibly kept) ordinary block of a medium size carries
 * MID_MARK, and only once the class tables exist (they hold the counts); M2:
 * each size's count is at most its marked blocks plus its medium runs' live
 * slots (equal until it once saturated at 255). */
static bool check_mid(int lineno)
{
    size_t live[MID_COUNTED + 1];
    memset(live, 0, sizeof live);
    for (char *bp = first_block(); MID_MARK && !is_epilogue(bp); bp = cb_next(bp)) {
        size_t g = granule_of(bp);
        if (granule_state(g) == GR_HEAD && granule_at(g) == bp) {
            run_t *r = meta_at(bp, true);
            if (is_medium(r->obj))           /* (not a long run of a small size) */
                live[r->obj / CB_ALIGN - SMALL_CLASSES] += r->count;
            continue;
        }
        if (!(*cb_hdr(bp) & MID_MARK))
            continue;
        if (!cb_alloc(bp) || few() || !is_mid_block(cb_size(bp)) || run_holding(bp)
            || (st->runs && bp == st->base + st->runs))
            return fail(lineno, "M1", bp, "MID_MARK on a free, small, large, run or metadata block");
        live[(cb_size(bp) - CB_ALIGN) / CB_ALIGN - SMALL_CLASSES]++;
    }
    for (unsigned c = 0; (int)c < (int)MID_COUNTED && !few(); c++)
        if (st->mid_live[c] > live[c])
            return fail(lineno, "M2", first_block(), "a medium size counts more live blocks than it has");
    return true;
}

/* Layer 3c: the quick lists.  Each kept block is an allocated ordinary block
 * of its list's exact class, inside the heap; the lengths add up.  Without
 * the class tables, one list holds every class (class_of() says which). */
static bool check_quick(int lineno)
{
    size_t total = 0, len[N_QUICK] = {0};
    for (unsigned l = 0; l < (few() ? 1 : N_QUICK); l++) {
        for (uint32_t off = few() ? st->kept : st->quick[l]; off; off = *quick_link(at(off))) {
            void *bp = at(off);
            if (!in_heap(bp) || ((uintptr_t)bp & (CB_ALIGN - 1)) || run_holding(bp))
                return fail(lineno, "Q1", bp, "kept block outside the heap, misaligned or in a run");
            unsigned c = few() ? class_of(cb_size(bp)) : l;     /* (its header is in the heap now) */
            if (!cb_alloc(bp) || !is_kept(bp) || class_of(cb_size(bp)) != c || cb_size(bp) >= QUICK_LIMIT)
                return fail(lineno, "Q1", bp, "kept block free, unmarked, or not of its list's class");
            if (!in_heap(cb_next(bp)) && !is_epilogue(cb_next(bp)))
                return fail(lineno, "Q1", bp, "kept block runs past the heap");
            if (!cb_prev_alloc(cb_next(bp)) || cb_size_of(*cb_ftr(bp)) != cb_size(bp))
                return fail(lineno, "Q1", bp, "the block above thinks it is free, or the footer's size is wrong");
            if ((*cb_ftr(bp) & KEPT_FLAGS) != KEPT_FLAGS)
                return fail(lineno, "Q1", bp, "the footer lacks the flags kept_below looks for");
            if (++len[c] > QUICK_DEPTH || ++total > st->quick_count)
                return fail(lineno, "Q2", bp, "quick list longer than counted (a cycle?)");
        }
    }
    for (unsigned c = 0; c < N_QUICK && !few(); c++)
        if (len[c] != st->quick_len[c])
            return fail(lineno, "Q2", at(st->quick[c]), "quick list length disagrees with its count");
    if (total != st->quick_count)
        return fail(lineno, "Q2", first_block(), "kept blocks counted and listed differ");
    return true;
}

/* Layer 0: the state lies at the top of the heap, just above the epilogue,
 * and is as long as its mode says (S1). */
static bool check_state(int lineno)
{
    if ((char *)st + state_bytes() != (char *)mem_heap_hi() + 1 || (uintptr_t)st % _Alignof(struct best))
        return fail(lineno, "S1", st, "the state does not end at the break (or is misaligned)");
    if (first_block() < (char *)mem_heap_lo() + CB_WSIZE || first_block() > (char *)st)
        return fail(lineno, "S1", st, "the first block is outside the heap");
    return true;
}

bool mm_checkheap(int lineno)
{
    size_t walked, listed, kept;
    if (!check_state(lineno))
        return false;
    if (!check_walk(lineno, &walked, &kept) || !check_lists(lineno, &listed) || !check_runs(lineno)
        || !check_mid(lineno) || !check_quick(lineno))
        return false;
    /* Layer 4: the counts agree. */
    if (walked != st->free_count || listed != walked)
        return fail(lineno, "C6", first_block(), "free blocks counted walking, listing and running differ");
    if (kept != st->quick_count)
        return fail(lineno, "Q2", first_block(), "kept blocks counted walking and listing differ");
    return true;
}

#endif
