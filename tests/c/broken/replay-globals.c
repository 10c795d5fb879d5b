/* replay-globals.c - the replaying allocator of replay.h with its table in its own
 * .bss, where no scrub of the heap or the stack reaches. */
#include "replay.h"

static uint32_t *table(void)
{
    static uint32_t globals_table[1 << 12];
    return globals_table;
}
