/* overlap-contains.c - a TRIGGER-byte request gets a block that starts at the
 * previous block's header, so it strictly contains that (smaller) block while
 * the blocks below stay untouched.  The classic driver only asked whether the
 * new block's two ends fell inside an old block, and this passed. */
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
        return last - HDR;
    last = p;
    return p;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
