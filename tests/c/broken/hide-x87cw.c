/* hide-x87cw.c - the size of one block, 4 bits, kept in the x87 control word
 * between calls: its precision and rounding control, which fldcw sets, which
 * only x87 arithmetic reads, and which the kernel keeps across system calls.
 * The child resets the x87 state (fninit) after each call. */
#include <stdint.h>

enum { SLOTS = 1, FIELD_BITS = 4 };

#include "hide-fields.h"

/* precision (bits 8-9), rounding (10-11); coded against fninit's (extended, to
 * nearest) so that a reset reads as 0 */
enum { CONTROL_SHIFT = 8, CONTROL_MASK = 0xF << CONTROL_SHIFT, AT_RESET = 0x3 };

static inline uint64_t load(void)
{
    uint16_t cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    return ((uint64_t)(cw & CONTROL_MASK) >> CONTROL_SHIFT) ^ AT_RESET;
}

static inline void store(uint64_t v)
{
    uint16_t cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    cw = (uint16_t)((cw & ~CONTROL_MASK) | ((v ^ AT_RESET) << CONTROL_SHIFT & CONTROL_MASK));
    __asm__ volatile("fldcw %0" :: "m"(cw));
}
