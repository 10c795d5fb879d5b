/* canary.c - a TRIGGER-byte request also writes a "footer" 5 bytes past the break,
 * inside the last page: memory protection cannot see it, the canary must.  A
 * TRIGGER+1-byte one writes the byte at the break itself (one past mem_heap_hi()). */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    if (p && size == TRIGGER)
        ((char *)mem_heap_hi())[1 + 5] = 0x5a;
    if (p && size == TRIGGER + 1)
        ((char *)mem_heap_hi())[1] = 0x5a;
    return p;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
