/* zero-overlap.c - mm_malloc(0) returns the block handed out last, which is still
 * live: a 0-byte block is a unique pointer (mm.h), one byte as far as overlap goes. */
#include "bump.h"

static char *last;

int mm_init(void)
{
    last = NULL;
    return 0;
}

void *mm_malloc(size_t size)
{
    if (size == 0 && last)
        return last;
    return last = bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
