/* hide-flags.c - red team: the size of one block, one bit, kept in RFLAGS's ID
 * bit between calls.  A process may flip it (it tells the CPUID instruction is
 * there), the kernel keeps it across system calls, and no code of the driver's
 * reads or writes it.  The child now clears the flags a call may leave set after
 * each call. */
#include <stdint.h>

enum { SLOTS = 1, FIELD_BITS = 1 };

#include "hide-fields.h"

enum { FLAG_ID = 1 << 21 };

static inline uint64_t load(void)
{
    uint64_t flags;
    __asm__ volatile("pushfq\n popq %0" : "=r"(flags));
    return !!(flags & FLAG_ID);
}

static inline void store(uint64_t v)
{
    /* below the red zone: this function's frame may use the 128 bytes under the stack pointer */
    __asm__ volatile("lea -128(%%rsp), %%rsp\n pushfq\n andq %1, (%%rsp)\n orq %0, (%%rsp)\n popfq\n lea 128(%%rsp), %%rsp"
                     :: "r"(v ? (uint64_t)FLAG_ID : 0), "i"(~(int64_t)FLAG_ID) : "cc", "memory");
}
