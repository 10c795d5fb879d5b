/*
 * mm_stats.h - the allocator statistics an allocator may report to the driver.
 *
 * The field list is written once, here; the struct, the driver's table and its
 * JSON all expand it, so a counter added here appears everywhere.
 */
#ifndef MM_STATS_H
#define MM_STATS_H

#include <stdint.h>

/* X(name, what it counts) */
#define MM_STATS_FIELDS(X)                                                     \
    X(mallocs, "calls to mm_malloc that returned a block")                     \
    X(frees, "calls to mm_free with a block")                                  \
    X(reallocs, "calls to mm_realloc")                                         \
    X(reallocs_in_place, "reallocs served by the block and its free neighbours, no new block") \
    X(reuses, "requests served from a free block instead of new heap")        \
    X(extensions, "heap extensions (successful mem_sbrk calls)")               \
    X(splits, "free blocks split to serve a smaller request")                  \
    X(coalesces, "merges of neighbouring free blocks")                         \
    X(free_blocks, "free blocks in the heap at the end")                       \
    X(bytes_requested, "payload bytes requested in total")                     \
    X(peak_heap, "largest heap size reached, bytes")

typedef struct mm_stats {
#define MM_STATS_DECLARE(name, what) uint64_t name;
    MM_STATS_FIELDS(MM_STATS_DECLARE)
#undef MM_STATS_DECLARE
} mm_stats_t;

#endif
