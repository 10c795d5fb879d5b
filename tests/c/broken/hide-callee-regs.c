/* hide-callee-regs.c - the sizes of 7 blocks, a byte each, kept between calls in
 * the callee-saved registers rbx and r12-r15, tagged in their top byte: the next
 * call reads the first that still holds the tag.  The calls do not restore them
 * (no clobbers: the compiler neither saves nor restores what it does not know
 * changed), and the serving loop keeps nothing in some of them across a call.
 * The child zeroes them all after each call. */
#include <stdint.h>

enum { SLOTS = 7, FIELD_BITS = 8 };

#include "hide-fields.h"
#include "hide-tagged.h"

static inline uint64_t load(void)
{
    uint64_t r[5];
    __asm__ volatile("mov %%rbx, %0\n mov %%r12, %1\n mov %%r13, %2\n mov %%r14, %3\n mov %%r15, %4"
                     : "=m"(r[0]), "=m"(r[1]), "=m"(r[2]), "=m"(r[3]), "=m"(r[4]));
    return first_tagged(r, 5);
}

static inline void store(uint64_t v)
{
    uint64_t word = tagged(v);
    __asm__ volatile("mov %0, %%rbx\n mov %0, %%r12\n mov %0, %%r13\n mov %0, %%r14\n mov %0, %%r15"
                     :: "m"(word) : "memory");
}
