/* hide-gprs.c - red team: the sizes of 8 blocks, a byte each, kept in register r8
 * between calls.  r8 is caller-saved, so the allocator may leave anything in it,
 * and the driver's code between two calls (the channel, memlib) left it alone on
 * gcc 12 (r9 too; the others were overwritten or are the caller's to keep).  No
 * header: the sizes are nowhere else.  The child now zeroes every register a
 * call may leave changed after each call. */
#include <stdint.h>

enum { SLOTS = 8, FIELD_BITS = 8 };

#include "hide-fields.h"

static inline uint64_t load(void) { uint64_t v; __asm__ volatile("mov %%r8, %0" : "=r"(v)); return v; }
static inline void store(uint64_t v) { __asm__ volatile("mov %0, %%r8" :: "r"(v) : "r8"); }
