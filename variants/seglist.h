/*
 * seglist.h - segregated free lists: one LIFO list per power-of-two size class,
 * and no footer on allocated blocks (the block above keeps BLK_PREV_ALLOC, so a
 * footer is needed only while a block is free).  segregated.c and
 * segregated-realloc.c are this file plus their realloc; ts-lock.c adds best
 * fit and a lock.  A search looks at no more than CLASS_PROBES blocks of the
 * request's own class; a bitmap of the non-empty classes finds the next larger
 * one in a single instruction instead of a walk over the empty ones (about 8%
 * of segregated-realloc's time on the suite).
 *
 *   class k holds free blocks of [32 << k, 64 << k) bytes; the last class holds
 *   everything larger.  Sizes are size_t throughout: 64-bit clean.
 */
#ifndef VARIANTS_SEGLIST_H
#define VARIANTS_SEGLIST_H

enum {
    CORE_MIN_BLOCK = 32,     /* header, two links, footer while free */
    CORE_ALLOC_FOOTER = 0,   /* allocated blocks carry only a header */
};

#include "tags-core.h"

/* The class of a block of `size` bytes (size >= CORE_MIN_BLOCK). */
static unsigned class_of(size_t size)
{
    unsigned k = (unsigned)(63 - __builtin_clzll((unsigned long long)size)) - 5;
    return k < CORE_CLASSES ? k : CORE_CLASSES - 1;
}

_Static_assert(CORE_CLASSES <= 32, "core->nonempty has one bit per class");

static void fl_insert(void *bp)
{
    unsigned k = class_of(blk_size(bp));
    list_link_after(k, NULL, bp);
    core->nonempty |= 1u << k;
}

static void fl_remove(void *bp)
{
    unsigned k = class_of(blk_size(bp));
    list_unlink(k, bp);
    if (!core->head[k])
        core->nonempty &= ~(1u << k);
}

/* The non-empty classes from class k up, as a bitmap. */
static inline uint32_t classes_from(unsigned k)
{
    return core->nonempty & ~((1u << k) - 1);
}

/* Blocks of the request's own class looked at before moving up a class: its
 * blocks may all be too small (binary2's holes are), and an unbounded walk
 * over them is the linear search segregation is meant to remove. */
enum { CLASS_PROBES = 8 };

/* A variant with its own fit policy (ts-lock: best fit) defines SEGLIST_OWN_FIT
 * and find_fit(); the others get this bounded first fit. */
#ifndef SEGLIST_OWN_FIT

/* First fit among the first CLASS_PROBES blocks of the request's own class;
 * any block of a larger class fits, so then take the first one found. */
static void *find_fit(size_t asize)
{
    unsigned k = class_of(asize), probes = 0;
    for (fl_node_t *n = core->head[k]; n && probes < CLASS_PROBES; n = n->next, probes++)
        if (blk_size(n) >= asize)
            return n;
    uint32_t larger = classes_from(k + 1);
    return larger ? core->head[__builtin_ctz(larger)] : NULL;
}

#endif

static bool fl_check(int lineno, size_t *listed)
{
    *listed = 0;
    for (unsigned k = 0; k < CORE_CLASSES; k++) {
        if (!list_check(lineno, k, class_of, listed))
            return false;
        if (!(core->nonempty >> k & 1) != !core->head[k])
            return check_fail(lineno, "I7", core->head[k], "class bitmap disagrees with the class's list");
    }
    if (core->nonempty >> (CORE_CLASSES - 1) >> 1)
        return check_fail(lineno, "I7", core->heap, "class bitmap has bits past the last class");
    return true;
}

#endif
