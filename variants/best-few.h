/*
 * best-few.h - a small heap's state in variants/best.c: one free list and one
 * kept list until the heap outgrows them, then the class tables.
 *
 * Part of best.c, kept apart to keep each file about one idea: it uses best.c's
 * state (st, FEW_* and CLASSED: see best-state.h), its list searches and the
 * quick lists' links, and is included by best.c alone, after best-quick.h.
 * While few() holds, st->one lists every free block and st->kept every kept
 * one; the searches of the one list give the block the classes would, so the
 * placements are the same in both modes, and a small heap saves the tables'
 * bytes (436 of its 480).
 */
#ifndef VARIANTS_BEST_FEW_H
#define VARIANTS_BEST_FEW_H

/* find_fit_in and lowest_fit on the one list of a heap without classes:
 * best fit over all free blocks (or the lowest that fits) is the block the
 * classes give.  The block's class goes to *kp. */
FEW_PATH static void *few_fit(size_t asize, bool lowest, unsigned *kp)
{
    void *bp = lowest ? lowest_on(st->one, asize, NULL) : best_on(st->one, asize);
    if (bp)
        *kp = class_of(cb_size(bp));
    return bp;
}

/* The heap has outgrown one list: add the class tables at the state's end and
 * deal the free and the kept blocks out to them, the oldest first, so that
 * each class lists its blocks in the order the one list had them.  Without
 * room for the tables it stays as it is: correct, only slower. */
FEW_PATH static void add_classes(void)
{
    if (mem_sbrk((intptr_t)(sizeof *st - FEW_BYTES)) == (void *)-1)
        return;
    stat_max(&stats.peak_heap, mem_heapsize());
    uint32_t one = st->one, kept = st->kept;
    memset((char *)st + TABLES, 0, sizeof *st - TABLES);    /* the tables overlay kept */
    st->one = CLASSED;
    void *bp = at(one);
    while (bp && cb_links(bp)->next)
        bp = at(cb_links(bp)->next);
    while (bp) {                          /* from the tail: the oldest */
        void *newer = at(cb_links(bp)->prev);
        list_insert(bp);
        bp = newer;
    }
    uint32_t oldest = 0;                  /* reverse the kept list ... */
    while (kept) {
        uint32_t next = *quick_link(at(kept));
        *quick_link(at(kept)) = oldest;
        oldest = kept;
        kept = next;
    }
    while (oldest) {                      /* ... and push each on its class's list */
        bp = at(oldest);
        uint32_t next = *quick_link(bp);
        unsigned c = class_of(cb_size(bp));
        *quick_link(bp) = st->quick[c];
        st->quick[c] = oldest;
        st->quick_len[c]++;
        oldest = next;
    }
}

/* Called after a block joins the one lists. */
static inline void few_check(void)
{
    if (st->free_count + st->quick_count > FEW_MAX)
        add_classes();
}

FEW_PATH static void few_insert(void *bp)
{
    cb_links_t *n = cb_links(bp);
    n->next = st->one;
    n->prev = 0;
    if (st->one)
        cb_links(at(st->one))->prev = off_of(bp);
    st->one = off_of(bp);
    few_check();
}

#endif
