/* realloc-stale.c - mm_realloc to TRIGGER bytes hands back, uncopied, the first
 * freed block large enough for it: what that block still holds is the payload an
 * earlier block of the same id left there, not the one being reallocated. */
#include "bump.h"

static char *spare;

int mm_init(void)
{
    spare = NULL;
    return 0;
}

void *mm_malloc(size_t size) { return bump(size); }

void mm_free(void *p)
{
    if (p && !spare && block_size(p) >= TRIGGER)
        spare = p;
}

void *mm_realloc(void *p, size_t size)
{
    if (!p || size != TRIGGER || !spare)
        return copy_realloc(p, size);
    char *q = spare;
    spare = NULL;
    return q;
}
