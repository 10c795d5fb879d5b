/* hangs.c - a TRIGGER-byte request never returns. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    while (size == TRIGGER)
        __asm__ volatile("" ::: "memory");
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
