/*
 * implicit-next.c - implicit free list, next fit.
 *
 *   free list     none: the search walks every block (implicit.h)
 *   fit           next fit: resume where the last search stopped (the rover),
 *                 wrap around to the start once
 *   coalescing    immediate, with boundary tags; a merge that swallows the
 *                 rover's block moves the rover to the merged block
 *   split         when the rest is at least 16 bytes
 *   realloc       allocate, copy, free
 *   min block     16 bytes
 *
 * Next fit avoids re-walking the splinters at the front, so it searches less,
 * but it spreads allocations over the whole heap and fragments more.
 */
#include "implicit.h"

static void *find_fit(size_t asize)
{
    for (char *bp = core->rover; !is_epilogue(bp); bp = blk_next(bp))
        if (fits(bp, asize))
            return bp;
    for (char *bp = first_block(); bp < core->rover; bp = blk_next(bp))
        if (fits(bp, asize))
            return bp;
    return NULL;
}
