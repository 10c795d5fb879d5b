/*
 * block.h - the block layout shared by the implicit, explicit and segregated
 * variants: 8-byte boundary tags, drawn once here with the invariants that
 * every variant's mm_checkheap enforces.
 *
 *   one block (bp = the payload pointer the caller sees, aligned to MM_ALIGNMENT)
 *
 *        hdr                 bp                                   ftr
 *   ... | size | p | a |     | payload (or free-list links) ...   | size | p | a |
 *       ^ bp - 8                                                   ^ bp + size - 16
 *
 *   size  block size in bytes, header and footer included, a multiple of
 *         MM_ALIGNMENT (so its low 3 bits are free for flags)
 *   a     BLK_ALLOC: this block is allocated
 *   p     BLK_PREV_ALLOC: the block just below is allocated.  Kept by every
 *         variant; the ones that drop the footer of allocated blocks need it,
 *         since they cannot read the size of an allocated block from below.
 *
 *   the heap
 *
 *   lo                                                                             brk
 *   | state | pad | prologue hdr | prologue ftr | block | block | ... | epilogue hdr |
 *                 \__ allocated, size 16 ______/                       size 0, allocated
 *
 *   state = the variant's `struct core` (tags-core.h): free-list heads, rover,
 *           counters.  It sits in the heap rather than in a global because the
 *           lab allows 128 bytes of writable globals; no block is ever below it.
 *   pad   = 0 to MM_ALIGNMENT - 8 bytes, so that the first payload is aligned.
 *
 * Invariants (numbers are quoted by the checkers' messages):
 *   I1  every payload is MM_ALIGNMENT-aligned and lies inside the heap;
 *   I2  every size is a multiple of MM_ALIGNMENT and at least the variant's minimum;
 *   I3  a block with a footer has the header's size and allocated bit in it (free
 *       blocks always have one; BLK_PREV_ALLOC is kept in the header only);
 *   I4  walking by size from the prologue lands exactly on the epilogue at brk - 8;
 *   I5  no two free blocks are neighbours (coalescing is immediate);
 *   I6  each header's BLK_PREV_ALLOC bit equals the allocated bit of the block below;
 *   I7  every free block is on the free list(s) exactly once, and nothing else is
 *       (the count found walking the heap equals the count found walking the lists).
 */
#ifndef VARIANTS_BLOCK_H
#define VARIANTS_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

_Static_assert(MM_ALIGNMENT == 8 || MM_ALIGNMENT == 16, "block.h lays out 8- or 16-byte alignment");

typedef uint64_t blk_word_t;

enum {
    BLK_WSIZE = 8,                   /* a header or footer */
    BLK_ALIGN = MM_ALIGNMENT,
    BLK_ALLOC = 1,
    BLK_PREV_ALLOC = 2,
    BLK_FLAGS = 7,
};

/* Largest request any variant accepts: past it, size arithmetic could overflow
 * and the sbrk increment would not fit an intptr_t.  Anything this big fails
 * anyway, since the simulated heap is at most a few GiB. */
static const size_t BLK_MAX_REQUEST = (size_t)1 << 40;

static inline size_t blk_round_up(size_t n, size_t to) { return (n + to - 1) & ~(to - 1); }

static inline blk_word_t blk_pack(size_t size, bool alloc, bool prev_alloc)
{
    return (blk_word_t)size | (alloc ? BLK_ALLOC : 0) | (prev_alloc ? BLK_PREV_ALLOC : 0);
}

static inline blk_word_t *blk_hdr(const void *bp) { return (blk_word_t *)((char *)bp - BLK_WSIZE); }
static inline size_t blk_word_size(blk_word_t w) { return (size_t)(w & ~(blk_word_t)BLK_FLAGS); }
static inline size_t blk_size(const void *bp) { return blk_word_size(*blk_hdr(bp)); }
static inline bool blk_alloc(const void *bp) { return *blk_hdr(bp) & BLK_ALLOC; }
static inline bool blk_prev_alloc(const void *bp) { return *blk_hdr(bp) & BLK_PREV_ALLOC; }
static inline blk_word_t *blk_ftr(const void *bp)
{
    return (blk_word_t *)((char *)bp + blk_size(bp) - 2 * BLK_WSIZE);
}
static inline void *blk_next(const void *bp) { return (char *)bp + blk_size(bp); }
/* Only valid when the block below has a footer (it is free, or the variant keeps footers). */
static inline void *blk_prev(const void *bp)
{
    return (char *)bp - blk_word_size(*(blk_word_t *)((char *)bp - 2 * BLK_WSIZE));
}

/* Write the header, and the footer when the variant wants one. */
static inline void blk_set(void *bp, size_t size, bool alloc, bool prev_alloc, bool footer)
{
    *blk_hdr(bp) = blk_pack(size, alloc, prev_alloc);
    if (footer)
        *blk_ftr(bp) = *blk_hdr(bp);
}

static inline void blk_set_prev_alloc(void *bp, bool prev_alloc)
{
    if (prev_alloc)
        *blk_hdr(bp) |= BLK_PREV_ALLOC;
    else
        *blk_hdr(bp) &= ~(blk_word_t)BLK_PREV_ALLOC;
}

/* The footer agrees with the header (I3): BLK_PREV_ALLOC is not kept in footers. */
static inline bool blk_footer_ok(const void *bp)
{
    return ((*blk_ftr(bp) ^ *blk_hdr(bp)) & ~(blk_word_t)BLK_PREV_ALLOC) == 0;
}

static inline bool blk_aligned(const void *p) { return ((uintptr_t)p & (BLK_ALIGN - 1)) == 0; }

#endif
