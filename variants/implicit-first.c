/*
 * implicit-first.c - implicit free list, first fit.
 *
 *   free list     none: the search walks every block (implicit.h)
 *   fit           first fit from the start of the heap
 *   coalescing    immediate, with boundary tags on every block
 *   split         when the rest is at least 16 bytes (the minimum block)
 *   realloc       allocate, copy, free
 *   min block     16 bytes (8-byte header + 8-byte footer)
 *
 * First fit leaves small splinters near the start of the heap, which every later
 * search must walk past: simple, fairly good utilization, slow on big heaps.
 */
#include "implicit.h"

static void *find_fit(size_t asize)
{
    for (char *bp = first_block(); !is_epilogue(bp); bp = blk_next(bp))
        if (fits(bp, asize))
            return bp;
    return NULL;
}
