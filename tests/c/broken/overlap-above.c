/* overlap-above.c - a TRIGGER-byte request gets a block starting 16 bytes into the
 * previous (highest) block: above every live block's start, overlapping the top one. */
#include "bump.h"

static char *last;

int mm_init(void)
{
    last = NULL;
    return 0;
}

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    if (p && size == TRIGGER && last)
        return last + 16;
    last = p;
    return p;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
