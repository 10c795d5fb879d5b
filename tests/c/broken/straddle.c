/* straddle.c - a TRIGGER-byte request gets a block that starts 64 bytes below the
 * break, so all but its first 64 bytes lie past it. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    return p && size == TRIGGER ? (char *)mem_heap_hi() + 1 - 64 : p;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
