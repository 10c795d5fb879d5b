/*
 * check.h - the correctness pass: replay a trace and check every result.
 *
 * Every returned block must be aligned, lie inside the heap and share no byte
 * with a live block; every live payload carries the fill pattern of fill.h and
 * is verified when it is freed or reallocated and at the end; NULL is a failure
 * unless the request was for 0 bytes; nothing may be written past the break.
 */
#ifndef DRIVER_CHECK_H
#define DRIVER_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "driver/outcome.h"
#include "driver/progress.h"
#include "driver/trace.h"

/* Where each op's block landed, as an offset from the heap's low end.  The first
 * correctness run records them; the second and every timed run must repeat them,
 * since the same calls from mm_init on the same heap give the same blocks (a block
 * that realloc(p, 0) returns is freed at once in every run). */
typedef struct {
    uint32_t *offset;   /* one per op; a free's is unused */
    bool with_checker;  /* the first run called mm_checkheap after every op (-c); the others do not */
} placements_t;

/* An array of n offsets, outside libc's heap like every per-trace array of the
 * driver (driver/pages.h).  NULL when out of memory. */
uint32_t *placements_array(size_t n);
void placements_array_free(uint32_t *a, size_t n);

/* NULL's placement, no block's: a heap is at most HEAP_LIMIT (4 GiB) and this is
 * no aligned offset.  As p - lo, NULL's was 0 (lo is 4 GiB-aligned), the offset of
 * a block at the heap's start, and a timed run could return NULL for it unseen. */
enum { PLACEMENT_NULL = UINT32_MAX };

/* The offset of p from the heap's low end lo, the same every run. */
static inline uint32_t placement(const void *p, uintptr_t lo)
{
    return p ? (uint32_t)((uintptr_t)p - lo) : PLACEMENT_NULL;
}

typedef struct remote remote_t;

/* The first checked run, from mm_init, the allocator called in the child rc one
 * op at a time; false with *v filled on the first problem (OUTCOME_CRASHED: the
 * child is gone).  Records *pl, which every later run must repeat (the second
 * checked run and the timed ones: measure.h).  *high_water: the highest break the
 * run reached, bytes above the heap's low end. */
bool check_pass(remote_t *rc, const trace_t *t, bool run_checker, placements_t *pl, size_t *high_water, verdict_t *v);
#endif
