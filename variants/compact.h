/*
 * compact.h - the compact block layout of variants/best.c: 4-byte headers and
 * 32-bit offsets instead of 8-byte words and pointers.
 *
 *   allocated block                      free block
 *
 *   hdr  bp                              hdr  bp
 *   | size|p|a | payload ...       |     | size|p|a | next | prev | ... | size|p|a |
 *   ^ bp - 4                              offsets from the heap base    ^ footer at bp + size - 8
 *
 *   size  block size in bytes, header included, a multiple of MM_ALIGNMENT, at
 *         least CB_MIN_BLOCK (16: header, two offsets, footer)
 *   a     CB_ALLOC: this block is allocated
 *   p     CB_PREV_ALLOC: the block just below is allocated; allocated blocks
 *         have no footer, so this bit is how a free block finds out whether it
 *         may read the footer below it
 *   the other bits below the alignment (4, and 8 at 16-byte alignment) are the
 *   variant's own: best.c's QUICK_KEPT and MID_MARK
 *
 *   the heap (base = the first byte the allocator got from mem_sbrk)
 *
 *   base                                                                 brk
 *   | state (best.c's struct) | pad | block | block | ... | block | epilogue hdr |
 *                                  ^ first header, placed so the first payload
 *                                    is aligned
 *
 *   The first block has CB_PREV_ALLOC set (nothing below it to merge with); the
 *   epilogue is a header of size 0 with CB_ALLOC set.  A block is named by its
 *   payload's offset from base; offset 0 is no block (NULL).
 *
 * Offsets and sizes are 32 bits, so the heap must stay below 4 GiB: the driver's
 * HEAP_LIMIT (4 GiB, default 20 MiB) would let it reach 4 GiB itself, so best.c
 * refuses to grow past CB_HEAP_LIMIT, returning NULL like any failed sbrk.
 *
 * Invariants (mm_checkheap, in best-check.h, checks each, quoting the number):
 *   C1  every payload is aligned and inside the heap; every size is a multiple of
 *       the alignment and >= CB_MIN_BLOCK; blocks tile the heap from the first
 *       header to the epilogue at brk - 4;
 *   C2  a free block's footer equals its header;
 *   C3  each CB_PREV_ALLOC bit equals the allocated bit of the block below;
 *   C4  no two free blocks are neighbours;
 *   C5  every free block is on the list of its size class exactly once, the
 *       lists' links agree both ways, and the class bitmap marks exactly the
 *       non-empty lists;
 *   C6  the free blocks counted walking the heap, walking the lists, and kept
 *       as a running count all agree.
 */
#ifndef VARIANTS_COMPACT_H
#define VARIANTS_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

_Static_assert(MM_ALIGNMENT == 8 || MM_ALIGNMENT == 16, "compact.h lays out 8- or 16-byte alignment");

typedef uint32_t cb_word_t;

enum {
    CB_WSIZE = 4,
    CB_ALIGN = MM_ALIGNMENT,
    CB_MIN_BLOCK = 16,
    CB_ALLOC = 1,
    CB_PREV_ALLOC = 2,
    CB_FLAGS = CB_ALIGN - 1,   /* every bit below the alignment (see above) */
};

/* Largest heap the 32-bit offsets and sizes can describe, with room to spare. */
static const size_t CB_HEAP_LIMIT = (size_t)UINT32_MAX - 4096;

static inline cb_word_t *cb_hdr(const void *bp) { return (cb_word_t *)((char *)bp - CB_WSIZE); }
static inline size_t cb_size_of(cb_word_t w) { return w & ~(cb_word_t)CB_FLAGS; }
static inline size_t cb_size(const void *bp) { return cb_size_of(*cb_hdr(bp)); }
static inline bool cb_alloc(const void *bp) { return *cb_hdr(bp) & CB_ALLOC; }
static inline bool cb_prev_alloc(const void *bp) { return *cb_hdr(bp) & CB_PREV_ALLOC; }
static inline cb_word_t *cb_ftr(const void *bp) { return (cb_word_t *)((char *)bp + cb_size(bp) - 2 * CB_WSIZE); }
static inline void *cb_next(const void *bp) { return (char *)bp + cb_size(bp); }
/* Only valid when the block below is free (it alone has a footer). */
static inline void *cb_prev(const void *bp)
{
    return (char *)bp - cb_size_of(*(cb_word_t *)((char *)bp - 2 * CB_WSIZE));
}

static inline cb_word_t cb_pack(size_t size, bool alloc, bool prev_alloc)
{
    return (cb_word_t)size | (alloc ? CB_ALLOC : 0) | (prev_alloc ? CB_PREV_ALLOC : 0);
}

/* Tag a block: free blocks get a footer, allocated ones do not. */
/* (cb_set_below: the flag of the block below as the header bit itself, 0 or
 * CB_PREV_ALLOC, kept from a header read before: no bool to turn back.) */
static inline void cb_set_below(void *bp, size_t size, bool alloc, cb_word_t below)
{
    *cb_hdr(bp) = (cb_word_t)size | (alloc ? CB_ALLOC : 0) | below;
    if (!alloc)
        *cb_ftr(bp) = *cb_hdr(bp);
}

static inline void cb_set(void *bp, size_t size, bool alloc, bool prev_alloc)
{
    cb_set_below(bp, size, alloc, prev_alloc ? CB_PREV_ALLOC : 0);
}

static inline void cb_set_prev_alloc(void *bp, bool prev_alloc)
{
    if (prev_alloc)
        *cb_hdr(bp) |= CB_PREV_ALLOC;
    else
        *cb_hdr(bp) &= ~(cb_word_t)CB_PREV_ALLOC;
}

/* A free block's list links, as offsets from the heap base (0 = none). */
typedef struct cb_links {
    uint32_t next, prev;
} cb_links_t;

static inline cb_links_t *cb_links(void *bp) { return bp; }

static inline size_t cb_round_up(size_t n, size_t to) { return (n + to - 1) & ~(to - 1); }

#endif
