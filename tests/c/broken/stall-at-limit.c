/* stall-at-limit.c - a TRIGGER-byte request it cannot serve spins until the run's time limit
 * (limits.wall_clock, the driver's --run-limit) instead of failing as segv.c does.
 *
 * A trace that fails counts 0 in the run's utilization and throughput; a trace the stopped run
 * never finished was left out of both, so under `all_or_nothing = false` the same defect, stalled
 * on instead of crashed on, scored 44.1 of 55 rather than 33.9 (U 0.81 instead of 0.54), until
 * 2026-11-25: the grader now counts an unfinished trace as the driver counts a failed one. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    while (size == TRIGGER)     /* here segv.c writes through a wild pointer */
        __asm__ volatile("" ::: "memory");
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
