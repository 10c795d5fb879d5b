/*
 * explicit-lifo.c - explicit free list, LIFO.
 *
 *   free list     one doubly linked list (explicit.h); a freed block goes to the front
 *   fit           first fit along the list
 *   coalescing    immediate, with boundary tags on every block
 *   split         when the rest is at least 32 bytes (the minimum block)
 *   realloc       allocate, copy, free
 *   min block     32 bytes (header, two links, footer)
 *
 * Insert and remove are O(1) and a search only visits free blocks.  The block
 * just freed is the first one tried, which is cache-friendly but, studies find,
 * fragments more than address order.
 */
enum { LIST_ADDRESS_ORDERED = 0 };
#include "explicit.h"

static void fl_insert(void *bp) { list_link_after(0, NULL, bp); }
