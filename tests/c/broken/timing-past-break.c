/* timing-past-break.c - honest (bump.h), except that from its third mm_init on
 * (the timed runs) it writes far past the break without calling mem_sbrk: two
 * bytes 1 MiB and 1 MiB + 40 KiB above the heap's start, the place a speed-only
 * table could live, since a timed run's heap is writable to its maximum. */
#include "bump.h"

static int inits;

int mm_init(void)
{
    if (++inits >= 3) {
        char *far = (char *)mem_heap_lo() + (1 << 20);
        far[0] = 1;
        far[40 << 10] = 2;
    }
    return 0;
}

void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
