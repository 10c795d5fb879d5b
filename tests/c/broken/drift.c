/* drift.c - correct in every run, but each mm_init starts its blocks 16 bytes
 * further up than the last (state that mm_init does not reset): the second
 * checked run places the same ops' blocks elsewhere than the first. */
#include "bump.h"

static int inits;

int mm_init(void)
{
    inits++;
    return mem_sbrk(16 * inits) == (void *)-1 ? -1 : 0;
}

void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
