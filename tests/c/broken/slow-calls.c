/* slow-calls.c - honest (bump.h), but every call takes at least 40 us, longer
 * than the parent spins for an answer when its child runs on another CPU
 * (cpus.h): every spin runs out, and the child is brought to the parent's CPU. */
#include <time.h>

#include "bump.h"

enum { CALL_NS = 40000 };

static void linger(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < CALL_NS);
}

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { linger(); return bump(size); }
void mm_free(void *p) { linger(); (void)p; }
void *mm_realloc(void *p, size_t size) { linger(); return copy_realloc(p, size); }
