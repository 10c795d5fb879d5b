/* hide-mmx.c - the sizes of 7 blocks, a byte each, kept between calls in every
 * MMX register, tagged in its top byte: the next call reads the first that still
 * holds the tag.  emms and fninit empty the x87 state's tags but leave the
 * registers' bits (mmN is the low 64 bits of x87's RN), and reading an MMX
 * register ignores the tags.  The child zeroes the MMX registers after each call. */
#include <stdint.h>

enum { SLOTS = 7, FIELD_BITS = 8 };

#include "hide-fields.h"
#include "hide-tagged.h"

static inline uint64_t load(void)
{
    uint64_t r[8];
    __asm__ volatile("movq %%mm0, %0\n movq %%mm1, %1\n movq %%mm2, %2\n movq %%mm3, %3\n"
                     "movq %%mm4, %4\n movq %%mm5, %5\n movq %%mm6, %6\n movq %%mm7, %7\n emms"
                     : "=m"(r[0]), "=m"(r[1]), "=m"(r[2]), "=m"(r[3]), "=m"(r[4]), "=m"(r[5]), "=m"(r[6]),
                       "=m"(r[7]));
    return first_tagged(r, 8);
}

static inline void store(uint64_t v)
{
    uint64_t word = tagged(v);
    __asm__ volatile("movq %0, %%mm0\n movq %0, %%mm1\n movq %0, %%mm2\n movq %0, %%mm3\n"
                     "movq %0, %%mm4\n movq %0, %%mm5\n movq %0, %%mm6\n movq %0, %%mm7\n emms"
                     :: "m"(word) : "memory");
}
