/* overlap-below.c - a TRIGGER-byte request gets the heap's first byte: below every
 * live block, overlapping the lowest one's first bytes but not containing it
 * when that block is larger.  The classic driver skipped the check when no live
 * block started below the new one. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    return p && size == TRIGGER ? mem_heap_lo() : p;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
