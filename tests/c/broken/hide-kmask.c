/* hide-kmask.c - the sizes of 7 blocks, a byte each, kept between calls in every
 * AVX-512 mask register k1-k7 (hide-k0.c keeps them in k0), tagged in the top
 * byte: the next call reads the first that still holds the tag.  The child
 * zeroes k0-k7 after each call. */
#include <stdint.h>

enum { SLOTS = 7, FIELD_BITS = 8 };

#include "hide-fields.h"
#include "hide-tagged.h"

static inline uint64_t load(void)
{
    uint64_t r[7];
    __asm__ volatile("kmovq %%k1, %0\n kmovq %%k2, %1\n kmovq %%k3, %2\n kmovq %%k4, %3\n"
                     "kmovq %%k5, %4\n kmovq %%k6, %5\n kmovq %%k7, %6"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]));
    return first_tagged(r, 7);
}

static inline void store(uint64_t v)
{
    uint64_t word = tagged(v);
    __asm__ volatile("kmovq %0, %%k1\n kmovq %0, %%k2\n kmovq %0, %%k3\n kmovq %0, %%k4\n"
                     "kmovq %0, %%k5\n kmovq %0, %%k6\n kmovq %0, %%k7" :: "r"(word));
}
