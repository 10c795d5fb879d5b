/* past-page.c - a TRIGGER-byte request writes three pages and 100 bytes above the
 * heap's start, well past the break: the write must fault at once. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    if (p && size == TRIGGER)
        ((volatile char *)mem_heap_lo())[3 * mem_pagesize() + 100] = 1;
    return p;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
