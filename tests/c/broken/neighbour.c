/* neighbour.c - a TRIGGER-byte request writes its header one byte too low,
 * flipping the last payload byte of the block just below it. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    if (p && size == TRIGGER && p - HDR > (char *)mem_heap_lo())
        p[-HDR - 1] ^= 0xff;
    return p;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
