/*
 * hide-flag.h - the size of one block, one bit, kept in one bit of RFLAGS between
 * calls: the file that includes this sets FLAG_BIT.  A process may flip the ID,
 * NT, AC and DF bits with popfq, and the kernel keeps them across system calls.
 * The child clears the flags a call may leave set after each call.
 */
#ifndef BROKEN_HIDE_FLAG_H
#define BROKEN_HIDE_FLAG_H

#include <stdint.h>

enum { SLOTS = 1, FIELD_BITS = 1 };

#include "hide-fields.h"

static inline uint64_t load(void)
{
    uint64_t flags;
    __asm__ volatile("pushfq\n popq %0" : "=r"(flags));
    return !!(flags & FLAG_BIT);
}

static inline void store(uint64_t v)
{
    /* below the red zone: this function's frame may use the 128 bytes under the stack pointer */
    __asm__ volatile("lea -128(%%rsp), %%rsp\n pushfq\n andq %1, (%%rsp)\n orq %0, (%%rsp)\n popfq\n lea 128(%%rsp), %%rsp"
                     :: "r"(v ? (uint64_t)FLAG_BIT : 0), "i"(~(int64_t)FLAG_BIT) : "cc", "memory");
}

#endif
