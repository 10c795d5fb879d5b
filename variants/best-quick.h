/*
 * best-quick.h - the quick lists of variants/best.c: freed small blocks kept
 * whole for the next request of their size.
 *
 * Part of best.c, kept apart to keep each file about one idea: it uses best.c's
 * state (st), its size classes and QUICK_* constants, and its block functions,
 * and is included by best.c alone, after its free lists.
 */
#ifndef VARIANTS_BEST_QUICK_H
#define VARIANTS_BEST_QUICK_H

/* Quick lists (Weinstock and Wulf's QuickFit; dlmalloc's fastbins, glibc's
 * tcache): a freed block of an exact-class size is kept as it is, still tagged
 * allocated, on a singly linked LIFO list of its class, up to QUICK_DEPTH per
 * class, and the next request of that size takes it back without splitting,
 * coalescing or touching the class lists.  Its link is the first 4 bytes of the
 * payload.  Coalescing is only deferred: before the heap grows, every kept
 * block is freed for real (quick_flush), so the heap never grows while a kept
 * block could have served the request.  A block just above a free one is not
 * kept: merging it there makes that hole bigger, which is what coalescing is
 * for (keeping such blocks cost 12 points on a growing-buffer trace).  A block
 * with a free block above it is kept: that is usually the top of the heap,
 * which the next request of the same size would split again at the same
 * place.  Kept blocks may lie side by side: refusing to keep a block next to
 * a kept one made the suite 4% slower and saved no space on average over six
 * other seeds of each realloc trace (docs/results.md).
 *
 * Until the class tables exist (best-state.h: struct best), the kept blocks of all
 * classes are on one list, st->kept, which holds each class's blocks in the
 * order its own list would: the searches below find the block the classes'
 * lists would give.
 *
 * Invariants (checked by best-check.h):
 *   Q1  a kept block is an allocated block of its list's exact class, carries
 *       QUICK_KEPT and a footer of its size with the flags allocated, kept and
 *       allocated below, and no free block lies below it;
 *       no other block carries QUICK_KEPT;
 *   Q2  each list (each class on st->kept) is at most QUICK_DEPTH long and
 *       quick_len / quick_count count what the lists and the heap walk find. */
static inline uint32_t *quick_link(void *bp) { return bp; }

/* A kept block carries QUICK_KEPT, a header bit compact.h leaves unused (sizes
 * are multiples of 8), so that a growing realloc can tell its neighbour above
 * is kept rather than live, and take it. */
enum { QUICK_KEPT = 4 };
_Static_assert((QUICK_KEPT & ((int)CB_ALLOC | (int)CB_PREV_ALLOC)) == 0 && QUICK_KEPT <= (int)CB_FLAGS,
               "the kept bit is a spare flag bit");
static inline bool is_kept(const void *bp) { return *cb_hdr(bp) & QUICK_KEPT; }
enum { KEPT_FLAGS = CB_ALLOC | CB_PREV_ALLOC | QUICK_KEPT };   /* a kept block's footer (MID_MARK aside) */

/* Is bp, of size bytes, on its quick list?  (At most QUICK_DEPTH looked at.) */
static inline bool on_quick_list(const void *bp, size_t size)
{
    if (few() && cb_size(bp) != size)     /* the one list holds every class */
        return false;
    for (uint32_t off = few() ? st->kept : st->quick[class_of(size)]; off; off = *quick_link(at(off)))
        if (off == off_of(bp))
            return true;
    return false;
}

/* The kept block just below bp, or NULL.  The word below bp's header is a kept
 * block's footer or a live block's payload; either way it can only name a kept
 * block that ends exactly at bp, which is then the block below. */
static inline void *kept_below(void *bp)
{
    cb_word_t w = *(cb_word_t *)((char *)bp - 2 * CB_WSIZE);
    /* A kept block's footer is its header when it was pushed: allocated, kept,
     * and (quick_push demands it) with an allocated block below.  Testing those
     * bits first spares most calls a read of a header elsewhere in the heap. */
    if ((w & KEPT_FLAGS) != KEPT_FLAGS)
        return NULL;
    size_t size = cb_size_of(w);
    if (size < CB_MIN_BLOCK || size >= QUICK_LIMIT || size % CB_ALIGN
        || (size_t)((char *)bp - first_block()) < size)
        return NULL;
    void *below = (char *)bp - size;
    return is_kept(below) && on_quick_list(below, size) ? below : NULL;   /* the bit first: cheap */
}

/* The link that names the first kept block of class c on st->kept. */
static uint32_t *few_first(unsigned c)
{
    uint32_t *link = &st->kept;
    while (*link && class_of(cb_size(at(*link))) != c)
        link = quick_link(at(*link));
    return link;
}

static void few_check(void);

FEW_PATH static bool few_push(void *bp, unsigned c)
{
    unsigned len = 0;
    for (uint32_t off = st->kept; off; off = *quick_link(at(off)))
        len += class_of(cb_size(at(off))) == c;
    if (len >= QUICK_DEPTH)
        return false;
    *cb_hdr(bp) |= QUICK_KEPT;
    *cb_ftr(bp) = *cb_hdr(bp);
    *quick_link(bp) = st->kept;
    st->kept = off_of(bp);
    st->quick_count++;
    few_check();
    return true;
}

/* Keep freed block bp, whose header word is h, if it may be kept.  (h as the
 * caller read it: its stores before may alias the header.) */
static inline bool quick_push(void *bp, cb_word_t h)
{
    size_t size = cb_size_of(h);
    if (size >= QUICK_LIMIT || !(h & CB_PREV_ALLOC))
        return false;
    unsigned c = class_of(size);
    if (few())
        return few_push(bp, c);
    if (st->quick_len[c] >= QUICK_DEPTH)
        return false;
    h |= QUICK_KEPT;
    *cb_hdr(bp) = h;
    *(cb_word_t *)((char *)bp + size - 2 * CB_WSIZE) = h;   /* the footer: so that the block
                                                                above can find it */
    *quick_link(bp) = st->quick[c];
    st->quick[c] = off_of(bp);
    st->quick_len[c]++;
    st->quick_count++;
    return true;
}

/* (`one_list`: few(), as the caller found it: the stores before may alias it.) */
static inline void quick_unkeep(unsigned c, void *bp, bool one_list)
{
    *cb_hdr(bp) &= ~(cb_word_t)QUICK_KEPT;
    if (!one_list)
        st->quick_len[c]--;
    st->quick_count--;
}

FEW_PATH static void *few_pop(size_t asize)
{
    unsigned c = class_of(asize);
    uint32_t *link = few_first(c);
    void *bp = at(*link);
    if (!bp || cb_size(bp) != asize)
        return NULL;
    *link = *quick_link(bp);
    quick_unkeep(c, bp, true);
    stat_add(&stats.reuses, 1);
    return bp;
}

/* (No test of quick_count first: with no kept block every list is empty.) */
/* quick_pop for a heap with the class tables (mm_malloc's inline path, which
 * has sent a heap without them elsewhere).  Each pop counts its reuse itself,
 * so no caller can leave it out. */
static inline void *quick_pop_classed(size_t asize)
{
    if (asize >= QUICK_LIMIT)
        return NULL;
    unsigned c = class_of(asize);
    uint32_t *head = &st->quick[c];
    if (!*head)
        return NULL;
    void *bp = st->base + *head;
    if (!is_exact(c) && cb_size(bp) != asize)   /* at 8-byte alignment a class holds two sizes */
        return NULL;
    *head = *quick_link(bp);
    quick_unkeep(c, bp, false);
    /* its footer, now in a live payload, would pass kept_below's first test
     * for the block above (a third of coalesce's calls looked further) */
    *(cb_word_t *)((char *)bp + asize - 2 * CB_WSIZE) = 0;
    stat_add(&stats.reuses, 1);
    return bp;
}

static inline void *quick_pop(size_t asize)
{
    if (few())
        return asize < QUICK_LIMIT ? few_pop(asize) : NULL;
    return quick_pop_classed(asize);
}

static void free_block(void *bp);

/* Take kept block bp off its list (at most QUICK_DEPTH looked at). */
static void quick_take(void *bp)
{
    unsigned c = class_of(cb_size(bp));
    bool one_list = few();
    uint32_t *link = one_list ? &st->kept : &st->quick[c];
    while (*link != off_of(bp))
        link = quick_link(at(*link));
    *link = *quick_link(bp);
    quick_unkeep(c, bp, one_list);
}

/* Free every kept block for real (they coalesce now), class by class, each
 * list from its head.  (Freeing one may take others off, or add the class
 * tables: hence the search for the next from the start each time.) */
static void quick_flush(void)
{
    for (unsigned c = 0; st->quick_count && c < N_QUICK; c++)
        for (void *bp; (bp = at(few() ? *few_first(c) : st->quick[c]));) {
            quick_take(bp);
            free_block(bp);
        }
}

/* Free kept block bp for real. */
static void quick_release(void *bp)
{
    quick_take(bp);
    free_block(bp);
}

#endif
