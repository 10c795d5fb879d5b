/* stats-crash.c - a correct allocator whose optional mm_stats hook faults. */
#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }

void mm_stats(mm_stats_t *out)
{
    (void)out;
    *(volatile int *)16 = 1;
}
