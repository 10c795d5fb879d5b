/*
 * block.h - the shim's header, 16 bytes in front of every payload it hands out.
 *
 *   underlying block (variant or mmap)
 *   | ... offset bytes ... | size | offset<<8 | tag | payload (16-aligned) ...
 *   ^ base                 ^ header                  ^ what the program gets
 *
 * `size` is what the program asked for, so malloc_usable_size returns it; the
 * header lets free() find the underlying block (base = header - offset) and its
 * owner (tag) for any pointer the family returned, aligned or not, with no side
 * table.  Memalign-family blocks over-allocate alignment + 16 bytes and put the
 * header just below the first aligned address past base + 16.  The price is 16
 * bytes per block; the variant itself is never changed.
 */
#ifndef SHIM_BLOCK_H
#define SHIM_BLOCK_H

#include <stdint.h>

enum { HDR = 16, TAG_HEAP = 0xA5, TAG_MAP = 0x5A };

typedef struct shim_hdr {
    uint64_t size;   /* bytes requested */
    uint64_t meta;   /* offset from base to this header, << 8, | tag */
} shim_hdr_t;

static inline shim_hdr_t *hdr_of(const void *payload) { return (shim_hdr_t *)((char *)payload - HDR); }
static inline unsigned tag_of(const shim_hdr_t *h) { return (unsigned)(h->meta & 0xFF); }
static inline uint64_t offset_of(const shim_hdr_t *h) { return h->meta >> 8; }
static inline void *base_of(const void *payload)
{
    return (char *)hdr_of(payload) - offset_of(hdr_of(payload));
}

static inline uintptr_t align_up(uintptr_t x, uintptr_t a) { return (x + a - 1) & ~(a - 1); }

/* Write the header for a block at base with `align`ment; returns the payload. */
static inline void *stamp(void *base, size_t size, size_t align, unsigned tag)
{
    char *payload = (char *)align_up((uintptr_t)base + HDR, align);
    shim_hdr_t *h = hdr_of(payload);
    h->size = size;
    h->meta = (uint64_t)((char *)h - (char *)base) << 8 | tag;
    return payload;
}

#endif
