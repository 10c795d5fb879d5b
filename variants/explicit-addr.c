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
 * is an O(free blocks) walk to insert each freed block.
 */
enum { LIST_ADDRESS_ORDERED = 1 };
#include "explicit.h"

static void fl_insert(void *bp)
{
    fl_node_t *after = NULL;
    for (fl_node_t *n = st.head[0]; n && (void *)n < bp; n = n->next)
        after = n;
    list_link_after(0, after, bp);
}
