/* realloc0-overlap.c - mm_realloc(p, 0) frees p and returns, instead of NULL, the
 * last block mm_malloc handed out, which is still live. */
#include "bump.h"

static char *last;

int mm_init(void)
{
    last = NULL;
    return 0;
}

void *mm_malloc(size_t size) { return last = bump(size); }
void mm_free(void *p) { (void)p; }

void *mm_realloc(void *p, size_t size) { return p && !size ? last : copy_realloc(p, size); }
