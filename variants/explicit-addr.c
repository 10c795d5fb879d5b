/*
 * explicit-addr.c - explicit free list in address order.
 *
 *   free list     one doubly linked list (explicit.h), kept sorted by address
 *   fit           first fit along the list, so the lowest-addressed block that fits
 *   coalescing    immediate, with boundary tags on every block
 *   split         when the rest is at least 32 bytes
 *   realloc       allocate, copy, free
 *   min block     32 bytes (header, two links, footer)
 *
 * Address-ordered first fit behaves close to best fit in utilization; the price
 * is an O(free blocks) walk to insert a freed block that merges with nothing
 * (a split's rest and a merged block go where the old block was, in O(1)).
 */
enum { LIST_ADDRESS_ORDERED = 1 };
#include "explicit.h"

/* The hint (a node on the list, or NULL for the head) is the right place when
 * bp replaces a block just taken off, as in a split or a merge; otherwise walk
 * from the head. */
static void fl_insert(void *bp)
{
    fl_node_t *after = core->hint, *next = after ? after->next : core->head[0];
    if ((after && (void *)after > bp) || (next && (void *)next < bp)) {
        after = NULL;
        for (fl_node_t *n = core->head[0]; n && (void *)n < bp; n = n->next)
            after = n;
    }
    list_link_after(0, after, bp);
    core->hint = bp;
}
