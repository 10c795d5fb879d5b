/*
 * implicit-worst.c - implicit free list, worst fit.
 *
 *   free list     none: the search walks every block (implicit.h)
 *   fit           worst fit: the largest free block, if it fits
 *   coalescing    immediate, with boundary tags on every block
 *   split         when the rest is at least 16 bytes
 *   realloc       allocate, copy, free
 *   min block     16 bytes
 *
 * Worst fit's idea is that the leftover of a big block stays useful.  In practice
 * it breaks up the large blocks that large requests need, so it is the policy
 * the textbooks show losing.
 */
#include "implicit.h"

static void *find_fit(size_t asize)
{
    char *worst = NULL;
    size_t worst_size = 0;
    for (char *bp = first_block(); !is_epilogue(bp); bp = blk_next(bp)) {
        if (fits(bp, asize) && blk_size(bp) > worst_size) {
            worst = bp;
            worst_size = blk_size(bp);
        }
    }
    return worst;
}
