/* hide-k0.c - red team: the sizes of 8 blocks, a byte each, kept in AVX-512's
 * mask register k0 between calls.  k0 is no predicate, but a process may write it
 * and read it back, and the child cleared only k1-k7.  It now clears k0 too. */
#include <stdint.h>

enum { SLOTS = 8, FIELD_BITS = 8 };

#include "hide-fields.h"

static inline uint64_t load(void) { uint64_t v; __asm__ volatile("kmovq %%k0, %0" : "=r"(v)); return v; }
static inline void store(uint64_t v) { __asm__ volatile("kmovq %0, %%k0" :: "r"(v)); }
