/*
 * shim.h - the real-allocator shim: a variant, unchanged, as the process's malloc.
 *
 * Which file owns what:
 *   region.c   memlib.h over a real mapping: a large PROT_NONE reservation whose
 *              pages are made writable as the break rises (the variant's heap)
 *   block.h    the 16-byte shim header in front of every block handed out
 *   bigmap.c   blocks taken straight from mmap: requests too large for the
 *              region, and anything the variant could not serve
 *   core.c     lazy initialisation, the lock around a variant that is not
 *              thread-safe, and the routing of every call (variant or mmap)
 *   api.c      the exported malloc family and its argument checks
 *   report.c   statistics at exit (MMSHIM_STATS=path appends one JSON line)
 */
#ifndef SHIM_H
#define SHIM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHIM_API __attribute__((visibility("default")))

/* Counters kept only when MMSHIM_STATS is set (one relaxed add each). */
typedef struct shim_counters {
    atomic_ulong mallocs, frees, callocs, reallocs, aligned, big_maps, big_unmaps, fallbacks;
} shim_counters_t;

/* region.c */
size_t region_capacity(void);
size_t region_high_water(void);
bool region_contains(const void *p);
void region_fork_prepare(void);
void region_fork_parent(void);
void region_fork_child(void);

/* bigmap.c: alignment is a power of two >= 16 */
void *big_alloc(size_t size, size_t alignment);
void big_free(void *payload);
void *big_realloc(void *payload, size_t size);

/* core.c: alignment is a power of two >= 16; size may be anything */
void *core_alloc(size_t size, size_t alignment);
void core_free(void *payload);
void *core_realloc(void *payload, size_t size);
size_t core_usable(const void *payload);
extern shim_counters_t shim_count;
extern bool shim_counting;
static inline void shim_tally(atomic_ulong *c)
{
    if (shim_counting)
        atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/* report.c */
void report_at_exit(void);

#endif
