/* hide-selectors.c - red team: the sizes of 3 blocks, 4 bits each, kept in the
 * DS, ES and GS selectors between calls.  A process may load any of some twenty
 * values into each (null selectors of every privilege level and the kernel's
 * user segments); 64-bit code ignores them, and the kernel keeps them across
 * system calls and switches.  The child now loads the values it started with
 * after each call. */
#include <stdint.h>

enum { SLOTS = 3, FIELD_BITS = 4 };

#include "hide-fields.h"

/* Sixteen selectors Linux lets a process load on x86-64: each codes one value of a field. */
static const uint16_t CODES[16] = {0x00, 0x01, 0x02, 0x03, 0x20, 0x21, 0x22, 0x23,
                                   0x28, 0x29, 0x2a, 0x2b, 0x30, 0x31, 0x32, 0x33};

static inline unsigned decode(uint16_t selector)
{
    for (unsigned v = 0; v < 16; v++)
        if (CODES[v] == selector)
            return v;
    return 0;
}

static inline uint64_t load(void)
{
    uint16_t ds, es, gs;
    __asm__ volatile("mov %%ds, %0\n mov %%es, %1\n mov %%gs, %2" : "=r"(ds), "=r"(es), "=r"(gs));
    return decode(ds) | decode(es) << 4 | (uint64_t)decode(gs) << 8;
}

static inline void store(uint64_t v)
{
    uint16_t ds = CODES[v & 15], es = CODES[v >> 4 & 15], gs = CODES[v >> 8 & 15];
    __asm__ volatile("mov %0, %%ds\n mov %1, %%es\n mov %2, %%gs" :: "r"(ds), "r"(es), "r"(gs));
}
