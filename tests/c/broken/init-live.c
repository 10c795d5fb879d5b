/* init-live.c - the starter bump allocator (bump.h) that calls mem_init, the
 * driver's call, when it frees a block of TRIGGER bytes, though other blocks are
 * still live: the heap starts over empty under them. */
#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }

void mm_free(void *p)
{
    if (p && block_size(p) == TRIGGER)
        mem_init();
}

void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
