/* past-break.c - a TRIGGER-byte request gets a block that starts a page past the break. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    return p && size == TRIGGER ? (char *)mem_heap_hi() + 1 + 4096 : p;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
