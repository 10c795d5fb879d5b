/* hide-ymm-upper.c - the sizes of 8 blocks, a byte each, kept between calls in
 * the upper half of AVX's ymm15: SSE code, which zeroes or writes xmm15, leaves
 * those 128 bits as they were.  The child zeroes all of ymm0-15 (vzeroall) after
 * each call where the processor has AVX. */
#include <stdint.h>

enum { SLOTS = 8, FIELD_BITS = 8 };

#include "hide-fields.h"

static inline uint64_t load(void)
{
    uint64_t v;
    __asm__ volatile("vextractf128 $1, %%ymm15, %%xmm15\n vmovq %%xmm15, %0" : "=r"(v) :: "xmm15");
    return v;
}

static inline void store(uint64_t v)
{
    __asm__ volatile("vmovq %0, %%xmm15\n vinsertf128 $1, %%xmm15, %%ymm15, %%ymm15" :: "r"(v) : "xmm15");
}
