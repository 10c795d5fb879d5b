/* stack-deep.c - honest (bump.h), but a request of TRIGGER bytes first writes to a
 * 4 MiB local array: the stack is storage no check sees (a table of placements
 * memorized in a checked run, headers kept out of the heap), so the trace's
 * process gets much less of it than 8 MiB. */
#include "bump.h"

static __attribute__((noinline)) void use_stack(size_t n)
{
    volatile char big[n];
    big[0] = big[n - 1] = 1;
}

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER)
        use_stack((size_t)4 << 20);
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
