/* hide-fsbase.c - the size of one block, 4 bits, kept between calls in the FS
 * segment's base (wrfsbase), moved whole pages away from the thread pointer:
 * TLS points elsewhere until the next call puts it back, and the driver's code
 * between two calls makes no TLS access.  The child writes back the base it
 * started with after each call. */
#include <stdint.h>

enum { SLOTS = 1, FIELD_BITS = 4 };

#include "hide-fields.h"

static uintptr_t real_base;  /* this process's thread pointer, noted at mm_init */

static inline uint64_t load(void)
{
    uintptr_t base;
    __asm__ volatile("rdfsbase %0" : "=r"(base));
    if (!real_base)
        real_base = base;
    __asm__ volatile("wrfsbase %0" :: "r"(real_base) : "memory");
    return (base - real_base) >> 12 & 15;
}

static inline void store(uint64_t v)
{
    if (!real_base)
        __asm__ volatile("rdfsbase %0" : "=r"(real_base));
    __asm__ volatile("wrfsbase %0" :: "r"(real_base + (v << 12)) : "memory");
}
