/* replay-heap.c - rt_replay.c's trick (replay.h) with the table past the break,
 * 8 MiB above the heap's start: fast mode leaves the whole heap range writable. */
#include "replay.h"

enum { TABLE_AT = 8 << 20 };

static inline uint32_t *table(void) { return (uint32_t *)((char *)mem_heap_lo() + TABLE_AT); }
