/* past-one.c - a TRIGGER-byte request grows the heap by one byte too few: its
 * block ends one byte past the break, the smallest overrun there is. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size != TRIGGER)
        return bump(size);
    char *b = mem_sbrk((intptr_t)(HDR + size - 1));
    return b == (void *)-1 ? NULL : b + HDR;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
