/* util-cheat.c - honest in the two correctness runs; from the third mm_init on
 * (once an unchecked utilization pass, now the first timed run) it serves blocks
 * from a static array outside the simulated heap, so the heap barely grows. */
#include "bump.h"

enum { STASH = 1 << 20 };

static char stash[STASH] __attribute__((aligned(64)));
static size_t used;
static int inits;

int mm_init(void)
{
    inits++;
    used = 0;
    /* A token of heap, so that the heap is not empty */
    return inits < 3 || mem_sbrk(HDR) != (void *)-1 ? 0 : -1;
}

void *mm_malloc(size_t size)
{
    if (inits < 3 || used + HDR + align_up(size) > STASH)
        return bump(size);
    char *b = stash + used;
    used += HDR + align_up(size);
    *(size_t *)b = size;
    return b + HDR;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
