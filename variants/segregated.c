/*
 * segregated.c - segregated free lists, textbook realloc.
 *
 *   free list     one LIFO list per power-of-two size class (seglist.h)
 *   fit           first fit among the first 8 blocks of the request's class,
 *                 else the first block of the next non-empty larger class,
 *                 which a bitmap of the non-empty classes names at once
 *   coalescing    immediate; footers only on free blocks, BLK_PREV_ALLOC in
 *                 each header says whether the block below is free
 *   split         when the rest is at least 32 bytes
 *   realloc       allocate, copy, free
 *   min block     32 bytes (header, two links, footer while free)
 *
 * A search looks at a few blocks of about the right size instead of every free
 * block, and dropping the allocated footer saves 8 bytes a block.
 */
#include "seglist.h"

void *mm_realloc(void *ptr, size_t size) { return realloc_copy(ptr, size); }
