/* canary-far.c - a TRIGGER-byte request also writes a byte 1000 bytes past the break,
 * still inside the last page but beyond the few bytes checked after every op:
 * the canary must catch it when the heap grows over it, or at the end. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    if (p && size == TRIGGER)
        ((char *)mem_heap_hi())[1 + 1000] = 0x5a;
    return p;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
