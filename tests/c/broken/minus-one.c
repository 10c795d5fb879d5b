/* minus-one.c - a TRIGGER-byte request returns (void *)-1, mem_sbrk's failure value passed
 * on as mm_malloc's (a student's "if (bp == (void *)-1) return bp;"). */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER)
        return (void *)-1;
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
