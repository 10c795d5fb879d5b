/* hide-any-selector.c - the size of one block, 4 bits, kept between calls in each
 * of the DS, ES, FS and GS selectors at once: the next call reads the first that
 * still holds a value.  hide-selectors.c keeps a field in each, and the first
 * realloc reads DS's alone; here a selector the child forgot to load back would
 * keep the size by itself.  Loading FS may change its base, which TLS needs: the
 * base is written back at once (wrfsbase).  The child loads the values it
 * started with into all four after each call. */
#include <stdint.h>

enum { SLOTS = 1, FIELD_BITS = 4 };

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
    uint16_t s[4];
    __asm__ volatile("mov %%ds, %0\n mov %%es, %1\n mov %%fs, %2\n mov %%gs, %3"
                     : "=r"(s[0]), "=r"(s[1]), "=r"(s[2]), "=r"(s[3]));
    for (unsigned i = 0; i < 4; i++)
        if (decode(s[i]))
            return decode(s[i]);
    return 0;
}

static inline void store(uint64_t v)
{
    uint16_t code = CODES[v & 15];
    uint64_t fs_base;
    __asm__ volatile("rdfsbase %0" : "=r"(fs_base));
    __asm__ volatile("mov %0, %%ds\n mov %0, %%es\n mov %0, %%fs\n wrfsbase %1\n mov %0, %%gs"
                     :: "r"(code), "r"(fs_base) : "memory");
}
