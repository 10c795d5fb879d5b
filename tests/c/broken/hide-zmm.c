/* hide-zmm.c - the sizes of 8 blocks, a byte each, kept in AVX-512's xmm16 (the
 * low lane of zmm16) between calls: one of the 16 vector registers vzeroall does
 * not reach, which no code of the driver's uses.  The child zeroes zmm16-31
 * after each call where the processor has them. */
#include <stdint.h>

enum { SLOTS = 8, FIELD_BITS = 8 };

#include "hide-fields.h"

static inline uint64_t load(void)
{
    uint64_t v;
    __asm__ volatile("vmovq %%xmm16, %0" : "=r"(v));
    return v;
}

/* No clobber: built without -mavx512f, the compiler neither knows xmm16 nor uses it. */
static inline void store(uint64_t v) { __asm__ volatile("vmovq %0, %%xmm16" :: "r"(v)); }
