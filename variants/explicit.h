/*
 * explicit.h - one explicit, doubly linked free list threaded through the free
 * blocks' payloads, searched first fit.  The three explicit-* variants are this
 * file plus their insertion policy, fl_insert(), and LIST_ADDRESS_ORDERED.
 *
 *   free block:  | hdr | next | prev | ... | ftr |
 */
#ifndef VARIANTS_EXPLICIT_H
#define VARIANTS_EXPLICIT_H

enum {
    CORE_MIN_BLOCK = 32,     /* header, two links, footer */
    CORE_ALLOC_FOOTER = 1,   /* textbook boundary tags on every block */
};

#include "tags-core.h"

/* Leaving the list, a block leaves its predecessor as the hint: the block that
 * replaces it (the rest of a split, a merge of it) belongs right after it. */
static void fl_remove(void *bp)
{
    core->hint = ((fl_node_t *)bp)->prev;
    list_unlink(0, bp);
}

/* First fit along the list: its order is the insertion policy's. */
static void *find_fit(size_t asize)
{
    for (fl_node_t *n = core->head[0]; n; n = n->next)
        if (blk_size(n) >= asize)
            return n;
    return NULL;
}

static bool fl_check(int lineno, size_t *listed)
{
    *listed = 0;
    if (!list_check(lineno, 0, NULL, listed))
        return false;
    if (LIST_ADDRESS_ORDERED)
        for (fl_node_t *n = core->head[0]; n && n->next; n = n->next)
            if (n->next <= n)
                return check_fail(lineno, "I7", n, "address-ordered list out of order");
    return true;
}

void *mm_realloc(void *ptr, size_t size) { return realloc_copy(ptr, size); }

#endif
