/*
 * unit_realloc.c - the realloc ladder of every variant, black-box: its contract (NULL, 0),
 * shrink, absorb, grow at the heap's end, move, and a copying card's moves.
 * Run through unit.c (its list and flags).
 */
#include "unit.h"

/* realloc(NULL, n) is malloc(n); realloc(p, 0) frees p and returns NULL. */
void test_realloc_contract(void)
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

/* Shrinking keeps the data (and the place, for in-place variants). */
void test_realloc_shrink(void)
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
void test_realloc_absorb(void)
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
void test_realloc_absorb_rest(void)
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
void test_realloc_shrink_split(void)
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
void test_realloc_grow_at_end(void)
{
    fresh();
    unsigned char *low = get(200, 30), *p = get(300, 31);
    size_t heap = mem_heapsize();
    mm_stats_t s = stats();
    unsigned char *q = mm_realloc(p, 5000);
    CHECK(q != NULL && mm_checkheap(__LINE__));
    CHECK(intact(q, 300, 31));
    if (in_place) {
        CHECK(q == p && stats().reallocs_in_place == s.reallocs_in_place + 1);
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
void test_realloc_copies(void)
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
void test_realloc_grow_under_free_top(void)
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
void test_realloc_move_no_growth(void)
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
void test_realloc_move(void)
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
