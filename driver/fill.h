/*
 * fill.h - the bytes the driver stores in every live payload.
 *
 * Byte i of a block is a function of (id, generation, i): the generation is the
 * op that created the block, so a block re-created under the same id never
 * matches its predecessor's leftovers, and a realloc must carry the first
 * min(old, new) bytes with it because their values depend on position only.
 * Compared as unsigned 64-bit words: no signed-char surprises.
 */
#ifndef DRIVER_FILL_H
#define DRIVER_FILL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t fill_seed(uint32_t id, uint64_t generation)
{
    uint64_t x = ((uint64_t)id << 32 ^ generation) + 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    return x ^ (x >> 31);
}

static inline uint64_t fill_word(uint64_t seed, size_t word)
{
    uint64_t x = (seed ^ word) * 0x94D049BB133111EBull;
    return x ^ (x >> 29);
}

static inline unsigned char fill_byte(uint64_t seed, size_t offset)
{
    uint64_t w = fill_word(seed, offset / 8);
    return (unsigned char)(w >> (8 * (offset % 8)));
}

/* Fill bytes [from, to) of the payload at p. */
static inline void fill_payload(unsigned char *p, size_t from, size_t to, uint64_t seed)
{
    size_t i = from;
    for (; i < to && i % 8; i++)
        p[i] = fill_byte(seed, i);
    for (; i + 8 <= to; i += 8) {
        uint64_t w = fill_word(seed, i / 8);
        memcpy(p + i, &w, 8);
    }
    for (; i < to; i++)
        p[i] = fill_byte(seed, i);
}

/* The first offset in [0, len) whose byte is wrong, or len when all are right. */
static inline size_t verify_payload(const unsigned char *p, size_t len, uint64_t seed)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (w != fill_word(seed, i / 8))
            break;
    }
    for (; i < len; i++)
        if (p[i] != fill_byte(seed, i))
            return i;
    return len;
}

#endif
