/* overlap-contained.c - a 16-byte request made while a TRIGGER-byte block is live
 * lands 32 bytes inside that block. */
#include "bump.h"

static char *big;

int mm_init(void)
{
    big = NULL;
    return 0;
}

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    if (p && size == TRIGGER)
        big = p;
    return p && size == 16 && big ? big + 32 : p;
}

void mm_free(void *p)
{
    if (p == big)
        big = NULL;
}

void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
