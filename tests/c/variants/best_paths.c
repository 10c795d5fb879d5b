/*
 * best_paths.c - the rules of best's runs, realloc ladder and entry points
 * (variants/best.c's card), each on a small heap built by hand, and the
 * statistics each path counts (mm_stats.h's fields).
 *
 *   best-paths        run every case; exit 0 when all pass
 *   best-paths NAME   run one
 *
 * This includes best.c whole, to tell which mode the heap is in (few(): one
 * list, no class tables) and whether a block is a run's slot or kept on a
 * quick list, so that each case knows it reached the path it is about.
 */
#include "variants/best.c"

#include <stdlib.h>

#include "driver/heap.h"

static bool failed;

static void check(bool ok, const char *what, int line)
{
    if (!ok) {
        printf("line %d: %s\n", line, what);
        failed = true;
    }
}
#define CHECK(cond) check((cond), #cond, __LINE__)

static mm_stats_t counters(void)
{
    mm_stats_t s;
    mm_stats(&s);
    return s;
}

/* A fresh heap; `classed`: with the class tables, added as a heap that has
 * grown past FEW_HEAP_SHIFT adds them (a large block, freed: the heap's top). */
static void fresh(bool classed, size_t heap)
{
    heap_restart(true);
    if (mm_init() != 0)
        exit(2);
    if (classed) {
        void *p = mm_malloc(heap);
        mm_free(p);
    }
    if (few() == classed)
        exit(2);
}

/* The cases' heap: classed, HEAP bytes, so that a block of 4000 bytes
 * or more is large for realloc (heap / BIG_DIV is about 2.3 KiB) and one of
 * 2000 or less is not, while all are small for placement (the mean of the
 * requests, started by the heap's one large block, puts them at the bottom
 * of the free block at the top, in the order they are made). */
enum { HEAP = 600000 };

/* An allocated block of exactly bsize bytes (a multiple of 16, at least
 * QUICK_LIMIT: no quick list, no run), its payload filled from seed. */
static unsigned char *blk(size_t bsize, unsigned char seed)
{
    unsigned char *p = mm_malloc(bsize - CB_WSIZE);
    if (!p || cb_size(p) != bsize)
        exit(2);
    for (size_t i = 0; i < bsize - CB_WSIZE; i++)
        p[i] = (unsigned char)(seed + i);
    return p;
}

static bool holds(const unsigned char *p, size_t n, unsigned char seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed + i))
            return false;
    return true;
}

/* Were the blocks made in address order (the layout each case relies on)? */
static bool ascending(void **b, int n)
{
    for (int i = 1; i < n; i++)
        if ((char *)b[i] <= (char *)b[i - 1])
            return false;
    return true;
}
#define ASCENDING(...) ascending((void *[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))

/* Blocks of n bytes until one is a run's slot (runs open once RUN_MIN_LIVE
 * small blocks live); 32 bytes' header would cost a unit at either alignment. */
static void *first_slot(size_t n)
{
    for (int i = 0; i < 4 * RUN_MIN_LIVE; i++) {
        void *p = mm_malloc(n);
        if (p && in_run(p))
            return p;
    }
    return NULL;
}

/* A slot of an open run is a request served without new heap: a reuse, in
 * either mode (mm_malloc's fast path, or alloc_any's on one list). */
static void test_slot_reuse(void)
{
    for (int classed = 0; classed < 2; classed++) {
        fresh(classed, 60000);
        void *p = first_slot(32);
        mm_stats_t s = counters();
        void *q = mm_malloc(32);
        mm_stats_t t = counters();
        CHECK(p && q && in_run(q) && run_holding(q) == run_holding(p));
        CHECK(t.reuses == s.reuses + 1 && t.mallocs == s.mallocs + 1 && t.bytes_requested == s.bytes_requested + 32);
        CHECK(t.extensions == s.extensions && t.splits == s.splits);
        CHECK(mm_checkheap(__LINE__));
    }
}

/* A freed small block with an allocated block below is kept on its quick list:
 * it counts as a free block, and the next request of its size that pops it
 * is a reuse, in either mode. */
static void test_kept_reuse(void)
{
    for (int classed = 0; classed < 2; classed++) {
        fresh(classed, 60000);
        void *a = mm_malloc(100), *b = mm_malloc(100);
        mm_stats_t s = counters();
        mm_free(a);
        mm_stats_t t = counters();
        CHECK(a && b && is_kept(a));
        CHECK(t.frees == s.frees + 1 && t.free_blocks == s.free_blocks + 1);
        s = t;
        void *c = mm_malloc(100);
        t = counters();
        CHECK(c == a && t.reuses == s.reuses + 1 && t.mallocs == s.mallocs + 1);
        CHECK(t.free_blocks == s.free_blocks - 1 && t.extensions == s.extensions);
        CHECK(mm_checkheap(__LINE__));
    }
}

/* A slot realloc'd within its size stays (in place); past it, it moves: one
 * realloc, no malloc or free, its bytes kept. */
static void test_slot_realloc(void)
{
    for (int classed = 0; classed < 2; classed++) {
        fresh(classed, 60000);
        unsigned char *p = first_slot(32);
        CHECK(p != NULL);
        if (!p)
            continue;
        memset(p, 0x5a, 32);
        mm_stats_t s = counters();
        CHECK(mm_realloc(p, 32) == p);
        mm_stats_t t = counters();
        CHECK(t.reallocs == s.reallocs + 1 && t.reallocs_in_place == s.reallocs_in_place + 1);
        CHECK(t.bytes_requested == s.bytes_requested + 32);
        s = t;
        unsigned char *q = mm_realloc(p, 200);
        t = counters();
        CHECK(q && q != p && !in_run(q));
        CHECK(t.reallocs == s.reallocs + 1 && t.reallocs_in_place == s.reallocs_in_place);
        CHECK(t.mallocs == s.mallocs && t.frees == s.frees && t.bytes_requested == s.bytes_requested + 200);
        for (int i = 0; q && i < 30; i++)
            CHECK(q[i] == 0x5a);
        CHECK(mm_checkheap(__LINE__));
    }
}

/* A growing block with no hole to go to and none above or below is copied to
 * a new block: a kept block of its size is that block, a reuse (no new heap). */
static void test_realloc_reuses_kept(void)
{
    fresh(false, 0);
    unsigned char *g0 = blk(1008, 0), *p = mm_malloc(100), *g1 = blk(1008, 0), *k = mm_malloc(300),
                  *g2 = blk(1008, 0);
    void *top = top_free();
    if (top)
        blk(cb_size(top), 0);               /* no free block left */
    CHECK(ASCENDING(g0, p, g1, k, g2) && !top_free());
    for (int i = 0; i < 100; i++)
        p[i] = (unsigned char)(9 + i);
    mm_free(k);
    CHECK(is_kept(k));
    mm_stats_t s = counters();
    unsigned char *q = mm_realloc(p, 300);
    mm_stats_t t = counters();
    CHECK(q == k && holds(q, 100, 9) && t.reuses == s.reuses + 1 && t.extensions == s.extensions);
    CHECK(mm_checkheap(__LINE__));
}

/* A realloc refused (past MAX_REQUEST) counts as a call but requests no
 * bytes, as a malloc refused counts nothing; the block stays. */
static void test_refused_realloc(void)
{
    fresh(false, 0);
    unsigned char *p = mm_malloc(1000);
    memset(p, 7, 1000);
    mm_stats_t s = counters();
    CHECK(mm_realloc(p, MAX_REQUEST + 1) == NULL);
    mm_stats_t t = counters();
    CHECK(t.reallocs == s.reallocs + 1 && t.bytes_requested == s.bytes_requested);
    CHECK(t.reallocs_in_place == s.reallocs_in_place && p[999] == 7 && mm_checkheap(__LINE__));
}

/* Every malloc path counts the block and its bytes once, and every free once:
 * a seeded mix over the sizes each path serves (small runs, kept blocks,
 * medium runs, which open once enough 128-byte blocks live, ordinary and
 * huge blocks), from the one-list heap into the classed one. */
static void test_counts_every_path(void)
{
    enum { LIVE = 600, OPS = 6000 };
    static const size_t sizes[] = {8, 16, 20, 32, 48, 60, 100, 128, 128, 128, 200, 240, 384, 600, 1000, 5000, 70000};
    void *live[LIVE] = {0};
    uint64_t mallocs = 0, frees = 0, bytes = 0;
    unsigned seed = 12345;
    fresh(false, 0);
    for (int op = 0; op < OPS; op++) {
        seed = seed * 1103515245u + 12345u;
        unsigned i = (seed >> 8) % LIVE;
        if (live[i]) {
            mm_free(live[i]);
            live[i] = NULL;
            frees++;
        } else {
            size_t n = sizes[(seed >> 20) % (sizeof sizes / sizeof sizes[0])];
            if ((live[i] = mm_malloc(n))) {
                mallocs++;
                bytes += n;
            }
        }
    }
    /* then a run of one medium size, which leads the vote at 8-byte alignment */
    for (int i = 0; i < LIVE; i++) {
        if (live[i]) {
            mm_free(live[i]);
            frees++;
        }
        if ((live[i] = mm_malloc(128))) {
            mallocs++;
            bytes += 128;
        }
    }
    mm_stats_t t = counters();
    CHECK(!few() && st->runs && t.mallocs == mallocs && t.frees == frees && t.bytes_requested == bytes);
    CHECK(mm_checkheap(__LINE__));
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"slot_reuse", test_slot_reuse},
    {"kept_reuse", test_kept_reuse},
    {"slot_realloc", test_slot_realloc},
    {"realloc_reuses_kept", test_realloc_reuses_kept},
    {"refused_realloc", test_refused_realloc},
    {"counts_every_path", test_counts_every_path},
};

int main(int argc, char **argv)
{
    mem_init();
    int ran = 0, failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
            continue;
        failed = false;
        cases[i].run();
        printf("%s: %s\n", cases[i].name, failed ? "FAILED" : "ok");
        ran++;
        failures += failed;
    }
    return ran && !failures ? 0 : 1;
}
