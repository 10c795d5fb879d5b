/*
 * stats.h - the counters behind mm_stats(), shared by the variants.
 *
 * Each variant keeps an mm_stats_t inside its state struct and bumps it through
 * stat_add().  With MM_STATS=0 the test is a compile-time constant, so every
 * call folds away and the fast path carries no counting at all.
 */
#ifndef VARIANTS_STATS_H
#define VARIANTS_STATS_H

#include <stdint.h>
#include <string.h>

#include "mm_stats.h"

#ifndef MM_STATS
#define MM_STATS 1
#endif

/* With MM_STATS=0 nothing is counted, and an mm_stats() handing out those zeros would
 * pass for measurements.  The variant's definition is renamed instead: the driver's
 * weak mm_stats stays unset, so it reports no statistics (JSON has_stats false). */
#if !MM_STATS
#define mm_stats mm_stats_compiled_out
#endif

static inline void stat_add(uint64_t *counter, uint64_t n)
{
    if (MM_STATS)
        *counter += n;
}

static inline void stat_max(uint64_t *counter, uint64_t value)
{
    if (MM_STATS && value > *counter)
        *counter = value;
}

/* Copy the counters out; free_blocks is the live count the caller passes in,
 * since it is a property of the heap now, not a running total. */
static inline void stat_report(mm_stats_t *out, const mm_stats_t *kept, uint64_t free_blocks)
{
    if (!out)
        return;
    *out = *kept;
    out->free_blocks = free_blocks;
}

#endif
