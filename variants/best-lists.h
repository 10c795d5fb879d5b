/*
 * best-lists.h - the size classes and segregated free lists of
 * variants/best.c, and the searches over them.
 *
 * Part of best.c, kept apart to keep each file about one idea: it uses best.c's
 * state (st, its class heads and bitmap) and class constants, and is included
 * by best.c alone, before the quick lists and the small heap's one list
 * (best-few.h), which these functions hand over to while few() holds.
 */
#ifndef VARIANTS_BEST_LISTS_H
#define VARIANTS_BEST_LISTS_H

static inline unsigned class_of(size_t size)
{
    if (size < EXACT_LIMIT)
        return (unsigned)((size - CB_MIN_BLOCK) / CLASS_STEP);
    if (size >= HUGE_FIT)
        return N_CLASSES - 1;
    unsigned lg = 63u - (unsigned)__builtin_clzll((unsigned long long)size);
    return N_EXACT + RANGE_SPLITS * (lg - RANGE_BITS)
           + (unsigned)((size >> (lg - SPLIT_BITS)) & (RANGE_SPLITS - 1));
}

/* An exact class holds blocks of one size: its head fits, no search. */
static inline bool is_exact(unsigned k) { return (int)CLASS_STEP == (int)CB_ALIGN && k < N_EXACT; }

FEW_PATH static void few_insert(void *bp);                       /* best-few.h */
FEW_PATH static void *few_fit(size_t asize, bool lowest, unsigned *kp);

/* The list functions below take `classed`: true where the caller knows the
 * tables exist (a heap never loses them), so that the hot paths of a classed
 * heap test few() once per call of the API, not at every list operation. */
static inline bool one_list(bool classed) { return !classed && few(); }

/* Push bp on the list of class k (its class). */
static inline void list_push_in(void *bp, unsigned k, bool classed)
{
    if (one_list(classed)) {
        few_insert(bp);
        return;
    }
    cb_links_t *n = cb_links(bp);
    uint32_t head = st->head[k];
    n->next = head;
    n->prev = 0;
    if (head)
        cb_links(st->base + head)->prev = off_of(bp);
    else                                /* only an empty list's bit is clear */
        st->map[k / 64] |= (uint64_t)1 << (k % 64);
    st->head[k] = off_of(bp);
}

/* Unlink bp from the list of class k (its class). */
static inline void list_unlink_in(void *bp, unsigned k, bool classed)
{
    cb_links_t *n = cb_links(bp);
    if (n->prev)
        cb_links(at(n->prev))->next = n->next;
    else if (one_list(classed))
        st->one = n->next;
    else if (!(st->head[k] = n->next))
        st->map[k / 64] &= ~((uint64_t)1 << (k % 64));
    if (n->next)
        cb_links(at(n->next))->prev = n->prev;
}

/* Unlink bp from its class's list; its class is worked out only when bp
 * heads the list, the one case that needs it (about half of coalesce's). */
static inline void list_remove_in(void *bp, bool classed)
{
    cb_links_t *n = cb_links(bp);
    if (!n->prev) {
        list_unlink_in(bp, class_of(cb_size(bp)), classed);
        return;
    }
    cb_links(at(n->prev))->next = n->next;
    if (n->next)
        cb_links(at(n->next))->prev = n->prev;
}

static inline void list_push(void *bp, unsigned k) { list_push_in(bp, k, false); }
static inline void list_unlink(void *bp, unsigned k) { list_unlink_in(bp, k, false); }
static inline void list_insert(void *bp) { list_push(bp, class_of(cb_size(bp))); }
static inline void list_remove(void *bp) { list_remove_in(bp, false); }

/* The first non-empty class at or above k, or N_CLASSES. */
static inline unsigned next_class(unsigned k)
{
    unsigned w = k / 64;
    if (N_CLASSES % 64 == 0 && k >= N_CLASSES)      /* past the map (k <= N_CLASSES) */
        return N_CLASSES;
    uint64_t m = st->map[w] & ~(uint64_t)0 << (k % 64);
    while (!m) {
        if (++w == MAP_WORDS)
            return N_CLASSES;
        m = st->map[w];
    }
    return w * 64 + (unsigned)__builtin_ctzll(m);
}

/* How many blocks of one list best_on looks at.  A full heap of runs can
 * leave tens of thousands of equal holes in one range class, and a walk of
 * them all per malloc made filling it quadratic (a 256 MiB heap took 97 s);
 * the suite's lists are shorter, so its placements are those of a full walk. */
enum { BEST_PROBES = 512 };

/* The smallest block of list `head` that holds asize bytes (the first of
 * its size on the list: the newest) among its first BEST_PROBES, or NULL. */
static inline void *best_on(uint32_t head, size_t asize)
{
    void *best = NULL;
    size_t best_size = (size_t)-1;
    unsigned probes = BEST_PROBES;
    for (void *bp = at(head); bp && probes--; bp = at(cb_links(bp)->next)) {
        size_t size = cb_size(bp);
        if (size >= asize && size < best_size) {
            best = bp;
            best_size = size;
            if (size == asize)
                break;
        }
    }
    return best;
}

/* The smallest block of class k that holds asize bytes, or NULL. */
static inline void *best_in(unsigned k, size_t asize) { return best_on(st->head[k], asize); }

/* The lowest block of list `head` that holds asize bytes, if below `low`. */
static inline char *lowest_on(uint32_t head, size_t asize, char *low)
{
    for (char *bp = at(head); bp; bp = at(cb_links(bp)->next))
        if (cb_size(bp) >= asize && (!low || bp < low))
            low = bp;
    return low;
}

/* Address-ordered first fit over every class from k: the lowest block that
 * fits; its class goes to *kp. */
static inline void *lowest_fit_in(unsigned k, size_t asize, unsigned *kp, bool classed)
{
    if (one_list(classed))
        return few_fit(asize, true, kp);
    char *low = NULL;
    for (k = next_class(k); k < N_CLASSES; k = next_class(k + 1))
        for (char *bp = at(st->head[k]); bp; bp = at(cb_links(bp)->next))
            if (cb_size(bp) >= asize && (!low || bp < low))
                low = bp, *kp = k;
    return low;
}

static inline void *lowest_fit(unsigned k, size_t asize, unsigned *kp) { return lowest_fit_in(k, asize, kp, false); }

/* The block to place asize bytes in, or NULL; its class goes to *kp, so that
 * place_in need not work it out again.  (find_fit_in is inlined in the malloc
 * path; the other callers share find_fit.) */
static inline __attribute__((always_inline)) void *find_fit_in(size_t asize, unsigned *kp, bool classed)
{
    if (one_list(classed))
        return few_fit(asize, asize >= HUGE_FIT, kp);
    unsigned k = class_of(asize);
    if (asize >= HUGE_FIT)
        return lowest_fit_in(k, asize, kp, classed);
    if (!is_exact(k)) {           /* a range class may hold smaller blocks too */
        void *bp = best_in(k, asize);
        *kp = k;
        if (bp)
            return bp;
        k++;
    }
    k = next_class(k);
    *kp = k;
    if (k == N_CLASSES)
        return NULL;
    return is_exact(k) ? at(st->head[k]) : best_in(k, asize);
}

static __attribute__((noinline)) void *find_fit(size_t asize)
{
    unsigned k;
    return find_fit_in(asize, &k, false);
}

#endif
