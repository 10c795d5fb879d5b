/*
 * unit.h - what the files of the variants' unit tests share: the card's facts
 * the run was told (unit.c reads them from its flags), the helpers every case
 * uses, and the cases the other files hold for unit.c's list.
 */
#ifndef VARIANTS_UNIT_H
#define VARIANTS_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/heap.h"
#include "expect.h"
#include "memlib.h"
#include "mm.h"

bool mm_checkheap(int lineno);

extern bool in_place;         /* --in-place: the card promises realloc in place */
extern bool copies;           /* --copies: the card's realloc is allocate, copy, free alone */
extern size_t split_rest;     /* --split=N: the card's split threshold, bytes */
extern bool offsets32;        /* --offsets32: the variant's heap is limited to 4 GiB */
extern size_t tag_bytes;      /* --tags=N: bytes of header (and footer) on an allocated block */
extern const char *order;     /* --order=lifo|fifo|addr: a free list's insertion policy (each class's, segregated) */
extern const char *fit;       /* --fit=first|next|best|worst: an implicit list's fit policy */
extern bool zero_null;        /* --zero-null: malloc(0) returns NULL (mm.h allows a block too) */
extern bool grow_by_lack;     /* --grow-by-lack: the heap grows by what a request lacks (tags-core.h) */
extern bool class_best;       /* --class-best: best fit among a size class's blocks */

static inline void fresh(void)
{
    heap_restart(true);
    CHECK(mm_init() == 0);
    CHECK(mm_checkheap(__LINE__));
}

static inline bool aligned(const void *p) { return ((uintptr_t)p & (MM_ALIGNMENT - 1)) == 0; }

/* Everything has been freed: the heap, less a few KiB of the allocator's own
 * bookkeeping, serves one request without growing.  That asks for one free
 * region, not one free block: a variant may keep freed blocks unmerged (best's
 * quick lists) as long as it merges them before the heap would grow. */
static inline void check_all_reusable(void)
{
    mm_stats_t s = stats();
    size_t heap = mem_heapsize(), slack = 4096;
    CHECK(heap > slack);
    unsigned char *p = mm_malloc(heap - slack);
    CHECK(p != NULL && stats().extensions == s.extensions && mm_checkheap(__LINE__));
    mm_free(p);
}

static inline bool inside(const void *p, size_t n)
{
    return (const char *)p >= (const char *)mem_heap_lo() && (const char *)p + n <= (const char *)mem_heap_hi() + 1;
}

/* malloc that must succeed, with its bytes written (pattern = seed). */
static inline unsigned char *get(size_t n, unsigned seed)
{
    unsigned char *p = mm_malloc(n);
    CHECK(p != NULL);
    CHECK(aligned(p) && inside(p, n));
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed + i * 7);
    CHECK(mm_checkheap(__LINE__));
    return p;
}

static inline bool intact(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed + i * 7))
            return false;
    return true;
}

static inline void put(void *p)
{
    mm_free(p);
    CHECK(mm_checkheap(__LINE__));
}

/* unit_realloc.c: the realloc ladder and its contract */
void test_realloc_contract(void);
void test_realloc_shrink(void);
void test_realloc_absorb(void);
void test_realloc_absorb_rest(void);
void test_realloc_shrink_split(void);
void test_realloc_grow_at_end(void);
void test_realloc_copies(void);
void test_realloc_grow_under_free_top(void);
void test_realloc_move_no_growth(void);
void test_realloc_move(void);

/* unit_fit.c: where a request lands (fit, free-list order, classes, the top block, growth) */
void test_rover_after_coalesce(void);
void test_rover_after_growth(void);
void test_insertion_order(void);
void test_fit_policy(void);
void test_best_fit_exact_later(void);
void test_worst_fit_largest_by_a_unit(void);
void test_larger_class_fit(void);
void test_class_best_fit(void);
void test_class_boundaries(void);
void test_class_neighbours(void);
void test_top_block_unprobed(void);
void test_top_block_exact(void);
void test_grow_by_lack(void);

#endif
