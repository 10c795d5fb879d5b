/*
 * explicit-fifo.c - explicit free list, FIFO.
 *
 *   free list     one doubly linked list (explicit.h); a freed block goes to the back
 *   fit           first fit along the list
 *   coalescing    immediate, with boundary tags on every block
 *   split         when the rest is at least 32 bytes
 *   realloc       allocate, copy, free
 *   min block     32 bytes (header, two links, footer)
 *
 * The oldest free blocks are tried first, so a freed block rests a while before
 * reuse, giving its neighbours time to be freed and coalesce with it.
 */
enum { LIST_ADDRESS_ORDERED = 0 };
#define CORE_LIST_TAILS 1   /* fl_insert appends at the tail */
#include "explicit.h"

static void fl_insert(void *bp) { list_link_after(0, core->tail[0], bp); }
