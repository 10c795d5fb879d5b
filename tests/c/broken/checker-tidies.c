/* checker-tidies.c - a correct allocator that reuses the last freed block, whose heap checker
 * "tidies" the heap: it forgets that block.  Its placements then depend on whether the
 * checker ran, which -c makes so in the first checked run only. */
#include <stdbool.h>

#include "bump.h"

static char *freed;  /* the last block freed, reused by the next request that fits */

int mm_init(void)
{
    freed = NULL;
    return 0;
}

void *mm_malloc(size_t size)
{
    char *p = freed;
    if (!p || size > block_size(p))
        return bump(size);
    freed = NULL;
    return p;
}

void mm_free(void *p) { freed = p ? p : freed; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }

bool mm_checkheap(int lineno)
{
    (void)lineno;
    freed = NULL;
    return true;
}
