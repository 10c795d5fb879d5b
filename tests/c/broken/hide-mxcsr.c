/* hide-mxcsr.c - the size of one block, 4 bits, kept in MXCSR between calls: its
 * rounding control, denormals-are-zero and flush-to-zero bits, which a process
 * may set with ldmxcsr, which no integer code reads, and which the kernel keeps
 * across system calls.  The child loads MXCSR's start-up value after each call. */
#include <stdint.h>

enum { SLOTS = 1, FIELD_BITS = 4 };

#include "hide-fields.h"

/* The field's bits, lowest first: rounding control (2 bits), DAZ, FZ. */
static const uint32_t BITS[FIELD_BITS] = {1u << 13, 1u << 14, 1u << 6, 1u << 15};

static inline uint64_t load(void)
{
    uint32_t csr;
    __asm__ volatile("stmxcsr %0" : "=m"(csr));
    uint64_t v = 0;
    for (unsigned i = 0; i < FIELD_BITS; i++)
        v |= (uint64_t)!!(csr & BITS[i]) << i;
    return v;
}

static inline void store(uint64_t v)
{
    uint32_t csr;
    __asm__ volatile("stmxcsr %0" : "=m"(csr));
    for (unsigned i = 0; i < FIELD_BITS; i++)
        csr = v >> i & 1 ? csr | BITS[i] : csr & ~BITS[i];
    __asm__ volatile("ldmxcsr %0" :: "m"(csr));
}
