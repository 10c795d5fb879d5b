/*
 * implicit-best.c - implicit free list, best fit.
 *
 *   free list     none: the search walks every block (implicit.h)
 *   fit           best fit: the smallest free block that fits (an exact fit ends
 *                 the search early)
 *   coalescing    immediate, with boundary tags on every block
 *   split         when the rest is at least 16 bytes
 *   realloc       allocate, copy, free
 *   min block     16 bytes
 *
 * Best fit keeps large free blocks whole for large requests; it always walks the
 * whole heap unless it meets an exact fit.
 */
#include "implicit.h"

static void *find_fit(size_t asize)
{
    char *best = NULL;
    size_t best_size = (size_t)-1;
    for (char *bp = first_block(); !is_epilogue(bp); bp = blk_next(bp)) {
        if (!fits(bp, asize) || blk_size(bp) >= best_size)
            continue;
        best = bp;
        best_size = blk_size(bp);
        if (best_size == asize)
            break;
    }
    return best;
}
