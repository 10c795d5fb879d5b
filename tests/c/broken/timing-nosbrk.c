/* timing-nosbrk.c - honest (bump.h) in the checked runs; in the timed runs (the
 * third mm_init on) it places every block exactly where the checked runs did but
 * never calls mem_sbrk, whose pages a timed run leaves writable: the same
 * placements, but the blocks lie past the break. */
#include "bump.h"

static int inits;
static size_t used;

int mm_init(void)
{
    inits++;
    used = 0;
    return 0;
}

void *mm_malloc(size_t size)
{
    if (inits < 3)
        return bump(size);
    char *b = (char *)mem_heap_lo() + used;
    used += HDR + align_up(size);
    *(size_t *)b = size;
    return b + HDR;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
