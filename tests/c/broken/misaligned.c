/* misaligned.c - a TRIGGER-byte request gets a pointer 8 bytes off the alignment. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    char *p = bump(size + HDR);
    return p && size == TRIGGER ? p + 8 : p;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
