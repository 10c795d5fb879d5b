/* realloc-nocopy.c - mm_realloc hands out a new block and forgets to copy. */
#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }

void *mm_realloc(void *p, size_t size)
{
    if (p && size == 0)
        return NULL;
    return bump(size);
}
