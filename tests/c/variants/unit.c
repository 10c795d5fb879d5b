/*
 * unit.c - the tricky paths of every allocator in variants/, black-box.
 *
 * Built with one variant, memlib.c and nothing else (`make variant-unit
 * VARIANT=name`), run as `unit TEST [--in-place] [--copies] [--split=N]
 * [--tags=N] [--offsets32] [--order=P] [--fit=P] [--class-best] [--zero-null]
 * [--grow-by-lack]` by tests/test_variants_unit.py.
 * The tests use only the API, mm_stats() and mm_checkheap(), so they hold for
 * every policy; --in-place says the variant promises realloc in place,
 * --copies that its realloc is allocate, copy, free and nothing else,
 * --split=N gives the smallest rest its card says a split leaves, --tags=N the
 * bytes of tags on its allocated blocks, --offsets32 that its 32-bit offsets
 * limit the heap to 4 GiB, --order=lifo|fifo|addr its free lists'
 * insertion policy, --fit=first|next|best|worst its implicit list's fit,
 * --class-best that it takes the best fit among a size class's blocks,
 * --zero-null that malloc(0) is NULL and --grow-by-lack that the heap grows by
 * what a request lacks.
 * Exit 0 when the test passes, 1 with a line saying why when it fails.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/heap.h"
#include "memlib.h"
#include "mm.h"
#include "expect.h"

bool mm_checkheap(int lineno);

static bool in_place;
static bool copies;         /* --copies: the card's realloc is allocate, copy, free alone */
static size_t split_rest;   /* --split=N: the card's split threshold, bytes */
static bool offsets32;      /* --offsets32: the variant's heap is limited to 4 GiB */
static size_t tag_bytes;    /* --tags=N: bytes of header (and footer) on an allocated block */
static const char *order = "";  /* --order=lifo|fifo|addr: a free list's insertion policy (each class's, segregated) */
static const char *fit = "";    /* --fit=first|next|best|worst: an implicit list's fit policy */
static bool zero_null;      /* --zero-null: malloc(0) returns NULL (mm.h allows a block too) */
static bool grow_by_lack;   /* --grow-by-lack: the heap grows by what a request lacks (tags-core.h) */
static bool class_best;     /* --class-best: best fit among a size class's blocks */

static void fresh(void)
{
    heap_restart(true);
    CHECK(mm_init() == 0);
    CHECK(mm_checkheap(__LINE__));
}

static bool aligned(const void *p) { return ((uintptr_t)p & (MM_ALIGNMENT - 1)) == 0; }

/* Everything has been freed: the heap, less a few KiB of the allocator's own
 * bookkeeping, serves one request without growing.  That asks for one free
 * region, not one free block: a variant may keep freed blocks unmerged (best's
 * quick lists) as long as it merges them before the heap would grow. */
static void check_all_reusable(void)
{
    mm_stats_t s = stats();
    size_t heap = mem_heapsize(), slack = 4096;
    CHECK(heap > slack);
    unsigned char *p = mm_malloc(heap - slack);
    CHECK(p != NULL && stats().extensions == s.extensions && mm_checkheap(__LINE__));
    mm_free(p);
}

static bool inside(const void *p, size_t n)
{
    return (const char *)p >= (const char *)mem_heap_lo() && (const char *)p + n <= (const char *)mem_heap_hi() + 1;
}

/* malloc that must succeed, with its bytes written (pattern = seed). */
static unsigned char *get(size_t n, unsigned seed)
{
    unsigned char *p = mm_malloc(n);
    CHECK(p != NULL);
    CHECK(aligned(p) && inside(p, n));
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed + i * 7);
    CHECK(mm_checkheap(__LINE__));
    return p;
}

static bool intact(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed + i * 7))
            return false;
    return true;
}

static void put(void *p)
{
    mm_free(p);
    CHECK(mm_checkheap(__LINE__));
}

/* ---------------------------------------------------------------- tests */

/* Sizes that cannot be met come back NULL and leave the heap as it was. */
static void test_edge_sizes(void)
{
    fresh();
    const size_t bad[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - MM_ALIGNMENT, SIZE_MAX - 64,
                          SIZE_MAX / 2, SIZE_MAX / 2 + 1, (size_t)PTRDIFF_MAX, (size_t)1 << 62,
                          (size_t)1 << 40, (size_t)1 << 32, (size_t)1 << 31, (size_t)21 << 20};
    unsigned char *keep = get(40, 3);
    size_t heap = mem_heapsize();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(mm_malloc(bad[i]) == NULL);
        CHECK(mm_realloc(keep, bad[i]) == NULL);
        CHECK(mm_checkheap(__LINE__));
        CHECK(intact(keep, 40, 3));
    }
    CHECK(mem_heapsize() == heap);   /* failed requests took no heap */
    /* 0 bytes: NULL or a unique block that can be freed; NULL, and no heap, where the card says so */
    void *z = mm_malloc(0);
    CHECK(z == NULL || (aligned(z) && z != keep));
    CHECK(!zero_null || (z == NULL && mem_heapsize() == heap));
    mm_free(z);
    mm_free(NULL);
    CHECK(mm_checkheap(__LINE__));
    /* 1 byte: a real, aligned, writable block */
    unsigned char *one = get(1, 9);
    unsigned char *two = get(1, 10);
    CHECK(one != two && intact(one, 1, 9));
    put(one);
    put(two);
    put(keep);
}

/* realloc(NULL, n) is malloc(n); realloc(p, 0) frees p and returns NULL. */
static void test_realloc_contract(void)
{
    fresh();
    unsigned char *p = mm_realloc(NULL, 100);
    CHECK(p != NULL && aligned(p) && inside(p, 100));
    memset(p, 0xAB, 100);
    CHECK(mm_checkheap(__LINE__));
    uint64_t frees = stats().frees, free_blocks = stats().free_blocks;
    CHECK(mm_realloc(p, 0) == NULL);
    CHECK(mm_checkheap(__LINE__));
    CHECK(stats().frees == frees + 1);
    CHECK(stats().free_blocks >= free_blocks);
    /* the freed block is reusable */
    uint64_t ext = stats().extensions;
    unsigned char *q = get(100, 1);
    CHECK(stats().extensions == ext);
    put(q);
}

/* A request well below a free block's size splits it; one within the minimum block does not. */
static void test_split_threshold(void)
{
    fresh();
    unsigned char *p = get(1000, 1), *guard = get(200, 2);
    put(p);
    uint64_t splits = stats().splits, ext = stats().extensions;
    unsigned char *q = get(1000 - 1, 3);   /* the rest is far below any minimum block */
    CHECK(stats().splits == splits);
    CHECK(stats().extensions == ext);
    put(q);
    splits = stats().splits;
    unsigned char *r = get(200, 4);        /* the rest is about 800 bytes */
    CHECK(stats().splits == splits + 1);
    CHECK(stats().extensions == ext);
    unsigned char *s = get(600, 5);        /* fits in the rest */
    CHECK(stats().extensions == ext);
    CHECK(intact(r, 200, 4));
    put(r);
    put(s);
    put(guard);
}

/* One probe of split_exact: in a fresh heap, a free block made by a request of
 * `made` bytes (a guard above it), then a request of r bytes.  Whether r came
 * from that block without new heap, and whether it split the block. */
static void split_probe(size_t made, size_t r, bool *fitted, bool *split)
{
    fresh();
    unsigned char *p = get(made, 1), *guard = get(200, 2);
    put(p);
    mm_stats_t s = stats();
    unsigned char *q = get(r, 3);
    *fitted = stats().extensions == s.extensions && q >= p && q < guard;
    *split = stats().splits > s.splits;
    put(q);
    put(guard);
}

/* The split threshold, measured and compared with the card's (--split N).  With
 * the block's header overhead H, the largest request the block serves is its
 * size less H, and the largest one that splits it leaves exactly the smallest
 * rest the policy splits off, less H: their difference is that rest, whatever H. */
static void test_split_exact(void)
{
    CHECK(split_rest > 0);
    const size_t made = 2000;
    size_t largest_fit = 0, largest_split = 0;
    for (size_t r = made + 64; r > made - 256; r--) {
        bool fitted, split;
        split_probe(made, r, &fitted, &split);
        if (fitted && !largest_fit)
            largest_fit = r;
        if (fitted && split) {
            largest_split = r;
            break;
        }
    }
    CHECK(largest_fit >= made && largest_split > 0);
    if (largest_fit - largest_split != split_rest)
        printf("smallest rest split off: %zu bytes, the card says %zu\n", largest_fit - largest_split, split_rest);
    CHECK(largest_fit - largest_split == split_rest);
}

/* The bytes of tags an allocated block carries, measured and compared with
 * --tags=N: a block's size (two blocks made in turn lie side by side in a
 * fresh heap) less the largest request it serves. */
static void test_tag_bytes(void)
{
    CHECK(tag_bytes > 0);
    const size_t made = 1000;
    fresh();
    unsigned char *p = get(made, 1), *guard = get(200, 2);
    CHECK(guard > p);
    size_t block = (size_t)(guard - p), largest = 0;
    for (size_t r = made; r <= block; r++) {
        bool fitted, split;
        split_probe(made, r, &fitted, &split);
        if (fitted)
            largest = r;
    }
    CHECK(largest >= made);
    if (block - largest != tag_bytes)
        printf("an allocated block carries %zu bytes of tags, not %zu\n", block - largest, tag_bytes);
    CHECK(block - largest == tag_bytes);
}

/* Freeing a block coalesces with no, the lower, the upper, or both neighbours.
 * The blocks are above the sizes any variant keeps unmerged (best's quick
 * lists stop at 576-byte blocks); coalesce_small_later covers those. */
static void coalesce_case(int which)
{
    fresh();
    const size_t n = 700;
    unsigned char *b[5];
    for (int i = 0; i < 5; i++)
        b[i] = get(n, (unsigned)i);
    uint64_t before;
    switch (which) {
    case 0: /* neither neighbour free */
        before = stats().coalesces;
        put(b[2]);
        CHECK(stats().coalesces == before);
        break;
    case 1: /* the block below is free */
        put(b[1]);
        before = stats().coalesces;
        put(b[2]);
        CHECK(stats().coalesces == before + 1);
        break;
    case 2: /* the block above is free */
        put(b[3]);
        before = stats().coalesces;
        put(b[2]);
        CHECK(stats().coalesces == before + 1);
        break;
    default: /* both */
        put(b[1]);
        put(b[3]);
        before = stats().coalesces;
        uint64_t fb = stats().free_blocks;
        put(b[2]);
        CHECK(stats().coalesces == before + 2);
        CHECK(stats().free_blocks == fb - 1);
        break;
    }
    /* the merged space serves a request as large as all of it, without growing */
    size_t merged = which == 0 ? n : which == 3 ? 3 * n : 2 * n;
    uint64_t ext = stats().extensions;
    unsigned char *big = get(merged, 7);
    CHECK(stats().extensions == ext);
    CHECK(intact(b[0], n, 0) && intact(b[4], n, 4));
    put(big);
}

static void test_coalesce_none(void) { coalesce_case(0); }
static void test_coalesce_prev(void) { coalesce_case(1); }
static void test_coalesce_next(void) { coalesce_case(2); }
static void test_coalesce_both(void) { coalesce_case(3); }

/* Small blocks too: whatever a variant defers (best keeps freed blocks below
 * 576 bytes whole for reuse), three freed neighbours serve a request as large
 * as all three before the heap grows. */
static void test_coalesce_small_later(void)
{
    fresh();
    const size_t n = 100;
    unsigned char *b[5];
    for (int i = 0; i < 5; i++)
        b[i] = get(n, (unsigned)i);
    put(b[2]);
    put(b[1]);
    put(b[3]);
    CHECK(mm_checkheap(__LINE__));
    uint64_t ext = stats().extensions;
    unsigned char *big = get(3 * n, 7);
    CHECK(stats().extensions == ext);
    CHECK(intact(b[0], n, 0) && intact(b[4], n, 4));
    put(big);
    put(b[0]);
    put(b[4]);
}

/* Shrinking keeps the data (and the place, for in-place variants). */
static void test_realloc_shrink(void)
{
    fresh();
    unsigned char *p = get(600, 11), *guard = get(200, 12);
    mm_stats_t s = stats();
    unsigned char *q = mm_realloc(p, 100);
    CHECK(q != NULL && aligned(q) && mm_checkheap(__LINE__));
    CHECK(intact(q, 100, 11));
    if (in_place) {
        CHECK(q == p);
        CHECK(stats().reallocs_in_place == s.reallocs_in_place + 1);
        CHECK(stats().splits == s.splits + 1);      /* the tail split off, as a malloc's rest is */
        /* the tail came back: a 400-byte request needs no new heap */
        uint64_t ext = stats().extensions;
        put(get(400, 13));
        CHECK(stats().extensions == ext);
    }
    if (copies)     /* the new block is taken while p still holds its own */
        CHECK(q != p && stats().reallocs_in_place == s.reallocs_in_place);
    put(q);
    put(guard);
}

/* Growing into a free block above absorbs it. */
static void test_realloc_absorb(void)
{
    fresh();
    unsigned char *p = get(200, 21), *next = get(400, 22), *guard = get(200, 23);
    put(next);
    mm_stats_t s = stats();
    unsigned char *q = mm_realloc(p, 500);
    CHECK(q != NULL && aligned(q) && mm_checkheap(__LINE__));
    CHECK(intact(q, 200, 21));
    if (in_place) {
        CHECK(q == p);
        CHECK(stats().extensions == s.extensions);
        /* absorbing the block above is a merge, and a realloc in place */
        CHECK(stats().coalesces == s.coalesces + 1 && stats().reallocs_in_place == s.reallocs_in_place + 1);
    }
    if (copies)     /* the free block above is not absorbed: the data moves */
        CHECK(q != p && stats().reallocs_in_place == s.reallocs_in_place);
    put(q);
    put(guard);
}

/* Absorbing a free block much larger than the growth needs gives the rest
 * back: a request as large as that rest then takes no new heap. */
static void test_realloc_absorb_rest(void)
{
    if (!in_place)
        return;
    fresh();
    unsigned char *p = get(200, 24), *next = get(4000, 25), *guard = get(200, 26);
    put(next);
    unsigned char *q = mm_realloc(p, 500);
    CHECK(q == p && mm_checkheap(__LINE__) && intact(q, 200, 24));
    uint64_t ext = stats().extensions;
    unsigned char *r = get(3000, 27);
    CHECK(stats().extensions == ext && r > q && r < guard);
    put(r);
    put(q);
    put(guard);
}

/* One probe of realloc_shrink_split: a fresh block of `made` bytes (a guard
 * above it) shrunk in place to r bytes; whether that split off its tail. */
static bool shrink_probe(size_t made, size_t r)
{
    fresh();
    unsigned char *p = get(made, 1), *guard = get(200, 2);
    mm_stats_t s = stats();
    unsigned char *q = mm_realloc(p, r);
    CHECK(q == p && mm_checkheap(__LINE__) && intact(q, r < made ? r : made, 1));
    bool split = stats().splits > s.splits;
    put(q);
    put(guard);
    return split;
}

/* An in-place shrink splits its tail off at the card's split threshold, as a
 * malloc's rest is: the largest request the block serves less the largest
 * shrink that splits it is that threshold. */
static void test_realloc_shrink_split(void)
{
    if (!in_place)
        return;
    CHECK(split_rest > 0 && tag_bytes > 0);
    const size_t made = 2000;
    fresh();
    unsigned char *p = get(made, 1), *guard = get(200, 2);
    size_t largest_fit = (size_t)(guard - p) - tag_bytes, largest_split = 0;
    for (size_t r = largest_fit; r > largest_fit - 256; r--)
        if (shrink_probe(made, r)) {
            largest_split = r;
            break;
        }
    CHECK(largest_split > 0);
    if (largest_fit - largest_split != split_rest)
        printf("smallest tail a shrink splits off: %zu bytes, the card says %zu\n", largest_fit - largest_split,
               split_rest);
    CHECK(largest_fit - largest_split == split_rest);
}

/* Growing the block at the top of the heap extends the heap under it. */
static void test_realloc_grow_at_end(void)
{
    fresh();
    unsigned char *low = get(200, 30), *p = get(300, 31);
    size_t heap = mem_heapsize();
    unsigned char *q = mm_realloc(p, 5000);
    CHECK(q != NULL && mm_checkheap(__LINE__));
    CHECK(intact(q, 300, 31));
    if (in_place) {
        CHECK(q == p);
        CHECK(mem_heapsize() - heap <= 5000 - 300 + 2 * MM_ALIGNMENT + 64);
    }
    /* and again, many small steps, as the realloc traces do */
    for (size_t n = 5000; n < 40000; n += 128) {
        q = mm_realloc(q, n);
        CHECK(q != NULL && intact(q, 300, 31));
    }
    CHECK(mm_checkheap(__LINE__));
    if (in_place)
        CHECK(mem_heapsize() < 40000 + 8192);
    put(q);
    put(low);
}

/* A variant whose card's realloc is "allocate, copy, free" (--copies) moves
 * every block it resizes, even a shrink or a size its block already holds:
 * a new block, the bytes kept, the old block freed, nothing in place. */
static void test_realloc_copies(void)
{
    if (!copies)
        return;
    fresh();
    unsigned char *p = get(600, 43), *guard = get(100, 44);
    const size_t sizes[] = {100, 600, 601};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        mm_stats_t s = stats();
        unsigned char *q = mm_realloc(p, sizes[i]);
        CHECK(q != NULL && q != p && aligned(q) && mm_checkheap(__LINE__));
        CHECK(intact(q, sizes[i] < 100 ? sizes[i] : 100, 43));
        CHECK(stats().reallocs_in_place == s.reallocs_in_place);
        CHECK(stats().free_blocks >= 1);
        p = q;
    }
    put(p);
    put(guard);
}

/* The block below a free block at the heap's top, too small for the growth:
 * the heap grows under it (the ladder's third rung counts the free block),
 * and the block stays. */
static void test_realloc_grow_under_free_top(void)
{
    if (!in_place)
        return;
    fresh();
    unsigned char *low = get(200, 32), *p = get(300, 33), *top = get(200, 34);
    put(top);
    size_t heap = mem_heapsize();
    unsigned char *q = mm_realloc(p, 2000);
    CHECK(q == p && mm_checkheap(__LINE__) && intact(q, 300, 33));
    CHECK(mem_heapsize() - heap <= 2000 - 300 - 200 + 64);
    put(q);
    put(low);
}

/* A free block above that is too small and not at the heap's top: the block
 * moves, into a free block that fits, and the heap does not grow. */
static void test_realloc_move_no_growth(void)
{
    if (!in_place)
        return;
    fresh();
    unsigned char *p = get(200, 35), *above = get(100, 36), *wall = get(100, 37);
    unsigned char *hole = get(3000, 38), *guard = get(100, 39);
    put(above);
    put(hole);
    size_t heap = mem_heapsize();
    uint64_t ext = stats().extensions;
    unsigned char *q = mm_realloc(p, 2000);
    CHECK(q != NULL && q != p && mm_checkheap(__LINE__) && intact(q, 200, 35));
    CHECK(mem_heapsize() == heap && stats().extensions == ext);
    put(q);
    put(wall);
    put(guard);
}

/* Blocked on both sides: allocate, copy, free. */
static void test_realloc_move(void)
{
    fresh();
    unsigned char *a = get(100, 40), *p = get(100, 41), *b = get(100, 42);
    unsigned char *q = mm_realloc(p, 3000);
    CHECK(q != NULL && q != p && mm_checkheap(__LINE__));
    CHECK(intact(q, 100, 41) && intact(a, 100, 40) && intact(b, 100, 42));
    put(q);
    put(a);
    put(b);
}

/* Next fit: a merge that swallows the rover's block must move the rover. */
static void test_rover_after_coalesce(void)
{
    fresh();
    unsigned char *a = get(100, 50), *b = get(100, 51), *c = get(100, 52), *d = get(100, 53);
    put(b);
    unsigned char *b2 = get(100, 54);   /* reuses b: the rover now points there */
    put(a);
    put(b2);                             /* a and b2 merge: the rover was inside */
    put(c);                              /* and c joins them */
    unsigned char *e = get(250, 55);
    unsigned char *f = get(30, 56);
    CHECK(intact(d, 100, 53));
    put(e);
    put(f);
    put(d);
    if (strcmp(fit, "next") != 0)
        return;
    /* After the merge the search resumes at the merged block, not at the start
     * of the heap: a hole below it is passed over. */
    fresh();
    unsigned char *b_[6];
    for (int i = 0; i < 6; i++)
        b_[i] = get(100, (unsigned)i);
    put(b_[3]);
    CHECK(get(100, 60) == b_[3]);       /* the only hole: the rover is there now */
    put(b_[0]);                         /* a hole below the rover */
    put(b_[2]);
    put(b_[3]);                         /* merges down into b_[2]'s block, under the rover */
    unsigned char *g = get(100, 61);
    if (g != b_[2])
        printf("next fit after a merge: block at %+td from the merged one (the hole below is at %+td)\n",
               g - b_[2], b_[0] - b_[2]);
    CHECK(g == b_[2]);
    /* A merge that ends just below the rover's block does not swallow it: the
     * rover stays, and the search passes over the merged block below it. */
    fresh();
    for (int i = 0; i < 6; i++)
        b_[i] = get(100, (unsigned)i);
    put(b_[2]);
    CHECK(get(100, 62) == b_[2]);       /* the rover is on b_[2] */
    put(b_[4]);                         /* a hole above the rover */
    put(b_[0]);
    put(b_[1]);                         /* merges with b_[0]: the merged block ends at the rover */
    unsigned char *h = get(100, 63);
    if (h != b_[4])
        printf("next fit after a merge below the rover: block at %+td from the rover's, not %+td\n",
               h - b_[2], b_[4] - b_[2]);
    CHECK(h == b_[4]);
}

/* Next fit: a block the heap grew for is the last one allocated, so the rover
 * moves onto it, and the next search wraps from the top of the heap round to
 * the lowest hole, not from the rover's place before the growth. */
static void test_rover_after_growth(void)
{
    if (strcmp(fit, "next") != 0)
        return;
    fresh();
    unsigned char *b[6];
    for (int i = 0; i < 6; i++)
        b[i] = get(100, (unsigned)i);
    put(b[1]);
    CHECK(get(100, 60) == b[1]);         /* the rover is on b[1] */
    put(b[3]);                           /* a hole above it */
    unsigned char *big = get(1000, 61);  /* fits no hole: the heap grows, the rover moves to the top */
    CHECK(big > b[5]);
    put(b[0]);                           /* a hole below b[1] */
    unsigned char *p = get(100, 62);
    if (p != b[0])
        printf("next fit after a growth: block at %+td from the lowest hole, not 0\n", p - b[0]);
    CHECK(p == b[0]);
}

/* The explicit lists' insertion policy (--order=lifo|fifo|addr), and the
 * segregated lists' LIFO within a class: three blocks of one size, kept apart
 * by guards, freed middle, low, high; the next three requests of that size get
 * them back in the order the list holds them. */
static void test_insertion_order(void)
{
    if (!*order)
        return;
    fresh();
    unsigned char *b[3], *guard[3];
    for (int i = 0; i < 3; i++)
        b[i] = get(200, (unsigned)i), guard[i] = get(200, (unsigned)i + 10);
    const int freed[3] = {1, 0, 2};
    for (int i = 0; i < 3; i++)
        put(b[freed[i]]);
    const int lifo[3] = {2, 0, 1}, fifo[3] = {1, 0, 2}, addr[3] = {0, 1, 2};
    const int *want = strcmp(order, "lifo") == 0 ? lifo : strcmp(order, "fifo") == 0 ? fifo : addr;
    CHECK(want != addr || strcmp(order, "addr") == 0);
    for (int i = 0; i < 3; i++) {
        unsigned char *p = get(200, (unsigned)i + 20);
        if (p != b[want[i]])
            printf("%s: request %d got the block at %+td from the first, not %+td\n", order, i,
                   p - b[0], b[want[i]] - b[0]);
        CHECK(p == b[want[i]]);
    }
    for (int i = 0; i < 3; i++)
        put(b[i]), put(guard[i]);
}

/* The implicit lists' fit policy (--fit=first|next|best|worst): holes of 300,
 * 150 and 500 bytes, low to high, and a request of 120: first fit takes the
 * lowest, best fit the tightest, worst fit the largest; next fit, its rover on
 * the last block allocated above them all, wraps round to the lowest. */
static void test_fit_policy(void)
{
    if (!*fit)
        return;
    fresh();
    const size_t hole[3] = {300, 150, 500};
    unsigned char *h[3], *guard[3];
    for (int i = 0; i < 3; i++)
        h[i] = get(hole[i], (unsigned)i), guard[i] = get(100, (unsigned)i + 10);
    for (int i = 0; i < 3; i++)
        put(h[i]);
    int want = strcmp(fit, "best") == 0 ? 1 : strcmp(fit, "worst") == 0 ? 2 : 0;
    CHECK(want || strcmp(fit, "first") == 0 || strcmp(fit, "next") == 0);
    unsigned char *p = get(120, 20);
    if (p != h[want])
        printf("%s fit: the request got the block at %+td from the first hole, not %+td\n", fit,
               p - h[0], h[want] - h[0]);
    CHECK(p == h[want]);
    put(p);
    for (int i = 0; i < 3; i++)
        put(guard[i]);
}

/* Best fit stops early only at an exact fit: holes ever closer to a request,
 * low to high, the last exactly its size; the request gets that last one, not
 * a near fit before it (the card: the smallest free block that fits). */
static void test_best_fit_exact_later(void)
{
    if (strcmp(fit, "best") != 0)
        return;
    fresh();
    const size_t r = 200, over[] = {64, 48, 32, 16, MM_ALIGNMENT, 0};
    enum { HOLES = sizeof over / sizeof over[0] };
    unsigned char *h[HOLES], *guard[HOLES];
    for (int i = 0; i < HOLES; i++)
        h[i] = get(r + over[i], (unsigned)i), guard[i] = get(100, (unsigned)i + 10);
    for (int i = 0; i < HOLES; i++)
        put(h[i]);
    unsigned char *p = get(r, 20);
    if (p != h[HOLES - 1])
        printf("best fit: the request got the block at %+td from the exact fit\n", p - h[HOLES - 1]);
    CHECK(p == h[HOLES - 1]);
    put(p);
    for (int i = 0; i < HOLES; i++)
        put(guard[i]);
}

/* Worst fit takes the largest free block however little larger it is: holes
 * of 3, 0 and 4 alignment units over a size, low to high, and the request gets
 * the highest, the largest by one unit (the card: the largest free block, if
 * it fits). */
static void test_worst_fit_largest_by_a_unit(void)
{
    if (strcmp(fit, "worst") != 0)
        return;
    fresh();
    enum { HOLES = 3 };
    const size_t r = 200, units[HOLES] = {3, 0, 4};
    unsigned char *h[HOLES], *guard[HOLES];
    for (int i = 0; i < HOLES; i++)
        h[i] = get(r + units[i] * MM_ALIGNMENT, (unsigned)i), guard[i] = get(100, (unsigned)i + 10);
    for (int i = 0; i < HOLES; i++)
        put(h[i]);
    unsigned char *p = get(r - 100, 20);
    if (p != h[HOLES - 1])
        printf("worst fit: the request got the block at %+td from the largest\n", p - h[HOLES - 1]);
    CHECK(p == h[HOLES - 1]);
    put(p);
    for (int i = 0; i < HOLES; i++)
        put(guard[i]);
}

/* A request that no free block of its own size class fits goes on to a larger
 * class's block, not to new heap: blocks of 300 and 1000 bytes freed (guards
 * between), then a request of 400, which the 300 may share a class with. */
static void test_larger_class_fit(void)
{
    fresh();
    unsigned char *small = get(300, 1), *g1 = get(100, 2), *big = get(1000, 3), *g2 = get(100, 4);
    put(small);
    put(big);
    mm_stats_t s = stats();
    unsigned char *p = get(400, 5);
    CHECK(stats().extensions == s.extensions && stats().reuses == s.reuses + 1);
    CHECK(p >= big && p < g2);
    put(p);
    put(g1);
    put(g2);
}

/* Best fit within a class (--class-best: ts-lock's and ts-nolock's cards):
 * two blocks of one class, the larger freed last (so first on a LIFO list);
 * a request both fit gets the smaller. */
static void test_class_best_fit(void)
{
    if (!class_best)
        return;
    fresh();
    unsigned char *tight = get(2100, 1), *g1 = get(100, 2), *loose = get(2200, 3), *g2 = get(100, 4);
    put(tight);
    put(loose);
    unsigned char *p = get(2080, 5);
    if (p != tight)
        printf("best fit in a class: the request got the block at %+td from the tighter one\n", p - tight);
    CHECK(p == tight);
    put(p);
    put(g1);
    put(g2);
}

/* Sizes on both sides of every power of two, freed and reused in a shuffled order. */
static void test_class_boundaries(void)
{
    fresh();
    enum { N = 200 };
    unsigned char *p[N];
    size_t size[N];
    int n = 0;
    for (int k = 4; k <= 14 && n < N; k++)
        for (int d = -9; d <= 9 && n < N; d += 3) {
            size[n] = ((size_t)1 << k) + (size_t)d;
            p[n] = get(size[n], (unsigned)n);
            n++;
        }
    for (int i = 0; i < n; i += 2)
        put(p[i]);
    for (int i = 0; i < n; i += 2)
        p[i] = get(size[(i + 6) % n], (unsigned)i + 1000), size[i] = size[(i + 6) % n];
    for (int i = 1; i < n; i += 2)
        CHECK(intact(p[i], size[i], (unsigned)i));
    for (int i = 0; i < n; i++)
        put(p[i]);
    check_all_reusable();
}

/* One pair of class_neighbours: a freed block of r bytes, then a request
 * one alignment unit larger, on a heap with a dozen other free blocks (so
 * that best has left its one list for its class tables).  The request must
 * not be given the smaller block: every live block keeps its bytes. */
static void class_pair(size_t r)
{
    enum { SPARES = 24 };
    unsigned char *spare[SPARES];
    fresh();
    for (int i = 0; i < SPARES; i++)
        spare[i] = get(3000, (unsigned)i);
    for (int i = 0; i < SPARES; i += 2)
        put(spare[i]);
    unsigned char *p = get(r, 50), *guard = get(64, 51);
    put(p);
    unsigned char *q = get(r + MM_ALIGNMENT, 52);
    CHECK(intact(guard, 64, 51));
    for (int i = 1; i < SPARES; i += 2)
        CHECK(intact(spare[i], 3000, (unsigned)i));
    put(q);
    put(guard);
    for (int i = 1; i < SPARES; i += 2)
        put(spare[i]);
}

/* Size classes at their edges: a request just larger than a freed block of its
 * class (or of the class below) never gets that block.  Every size to 2 KiB
 * (seglist's powers of two, best's 16-byte classes below 576 bytes), then
 * around each quarter of the powers of two from 512 bytes to 128 KiB (best's
 * classes above, one class from 64 KiB). */
static void test_class_neighbours(void)
{
    for (size_t r = 1; r <= 2048; r += MM_ALIGNMENT)
        class_pair(r);
    for (int k = 9; k <= 17; k++)
        for (size_t q = 4; q < 8; q++)
            for (size_t r = (q << (k - 2)) - 48; r <= (q << (k - 2)) + 48; r += MM_ALIGNMENT)
                class_pair(r);
}

/* A free block at the top of the heap that fits, but that a bounded search
 * passed over (seglist looks at 8 blocks of a class, best at 512): the heap
 * grows by what the request lacks, which is nothing.  It had grown by the
 * difference below zero, an sbrk refused, so the request came back NULL. */
static void top_block_case(int n, size_t small_size, size_t top_size, size_t request)
{
    fresh();
    unsigned char **small = malloc((size_t)n * sizeof *small), **guard = malloc((size_t)n * sizeof *guard);
    CHECK(small && guard);
    for (int i = 0; i < n; i++)
        small[i] = get(small_size, (unsigned)i), guard[i] = get(24, (unsigned)i + 20);
    unsigned char *top = get(top_size, 40);
    put(top);                      /* freed first: behind the small ones on a LIFO list */
    for (int i = 0; i < n; i++)
        put(small[i]);
    size_t heap = mem_heapsize();
    uint64_t reuses = stats().reuses;
    unsigned char *p = get(request, 41);
    CHECK(mem_heapsize() <= heap);
    CHECK(stats().reuses == reuses + 1);   /* a free block served it, as a search's find would */
    put(p);
    for (int i = 0; i < n; i++)
        put(guard[i]);
    free(small);
    free(guard);
}

static void test_top_block_unprobed(void)
{
    top_block_case(12, 56, 100, 72);
    top_block_case(600, 580, 620, 600);
}

/* the top block exactly the request's size: it had grown the heap by a minimum block */
static void test_top_block_exact(void)
{
    top_block_case(12, 56, 100, 100);
    top_block_case(600, 580, 620, 620);
}

/* The variants built on tags-core.h (--grow-by-lack) grow the heap by exactly
 * what a request lacks, a free block at the top counting towards it, and by at
 * least a minimum block (the split threshold), never by a fixed chunk. */
static void test_grow_by_lack(void)
{
    if (!grow_by_lack)
        return;
    const size_t made = 1000;
    for (size_t more = 1; more <= 64; more++) {
        fresh();
        unsigned char *low = get(100, 1), *top = get(made, 2);
        put(top);                       /* the free block at the top */
        size_t heap = mem_heapsize();
        unsigned char *p = get(made + more, 3);
        size_t lack = ((made + more + tag_bytes + MM_ALIGNMENT - 1) & ~(size_t)(MM_ALIGNMENT - 1))
                      - ((made + tag_bytes + MM_ALIGNMENT - 1) & ~(size_t)(MM_ALIGNMENT - 1));
        size_t want = lack == 0 ? 0 : lack < split_rest ? split_rest : lack;
        if (mem_heapsize() - heap != want)
            printf("%zu bytes more than the top block: the heap grew by %zu, not %zu\n", more,
                   mem_heapsize() - heap, want);
        CHECK(p == top && mem_heapsize() - heap == want);
        put(p);
        put(low);
    }
}

/* Filling the heap ends in NULL, cleanly, and the heap still works. */
static void test_out_of_heap(void)
{
    fresh();
    enum { N = 64 };
    void *p[N];
    int n = 0;
    while (n < N && (p[n] = mm_malloc((size_t)1 << 20)) != NULL)
        n++;
    CHECK(n > 4 && n < N);
    CHECK(mm_checkheap(__LINE__));
    for (int i = 0; i < n; i++)
        put(p[i]);
    put(get((size_t)4 << 20, 1));
}

/* A heap allowed past 4 GiB (more than the driver ever gives): a variant with
 * 32-bit offsets (--offsets32) refuses to grow past what they can name, NULL
 * and the heap as it was; a 64-bit one serves the request.  Only the ends of
 * the big blocks are written: the rest of their pages is never touched. */
static void test_heap_past_4g(void)
{
    const size_t gib = (size_t)1 << 30, big_n = 3 * gib, past_n = 3 * gib / 2;
    mem_deinit();
    heap_configure(6 * gib);
    mem_init();
    fresh();
    unsigned char *low = get(100, 1);
    unsigned char *big = mm_malloc(big_n);
    CHECK(big != NULL && aligned(big) && inside(big, big_n) && mm_checkheap(__LINE__));
    big[0] = 1, big[big_n - 1] = 2;
    size_t heap = mem_heapsize();
    unsigned char *past = mm_malloc(past_n);
    CHECK(mm_checkheap(__LINE__));
    if (offsets32) {
        CHECK(past == NULL && mem_heapsize() == heap);
        CHECK(mm_realloc(big, big_n + past_n) == NULL && mem_heapsize() == heap);
        /* just past 4 GiB is past too: the bytes left below it, as a payload, need a header more */
        CHECK(mm_malloc(((size_t)4 << 30) - heap) == NULL && mem_heapsize() == heap);
        CHECK(mm_checkheap(__LINE__));
    } else {
        CHECK(past != NULL && aligned(past) && inside(past, past_n));
        past[0] = 3, past[past_n - 1] = 4;
        put(past);
    }
    CHECK(big[0] == 1 && big[big_n - 1] == 2 && intact(low, 100, 1));
    put(big);
    put(get(1000, 5));
    put(low);
}

/* Seeded random malloc/realloc/free with the checker after every call. */
static void test_random(void)
{
    fresh();
    enum { SLOTS = 150, OPS = 6000 };
    unsigned char *p[SLOTS] = {0};
    size_t size[SLOTS] = {0};
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int op = 0; op < OPS; op++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int i = (int)(x % SLOTS);
        size_t n = (x >> 20) % 4 == 0 ? (x >> 24) % 5000 + 1 : (x >> 24) % 120 + 1;
        if (!p[i]) {
            p[i] = get(n, (unsigned)i), size[i] = n;
        } else if ((x >> 40) % 3 == 0) {
            unsigned char *q = mm_realloc(p[i], n);
            CHECK(q != NULL && aligned(q) && mm_checkheap(__LINE__));
            CHECK(intact(q, n < size[i] ? n : size[i], (unsigned)i));
            for (size_t j = 0; j < n; j++)
                q[j] = (unsigned char)(i + j * 7);
            p[i] = q, size[i] = n;
        } else {
            CHECK(intact(p[i], size[i], (unsigned)i));
            put(p[i]);
            p[i] = NULL;
        }
    }
    for (int i = 0; i < SLOTS; i++)
        if (p[i])
            put(p[i]);
    mm_stats_t s = stats();
    CHECK(s.mallocs > 0 && s.frees > 0 && s.reallocs > 0 && s.bytes_requested > 0);
    CHECK(s.peak_heap >= mem_heapsize() && s.peak_heap > 0);
    check_all_reusable();
}

/* Each counter issue 3 lists moves by what one call does.  Block sizes are
 * above those any variant keeps aside unfreed (best's quick lists, runs). */
static void test_stats_counts(void)
{
    fresh();
    mm_stats_t s = stats(), t;
    CHECK(s.mallocs == 0 && s.frees == 0 && s.reallocs == 0 && s.reuses == 0 && s.bytes_requested == 0);
    CHECK(s.peak_heap == mem_heapsize());
    unsigned char *p = get(1000, 1), *guard = get(1000, 2);
    t = stats();
    CHECK(t.mallocs == 2 && t.bytes_requested == 2000 && t.extensions > s.extensions);
    CHECK(t.peak_heap == mem_heapsize());
    CHECK(mm_malloc(SIZE_MAX) == NULL && stats().mallocs == 2);   /* counts blocks returned */
    s = stats();
    put(p);
    t = stats();
    CHECK(t.frees == s.frees + 1 && t.free_blocks == s.free_blocks + 1 && t.mallocs == s.mallocs);
    s = t;
    unsigned char *q = get(1000, 3);        /* p's block again: a reuse, no growth, no split */
    t = stats();
    CHECK(t.mallocs == s.mallocs + 1 && t.reuses == s.reuses + 1 && t.extensions == s.extensions);
    CHECK(t.splits == s.splits && t.free_blocks == s.free_blocks - 1);
    CHECK(t.bytes_requested == s.bytes_requested + 1000);
    s = t;
    q = mm_realloc(q, 600);
    CHECK(q != NULL && mm_checkheap(__LINE__));
    t = stats();
    CHECK(t.reallocs == s.reallocs + 1 && t.bytes_requested == s.bytes_requested + 600);
    s = t;
    unsigned char *above = get(64, 4);
    unsigned char *moved = mm_realloc(q, 5000);   /* guard lies above q: it moves */
    CHECK(moved != NULL && mm_checkheap(__LINE__));
    t = stats();                            /* a move is one realloc, not a malloc and a free */
    CHECK(t.reallocs == s.reallocs + 1 && t.mallocs == s.mallocs + 1 && t.frees == s.frees);
    CHECK(t.bytes_requested == s.bytes_requested + 64 + 5000);
    s = t;
    unsigned char *fresh_block = mm_realloc(NULL, 300);   /* realloc(NULL, n) is a malloc too */
    t = stats();
    CHECK(fresh_block != NULL && t.reallocs == s.reallocs + 1 && t.mallocs == s.mallocs + 1);
    s = t;
    CHECK(mm_realloc(fresh_block, 0) == NULL);            /* realloc(p, 0) is a free too */
    t = stats();
    CHECK(t.reallocs == s.reallocs + 1 && t.frees == s.frees + 1 && t.mallocs == s.mallocs);
    put(moved);
    put(above);
    put(guard);
    t = stats();
    CHECK(t.peak_heap == mem_heapsize() && t.frees == 5 && t.mallocs == 5);
}

/* Before any mm_init (the shim reports even when its start failed, into a
 * struct on its stack), mm_stats fills in zeros: none of the caller's bytes stay. */
static void test_stats_before_init(void)
{
    mm_stats_t s;
    memset(&s, 0xA5, sizeof s);
    mm_stats(&s);
    mm_stats_t zero;
    memset(&zero, 0, sizeof zero);
    CHECK(memcmp(&s, &zero, sizeof s) == 0);
}

/* mm_init resets everything: a second heap starts from scratch. */
static void test_reinit(void)
{
    fresh();
    put(get(5000, 1));
    fresh();
    mm_stats_t s = stats();
    CHECK(s.mallocs == 0 && s.frees == 0 && s.extensions <= 1);
    put(get(100, 2));
}

/* One fixed workload from a fresh heap: where each block landed (as an offset
 * in the heap), the heap's size after, and the counters. */
enum { SAME_SLOTS = 40, SAME_OPS = 400 };
struct run_record {
    size_t at[SAME_OPS], heap;
    mm_stats_t stats;
};

static void same_workload(struct run_record *rec)
{
    fresh();
    /* a long malloc/free loop on a small heap first: a count of calls kept
     * outside the state (best's few_mallocs) would carry into the next heap */
    for (int i = 0; i < 40000; i++)
        mm_free(mm_malloc(100));
    unsigned char *p[SAME_SLOTS] = {0};
    uint64_t x = 0x2545F4914F6CDD1Du;
    for (int op = 0; op < SAME_OPS; op++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int i = (int)(x % SAME_SLOTS);
        size_t n = (x >> 20) % 3000 + 1;
        if (!p[i])
            p[i] = get(n, (unsigned)i);
        else if ((x >> 40) % 3 == 0)
            CHECK((p[i] = mm_realloc(p[i], n)) != NULL);
        else
            put(p[i]), p[i] = NULL;
        rec->at[op] = p[i] ? (size_t)(p[i] - (unsigned char *)mem_heap_lo()) : 0;
    }
    for (int i = 0; i < SAME_SLOTS; i++)
        put(p[i]);
    rec->heap = mem_heapsize();
    rec->stats = stats();
}

/* mm_init resets all the state: the same calls on a new heap give the same
 * blocks, heap and counters as on the first. */
static void test_reinit_same(void)
{
    static struct run_record first, second;
    same_workload(&first);
    same_workload(&second);
    for (int op = 0; op < SAME_OPS; op++)
        if (first.at[op] != second.at[op])
            printf("op %d: block at offset %zu, %zu the first time\n", op, second.at[op], first.at[op]);
    CHECK(memcmp(first.at, second.at, sizeof first.at) == 0);
    CHECK(first.heap == second.heap);
    CHECK(memcmp(&first.stats, &second.stats, sizeof first.stats) == 0);
}

static const struct {
    const char *name;
    void (*run)(void);
} tests[] = {
    {"edge_sizes", test_edge_sizes},
    {"realloc_contract", test_realloc_contract},
    {"split_threshold", test_split_threshold},
    {"split_exact", test_split_exact},
    {"tag_bytes", test_tag_bytes},
    {"coalesce_none", test_coalesce_none},
    {"coalesce_prev", test_coalesce_prev},
    {"coalesce_next", test_coalesce_next},
    {"coalesce_both", test_coalesce_both},
    {"coalesce_small_later", test_coalesce_small_later},
    {"realloc_shrink", test_realloc_shrink},
    {"realloc_absorb", test_realloc_absorb},
    {"realloc_absorb_rest", test_realloc_absorb_rest},
    {"realloc_shrink_split", test_realloc_shrink_split},
    {"realloc_grow_at_end", test_realloc_grow_at_end},
    {"realloc_grow_under_free_top", test_realloc_grow_under_free_top},
    {"realloc_move_no_growth", test_realloc_move_no_growth},
    {"realloc_move", test_realloc_move},
    {"realloc_copies", test_realloc_copies},
    {"rover_after_coalesce", test_rover_after_coalesce},
    {"rover_after_growth", test_rover_after_growth},
    {"insertion_order", test_insertion_order},
    {"fit_policy", test_fit_policy},
    {"best_fit_exact_later", test_best_fit_exact_later},
    {"worst_fit_largest_by_a_unit", test_worst_fit_largest_by_a_unit},
    {"larger_class_fit", test_larger_class_fit},
    {"class_best_fit", test_class_best_fit},
    {"class_boundaries", test_class_boundaries},
    {"class_neighbours", test_class_neighbours},
    {"top_block_unprobed", test_top_block_unprobed},
    {"top_block_exact", test_top_block_exact},
    {"grow_by_lack", test_grow_by_lack},
    {"out_of_heap", test_out_of_heap},
    {"heap_past_4g", test_heap_past_4g},
    {"random", test_random},
    {"stats_counts", test_stats_counts},
    {"stats_before_init", test_stats_before_init},
    {"reinit", test_reinit},
    {"reinit_same", test_reinit_same},
};

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
            puts(tests[i].name);
        return 0;
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--in-place") == 0)
            in_place = true;
        else if (strcmp(argv[i], "--copies") == 0)
            copies = true;
        else if (strcmp(argv[i], "--offsets32") == 0)
            offsets32 = true;
        else if (strcmp(argv[i], "--zero-null") == 0)
            zero_null = true;
        else if (strcmp(argv[i], "--grow-by-lack") == 0)
            grow_by_lack = true;
        else if (strcmp(argv[i], "--class-best") == 0)
            class_best = true;
        else if (strncmp(argv[i], "--fit=", 6) == 0)
            fit = argv[i] + 6;
        else if (strncmp(argv[i], "--order=", 8) == 0)
            order = argv[i] + 8;
        else if (strncmp(argv[i], "--tags=", 7) == 0)
            tag_bytes = strtoul(argv[i] + 7, NULL, 10);
        else if (strncmp(argv[i], "--split=", 8) == 0)
            split_rest = strtoul(argv[i] + 8, NULL, 10);
    }
    mem_init();
    for (size_t i = 0; argc >= 2 && i < sizeof tests / sizeof tests[0]; i++) {
        if (strcmp(argv[1], tests[i].name) == 0) {
            tests[i].run();
            puts("ok");
            return 0;
        }
    }
    fprintf(stderr, "usage: unit TEST [--in-place] [--copies] [--split=N] [--tags=N] [--offsets32] [--order=P] [--fit=P] [--class-best]\n"
                    "            [--zero-null] [--grow-by-lack] | --list\n");
    return 2;
}
