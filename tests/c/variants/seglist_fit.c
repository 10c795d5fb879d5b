/*
 * seglist_fit.c - the segregated variants' search, as their cards state it:
 * "class k holds free blocks of [32 << k, 64 << k) bytes; the last class holds
 * everything larger" (seglist.h), "first fit among the first 8 blocks of the
 * request's class, else the first block of the next non-empty larger class".
 *
 * The checker cannot see these: it files blocks with the same class_of the
 * allocator uses, and a search that skips a class or probes one block too many
 * leaves a valid heap.  So each case builds a few free blocks of chosen sizes,
 * guards between them, and asserts which one a request gets.  It includes one
 * variant whole (-DVARIANT_SRC='"variants/segregated.c"') only for the block
 * layout: the sizes and the number of probes are the card's, written out.
 *
 *   seglist-fit CASE     exit 0 when the rule holds; CASE is class-edges,
 *                        next-class or probes
 */
#include VARIANT_SRC

#include <stdlib.h>

#include "driver/heap.h"
#include "expect.h"

enum { CARD_PROBES = 8, GUARD = 16 };

static void fresh(void)
{
    heap_restart(true);
    CHECK(mm_init() == 0);
}

/* A block of exactly `size` bytes (a multiple of the alignment, >= 32), then a
 * small guard above it so that freeing it merges with nothing. */
static void *block_of(size_t size)
{
    void *p = mm_malloc(size - CORE_OVERHEAD);
    CHECK(p != NULL && blk_size(p) == size);
    CHECK(mm_malloc(GUARD) != NULL);
    return p;
}

/* The block a request for a block of `size` bytes gets, the heap checked after. */
static void *request(size_t size)
{
    void *p = mm_malloc(size - CORE_OVERHEAD);
    CHECK(p != NULL && mm_checkheap(__LINE__));
    return p;
}

/* Are free blocks of sizes a < b in one class?  Freed a then b, b heads its
 * list; a request of a bytes probes a's class first fit: b when they share
 * it, a alone when b lies in a class above. */
static bool same_class(size_t a, size_t b)
{
    fresh();
    void *pa = block_of(a), *pb = block_of(b);
    mm_free(pa);
    mm_free(pb);
    void *got = request(a);
    CHECK(got == pa || got == pb);
    return got == pb;
}

static size_t edge(unsigned k) { return (size_t)32 << k; }

/* Both ends of each class share it; a block one alignment unit below a class's
 * start is in the class below; the last class takes everything larger, past
 * 4 GiB too. */
static void case_class_edges(void)
{
    for (unsigned k = 0; k < CORE_CLASSES; k++) {
        size_t top = k + 1 < CORE_CLASSES ? 2 * edge(k) - MM_ALIGNMENT : 3 * edge(k);
        if (!same_class(edge(k), top))
            printf("blocks of %zu and %zu bytes are not both in class %u\n", edge(k), top, k);
        CHECK(same_class(edge(k), top));
        if (k == 0)
            continue;
        if (same_class(edge(k) - MM_ALIGNMENT, edge(k)))
            printf("a block of %zu bytes is in class %u with one of %zu\n", edge(k) - MM_ALIGNMENT, k, edge(k));
        CHECK(!same_class(edge(k) - MM_ALIGNMENT, edge(k)));
    }
    /* sizes are 64-bit: a block past 4 GiB is in the last class, not filed by its low 32 bits */
    size_t past_4g = ((size_t)4 << 30) + 256;
    if (!same_class(edge(CORE_CLASSES - 1), past_4g))
        printf("a block of %zu bytes is not in the last class\n", past_4g);
    CHECK(same_class(edge(CORE_CLASSES - 1), past_4g));
}

/* The request's class is empty: it gets the block of the next non-empty class
 * up, not one of the class above that (freed later, so first on a LIFO walk). */
static void case_next_class(void)
{
    for (unsigned k = 0; k + 2 < CORE_CLASSES; k++) {
        fresh();
        void *next = block_of(edge(k + 1)), *above = block_of(edge(k + 2));
        mm_free(next);
        mm_free(above);
        void *got = request(edge(k));
        if (got != next)
            printf("class %u empty: got the block of class %s\n", k, got == above ? "k + 2" : "none freed");
        CHECK(got == next);
    }
}

/* A request's own class holds `small` blocks too small for it, freed after the
 * one that fits, so ahead of it on the LIFO list; a larger class holds one
 * more.  Whether the request got the block of its own class. */
static bool probe_reaches(int small)
{
    const size_t fits = 400, too_small = 256, larger = 1024;   /* classes 3, 3 and 5 */
    fresh();
    void *big = block_of(larger), *fit = block_of(fits), *s[CARD_PROBES + 1];
    for (int i = 0; i < small; i++)
        s[i] = block_of(too_small);
    mm_free(big);
    mm_free(fit);
    for (int i = 0; i < small; i++)
        mm_free(s[i]);
    void *got = request(fits);
    CHECK(got == fit || got == big);
    return got == fit;
}

/* The search probes 8 blocks of the request's class: the fitting block is
 * reached behind 7 too small, and passed over behind 8 for the larger class. */
static void case_probes(void)
{
    for (int small = 0; small <= CARD_PROBES; small++) {
        bool want = small < CARD_PROBES;
        if (probe_reaches(small) != want)
            printf("behind %d too small blocks, the fitting one was %s\n", small, want ? "passed over" : "probed");
        CHECK(probe_reaches(small) == want);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    heap_configure((size_t)6 << 30);       /* room for a block past 4 GiB; only tags are written */
    mem_init();
    if (!strcmp(argv[1], "class-edges"))
        case_class_edges();
    else if (!strcmp(argv[1], "next-class"))
        case_next_class();
    else if (!strcmp(argv[1], "probes"))
        case_probes();
    else
        return 2;
    puts("ok");
    return 0;
}
