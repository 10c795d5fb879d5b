/*
 * segregated-realloc.c - segregated free lists with realloc in place.
 *
 *   free list     one LIFO list per power-of-two size class (seglist.h)
 *   fit           first fit among the first 8 blocks of the request's class,
 *                 else the first block of the next non-empty larger class,
 *                 which a bitmap of the non-empty classes names at once
 *   coalescing    immediate; footers only on free blocks
 *   split         when the rest is at least 32 bytes
 *   realloc       the ladder in tags-core.h: shrink in place (the tail goes back
 *                 as a free block), absorb a free block above, grow the heap
 *                 when the block is at its top, else allocate, copy, free
 *   min block     32 bytes
 *
 * A buffer that grows step by step stays put: no copy, and no hole left behind
 * each time, which is what sinks the realloc traces' utilization otherwise.
 */
#include "seglist.h"

void *mm_realloc(void *ptr, size_t size) { return realloc_in_place(ptr, size); }
