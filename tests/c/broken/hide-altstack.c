/* hide-altstack.c - red team: the sizes of 8 blocks, 4 bits each, kept in the
 * address of the signal stack the kernel holds for the process, which it does not
 * check until a signal comes.  The driver sets that stack before the allocator's
 * first call; the sandbox allowed sigaltstack, and now allows only reading it. */
#include <signal.h>
#include <stdint.h>

enum { SLOTS = 8, FIELD_BITS = 4 };

#include "hide-fields.h"

enum { STACK_BYTES = 1 << 16 };

static inline uint64_t load(void)
{
    stack_t now = {0};
    sigaltstack(NULL, &now);
    return (uint64_t)(uintptr_t)now.ss_sp;
}

static inline void store(uint64_t v)
{
    stack_t ss = {.ss_sp = (void *)(uintptr_t)v, .ss_size = STACK_BYTES};
    sigaltstack(&ss, NULL);
}
