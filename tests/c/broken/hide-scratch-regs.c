/* hide-scratch-regs.c - the sizes of 7 blocks, a byte each, kept between calls in
 * every caller-saved register a call's arguments and result leave free (rcx,
 * rdx, r9, r10, r11), tagged in their top byte: the next call reads the first
 * that still holds the tag.  hide-gprs.c used r8 alone; the driver's code between
 * two calls need not touch any of these either.  The child zeroes them all after
 * each call. */
#include <stdint.h>

enum { SLOTS = 7, FIELD_BITS = 8 };

#include "hide-fields.h"
#include "hide-tagged.h"

static inline uint64_t load(void)
{
    uint64_t r[5];
    __asm__ volatile("mov %%rcx, %0\n mov %%rdx, %1\n mov %%r9, %2\n mov %%r10, %3\n mov %%r11, %4"
                     : "=m"(r[0]), "=m"(r[1]), "=m"(r[2]), "=m"(r[3]), "=m"(r[4]));
    return first_tagged(r, 5);
}

static inline void store(uint64_t v)
{
    uint64_t word = tagged(v);
    __asm__ volatile("mov %0, %%rcx\n mov %0, %%rdx\n mov %0, %%r9\n mov %0, %%r10\n mov %0, %%r11"
                     :: "m"(word) : "rcx", "rdx", "r9", "r10", "r11", "memory");
}
