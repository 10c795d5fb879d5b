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

/* A kept block is popped by the next request of its size, before any list
 * search (the card's quick lists): a free block elsewhere that would fit
 * stays as it is.  Both kinds of request that may come to a kept block by
 * the one path, alloc_any: a malloc on the one-list heap, and a run's slot
 * realloc'd past its size (either mode). */
static void test_kept_before_hole(void)
{
    for (int slot = 0; slot < 2; slot++)
        for (int classed = 0; classed < 2; classed++) {
            if (!slot && classed)
                continue;                    /* (mm_malloc pops a classed heap's own way) */
            fresh(classed, 60000);
            unsigned char *p = slot ? first_slot(32) : NULL;
            unsigned char *g0 = blk(1008, 0), *h = blk(1008, 0), *g1 = blk(1008, 0), *k = mm_malloc(100),
                          *g2 = blk(1008, 0);
            CHECK(ASCENDING(g0, h, g1, k, g2) && (!slot || p));
            if (slot && p)
                memset(p, 0x3c, 32);
            mm_free(h);
            mm_free(k);
            CHECK(is_kept(k) && !cb_alloc(h) && few() == !classed);
            unsigned char *q = slot ? (p ? mm_realloc(p, 100) : NULL) : mm_malloc(100);
            CHECK(q == k && !cb_alloc(h) && cb_size(h) == 1008);
            for (int i = 0; slot && q && i < 32; i++)
                CHECK(q[i] == 0x3c);
            CHECK(mm_checkheap(__LINE__));
        }
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

/* ------------------------------------------------------------ the realloc ladder */

/* Shrinking: a block that is not large moves down to the bottom of the
 * tightest lower hole that fits (the whole block goes back); a large one to
 * the bottom of the lowest. */
static void test_shrink_moves_down(void)
{
    fresh(true, HEAP);
    unsigned char *g0 = blk(1008, 0), *h = blk(1504, 0), *g1 = blk(1008, 0), *p = blk(3008, 1), *g2 = blk(1008, 0);
    CHECK(ASCENDING(g0, h, g1, p, g2));
    mm_free(h);
    unsigned char *q = mm_realloc(p, 1200);
    CHECK(q == h && holds(q, 1200, 1) && mm_checkheap(__LINE__));

    fresh(true, HEAP);
    g0 = blk(1008, 0);
    unsigned char *h1 = blk(12000, 0);
    g1 = blk(1008, 0);
    unsigned char *h2 = blk(6000, 0);
    g2 = blk(1008, 0);
    p = blk(8000, 2);
    unsigned char *g3 = blk(1008, 0);
    CHECK(ASCENDING(g0, h1, g1, h2, g2, p, g3));
    mm_free(h1);
    mm_free(h2);
    q = mm_realloc(p, 5000);                 /* large: the lowest hole, not the tightest */
    CHECK(q == h1 && holds(q, 5000, 2) && mm_checkheap(__LINE__));
}

/* Shrinking in place: a large block (heap / BIG_DIV bytes or more) with a
 * free block just below, too small to move to, slides down into it; a block
 * just under that size stays. */
static void test_shrink_slides_large(void)
{
    for (int large = 0; large < 2; large++) {
        fresh(true, HEAP);
        unsigned char *g0 = blk(1008, 0), *f = blk(1008, 0), *p = blk(8000, 3), *g1 = blk(1008, 0);
        size_t cut = cb_round_up(heap_span() / BIG_DIV, 16);
        size_t want = (large ? cut : cut - 16) - CB_WSIZE;
        CHECK(ASCENDING(g0, f, p, g1) && cut > 1008 + 16);
        mm_free(f);
        mm_stats_t s = counters();
        unsigned char *q = mm_realloc(p, want);
        mm_stats_t t = counters();
        CHECK(q == (large ? f : p) && holds(q, want, 3) && mm_checkheap(__LINE__));
        CHECK(t.reallocs_in_place == s.reallocs_in_place + 1 && t.coalesces == s.coalesces + (unsigned)large);
    }
}

/* Growing: a block kept on a quick list just above is freed for real, and
 * the block takes it in, in place. */
static void test_grow_into_kept(void)
{
    fresh(true, HEAP);
    unsigned char *g0 = blk(1008, 0), *p = blk(1008, 9), *k = mm_malloc(200), *g1 = blk(1008, 0);
    CHECK(ASCENDING(g0, p, k, g1));
    size_t ksize = cb_size(k);
    mm_free(k);
    CHECK(is_kept(k));
    mm_stats_t s = counters();
    unsigned char *q = mm_realloc(p, 1008 + ksize - CB_WSIZE);
    mm_stats_t t = counters();
    CHECK(q == p && holds(q, 1004, 9) && t.reallocs_in_place == s.reallocs_in_place + 1);
    CHECK(t.extensions == s.extensions && mm_checkheap(__LINE__));
}

/* Growing: with no hole elsewhere tighter, the block slides down into the
 * free block below (the payload moves, nothing is copied elsewhere): one
 * merge, in place as the ladder counts it. */
static void test_grow_slides_down(void)
{
    fresh(true, HEAP);
    unsigned char *g0 = blk(1008, 0), *f = blk(1008, 0), *p = blk(2016, 4), *g1 = blk(1008, 0);
    CHECK(ASCENDING(g0, f, p, g1));
    mm_free(f);
    mm_stats_t s = counters();
    unsigned char *q = mm_realloc(p, 2508);
    mm_stats_t t = counters();
    CHECK(q == f && holds(q, 2012, 4) && mm_checkheap(__LINE__));
    CHECK(t.coalesces == s.coalesces + 1 && t.reallocs_in_place == s.reallocs_in_place + 1);
    CHECK(t.extensions == s.extensions);
}

/* Growing: a hole elsewhere that the block fills more tightly than the free
 * block above would wins; one exactly as tight does not (tighter, not as
 * tight: the block absorbs the one above). */
static void test_grow_tighter_hole(void)
{
    for (int tie = 0; tie < 2; tie++) {
        fresh(true, HEAP);
        size_t above = tie ? 592 : 1504;       /* the rest above: 96 (as the hole's) or 1008 */
        unsigned char *g0 = blk(1008, 0), *h = blk(2096, 0), *g1 = blk(1008, 0), *p = blk(1504, 5),
                      *a = blk(above, 0), *g2 = blk(1008, 0);
        CHECK(ASCENDING(g0, h, g1, p, a, g2) && !is_big(2000));
        mm_free(h);
        mm_free(a);
        mm_stats_t s = counters();
        unsigned char *q = mm_realloc(p, 1996);
        mm_stats_t t = counters();
        CHECK(q == (tie ? p : h) && holds(q, 1500, 5) && mm_checkheap(__LINE__));
        CHECK(t.reallocs_in_place == s.reallocs_in_place + (unsigned)tie);
        CHECK(t.coalesces == s.coalesces + 1);   /* p's old block and a merge; or p takes in a */
    }
}

/* Growing at the heap's top (the last block, or below the free block at the
 * top): the heap grows under the block only when no hole fits; with one, the
 * block moves into it and the heap stays. */
static void test_grow_at_top(void)
{
    for (int hole = 0; hole < 2; hole++)
        for (int free_above = 0; free_above < 2; free_above++) {
            fresh(false, 0);
            unsigned char *g0 = blk(1008, 0), *h = blk(5008, 0), *g1 = blk(1008, 0);
            void *top = top_free();
            unsigned char *p = top ? blk(cb_size(top), 6) : blk(2016, 6);     /* the last block */
            size_t have = cb_size(p);
            if (free_above)                  /* a block above it, at the heap's top, freed */
                mm_free(blk(1008, 0));
            CHECK(ASCENDING(g0, h, g1, p) && cb_next(p) == (free_above ? top_free() : heap_brk()));
            size_t room = have + (free_above ? cb_size(cb_next(p)) : 0);
            CHECK(room < 4000);
            if (hole)
                mm_free(h);
            mm_stats_t s = counters();
            unsigned char *q = mm_realloc(p, 4000);
            mm_stats_t t = counters();
            CHECK(hole ? q >= h && q + 4000 <= h + 5008 : q == p);
            CHECK(holds(q, have - CB_WSIZE, 6) && mm_checkheap(__LINE__));
            CHECK(t.extensions == s.extensions + !hole);
        }
}

/* Growing at the heap's top into the free block there: the block takes it
 * in, even with a hole elsewhere that it would fill more tightly (the hole
 * search is for blocks below the top). */
static void test_grow_at_top_absorbs(void)
{
    fresh(false, 0);
    unsigned char *g0 = blk(1008, 0), *h = blk(2608, 0), *g1 = blk(1008, 0);
    void *top = top_free();
    unsigned char *p = top ? blk(cb_size(top), 6) : blk(2016, 6);
    size_t have = cb_size(p);
    mm_free(blk(1008, 0));
    size_t room = have + cb_size(cb_next(p)), asize = adjust(have + 500);
    CHECK(ASCENDING(g0, h, g1, p) && cb_next(p) == top_free() && asize < 2608 && 2608 - asize < room - asize);
    mm_free(h);
    mm_stats_t s = counters();
    unsigned char *q = mm_realloc(p, have + 500);
    mm_stats_t t = counters();
    CHECK(q == p && holds(q, have - CB_WSIZE, 6) && mm_checkheap(__LINE__));
    CHECK(t.extensions == s.extensions && t.reallocs_in_place == s.reallocs_in_place + 1);
}

/* A large block growing into the free block above keeps the rest when it is
 * under 1/8 of its size (room to grow), and splits it off when it is not. */
static void test_grow_keeps_slack(void)
{
    for (int over = 0; over < 2; over++) {
        fresh(true, HEAP);
        size_t asize = 7600, rest = over ? 960 : 944;  /* asize / 8 = 950 */
        unsigned char *g0 = blk(1008, 0), *p = blk(4000, 7), *a = blk(asize + rest - 4000, 0), *g1 = blk(1008, 0);
        CHECK(ASCENDING(g0, p, a, g1) && is_big(asize));
        mm_free(a);
        unsigned char *q = mm_realloc(p, asize - CB_WSIZE);
        CHECK(q == p && holds(q, 3996, 7) && mm_checkheap(__LINE__));
        CHECK(cb_size(q) == (over ? asize : asize + rest));
    }
}

/* Requests of 100 bytes, each served by the same kept block s and freed
 * again, until the running mean of requests makes a block of asize bytes a
 * large one for placement (whose split would put it at a hole's top). */
static void lower_mean(void *s, size_t asize)
{
    for (int i = 0; i < 256 && is_small(asize); i++) {
        void *q = mm_malloc(100);
        CHECK(q == s);
        mm_free(q);
    }
    CHECK(!is_small(asize));
}

/* A large block growing into a hole elsewhere takes the bottom of the lowest
 * that fits, though the mean of requests would put a block of its size at
 * the top, and all of the hole when the rest would be under 1/8 of its size. */
static void test_grow_large_moves_low(void)
{
    for (int whole = 0; whole < 2; whole++) {
        fresh(true, HEAP);
        size_t hsize = whole ? 8400 : 12000;
        void *s = mm_malloc(100);
        unsigned char *g0 = blk(1008, 0), *h = blk(hsize, 0), *g1 = blk(1008, 0), *h2 = blk(7616, 0),
                      *g2 = blk(1008, 0), *p = blk(4000, 8), *g3 = blk(1008, 0);
        CHECK(ASCENDING(s, g0, h, g1, h2, g2, p, g3));
        mm_free(h);
        mm_free(h2);
        mm_free(s);
        lower_mean(s, 7600);
        unsigned char *q = mm_realloc(p, 7596);
        CHECK(q == h && holds(q, 3996, 8) && mm_checkheap(__LINE__));
        CHECK(cb_size(q) == (whole ? hsize : 7600));
    }
}

/* ------------------------------------------------------------ runs */

/* Only a size whose 4-byte header would cost a whole alignment unit takes a
 * run's slot: 20 bytes (a 24-byte block at 8, 32 at 16: the slot would cost
 * as much) never does, 32 bytes does once runs open. */
static void test_run_sizes(void)
{
    fresh(true, HEAP);
    bool any = false;
    for (int i = 0; i < 8 * RUN_MIN_LIVE; i++)
        any |= in_run(mm_malloc(20));
    CHECK(!any && st->small_live >= RUN_MIN_LIVE);
    CHECK(first_slot(32) != NULL && mm_checkheap(__LINE__));
}

/* Runs open once RUN_MIN_LIVE small blocks are live, not once that many were
 * made: small blocks made and freed one at a time (kept, or freed for real)
 * leave none live, and the run's size then takes a slot only with the
 * RUN_MIN_LIVE-th block live. */
static void test_runs_count_live_blocks(void)
{
    for (int classed = 0; classed < 2; classed++) {
        fresh(classed, 60000);
        for (int i = 0; i < 4 * RUN_MIN_LIVE; i++) {
            void *a = mm_malloc(20), *b = mm_malloc(8);   /* no run takes either size */
            CHECK(a && b && !in_run(a) && !in_run(b));
            mm_free(a);
            mm_free(b);
        }
        void *p[RUN_MIN_LIVE];
        for (int i = 0; i < RUN_MIN_LIVE; i++) {
            p[i] = mm_malloc(32);
            CHECK(p[i] && in_run(p[i]) == (i == RUN_MIN_LIVE - 1));
        }
        CHECK(mm_checkheap(__LINE__));
    }
}

/* The runs with slots of obj bytes; *packed: how many have the packed layout. */
static int runs_of(size_t obj, int *packed)
{
    int n = 0;
    *packed = 0;
    for (size_t g = 0; g < st->run_granules; g++) {
        unsigned state = granule_state(g);
        if (state != GR_TAIL && state != GR_HEAD)
            continue;
        run_t *r = meta_at(granule_at(g), state == GR_HEAD);
        if (r->obj == obj) {
            n++;
            *packed += state == GR_HEAD;
        }
    }
    return n;
}

/* No new run when a free block fits the request exactly (run_open: it costs
 * nothing, and a run would take heap a growing block may want): with runs
 * open to its size, a request whose block size a hole has exactly takes the
 * hole; one a hole would fit only with a rest opens a run. */
static void test_exact_hole_before_run(void)
{
    for (int exact = 0; exact < 2; exact++) {
        fresh(true, HEAP);
        size_t hsize = adjust(32) + (exact ? 0 : CB_ALIGN);
        for (int i = 0; i < RUN_MIN_LIVE; i++)
            CHECK(!in_run(mm_malloc(20)));   /* small blocks live: runs open */
        unsigned char *g0 = blk(1008, 0), *y = blk(1008, 0), *g1 = blk(1008, 0);
        CHECK(ASCENDING(g0, y, g1));
        mm_free(y);
        unsigned char *s = mm_malloc(1008 - hsize - CB_WSIZE);  /* leaves a hole of hsize */
        char *hole = s == y ? (char *)s + cb_size(s) : (char *)y;
        CHECK(s && cb_size(s) == 1008 - hsize && !cb_alloc(hole) && cb_size(hole) == hsize);
        int packed;
        CHECK(runs_of(32, &packed) == 0);
        void *q = mm_malloc(32);
        CHECK(q && in_run(q) == !exact && (q == hole) == exact && runs_of(32, &packed) == !exact);
        CHECK(mm_checkheap(__LINE__));
    }
}

/* Requests of obj bytes (a small run's size) into slot[], until RUN_LONG_LIVE
 * short runs of obj live, all full; how many were made. */
enum { FILL_MAX = 2000 };
static int fill_short_runs(size_t obj, void **slot)
{
    int n = 0, runs, packed;
    while (n < FILL_MAX && (runs = runs_of(obj, &packed)) <= RUN_LONG_LIVE) {
        if (runs == RUN_LONG_LIVE && run_index()->open[obj / CB_ALIGN] == 0)
            break;
        slot[n++] = mm_malloc(obj);
    }
    return n;
}

/* A small size whose runs multiply gets long (packed) runs once RUN_LONG_LIVE
 * runs of it live: the one that opens then is long, the ones before are
 * not; a run that empties goes back and no longer counts. */
static void test_long_runs(void)
{
    size_t obj = RUN_SMALL_MAX - CB_ALIGN, size = obj;      /* 48 bytes at 16, 56 at 8 */
    CHECK(long_geom(obj).span > 0);
    for (int release = 0; release < 2; release++) {
        fresh(true, HEAP);
        static void *slot[FILL_MAX];
        int n = fill_short_runs(obj, slot), packed;
        CHECK(runs_of(obj, &packed) == RUN_LONG_LIVE && packed == 0);
        if (release) {                       /* empty the last one: it goes back */
            char *p0 = run_holding(slot[n - 1]);
            for (int i = 0; i < n; i++)
                if (slot[i] && run_holding(slot[i]) == p0) {
                    mm_free(slot[i]);
                    slot[i] = NULL;
                }
            CHECK(runs_of(obj, &packed) == RUN_LONG_LIVE - 1);
        }
        void *p = mm_malloc(size);           /* a new run: long once 16 live */
        runs_of(obj, &packed);
        CHECK(p && in_run(p) && packed == (release ? 0 : 1));
        CHECK(mm_checkheap(__LINE__));
    }
}

/* A request takes a slot of an open run before a new run opens (run_alloc),
 * a long run's too: for each small size that gets long runs, the request
 * after the one that opened a long run takes that run's next slot. */
static void test_long_run_fills_first(void)
{
    int sizes = 0;
    for (unsigned c = LONG_CLASS0; c < SMALL_CLASSES; c++) {
        size_t obj = c * CB_ALIGN;
        if (obj < RUN_MIN_OBJ || !long_geom(obj).span)
            continue;
        sizes++;
        fresh(true, HEAP);
        static void *slot[FILL_MAX];
        int packed;
        fill_short_runs(obj, slot);
        CHECK(runs_of(obj, &packed) == RUN_LONG_LIVE && packed == 0);
        void *p = mm_malloc(obj), *q = mm_malloc(obj);
        CHECK(runs_of(obj, &packed) == RUN_LONG_LIVE + 1 && packed == 1);
        CHECK(p && q && in_run(p) && run_holding(q) == run_holding(p));
        CHECK(mm_checkheap(__LINE__));
    }
    CHECK(sizes >= 2);
}

/* A run opened in a hole takes a granule-aligned part of it: the hole is
 * split, the parts below and above staying free (two splits, one more free
 * block), and the heap stays. */
static void test_run_in_hole(void)
{
    fresh(true, HEAP);
    unsigned char *h = blk(4000, 0), *g = blk(1008, 0);
    void *p = first_slot(32);
    while (p && run_index()->open[32 / CB_ALIGN])      /* fill the first run */
        p = mm_malloc(32);
    CHECK(p && ASCENDING(h, g, p));
    mm_free(h);
    mm_stats_t s = counters();
    char *q = mm_malloc(32);
    mm_stats_t t = counters();
    char *p0 = q ? run_holding(q) : NULL;
    CHECK(p0 && p0 > (char *)h && p0 + RUN_BYTES < (char *)h + 4000);
    CHECK(t.splits == s.splits + 2 && t.free_blocks == s.free_blocks + 1 && t.extensions == s.extensions);
    CHECK(mm_checkheap(__LINE__));
}

/* A medium run opens in a hole (never in new heap while a free block fits the
 * request) and takes as much of the hole as it can use: what it leaves above
 * is less than a granule, unless it spans RUN_MAX_SPAN granules. */
static void test_medium_run_stretches(void)
{
    fresh(true, HEAP);
    unsigned char *h = blk(6000, 0), *g = blk(1008, 0);
    static void *mid[300];
    bool any = false;
    for (int i = 0; i < 300; i++)            /* enough to earn runs (16) or lead the vote (8) */
        any |= in_run(mid[i] = mm_malloc(128));
    CHECK(!any && ASCENDING(h, g));
    mm_free(h);
    mm_stats_t s = counters();
    char *p = mm_malloc(128);
    mm_stats_t t = counters();
    bool medium;
    char *p0 = p ? run_of(p, &medium) : NULL;
    CHECK(p0 && medium && p0 > (char *)h && t.extensions == s.extensions);
    if (p0) {
        char *end = p0 + run_span(meta_at(p0, true), true) * RUN_BYTES;
        CHECK(end <= (char *)h + 6000 && ((char *)h + 6000 - end < RUN_BYTES || end - p0 == RUN_MAX_SPAN * RUN_BYTES));
    }
    CHECK(mm_checkheap(__LINE__));
}

/* The run index goes back with the last run: no block of it is left in the
 * heap to pin the space. */
static void test_index_goes_back(void)
{
    fresh(true, HEAP);
    void *slot[64];
    for (int i = 0; i < 64; i++)
        slot[i] = mm_malloc(32);
    CHECK(st->runs != 0 && in_run(slot[63]));
    for (int i = 0; i < 64; i++)
        mm_free(slot[i]);
    CHECK(st->runs == 0 && st->run_granules == 0 && mm_checkheap(__LINE__));
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"slot_reuse", test_slot_reuse},
    {"kept_reuse", test_kept_reuse},
    {"slot_realloc", test_slot_realloc},
    {"realloc_reuses_kept", test_realloc_reuses_kept},
    {"kept_before_hole", test_kept_before_hole},
    {"refused_realloc", test_refused_realloc},
    {"counts_every_path", test_counts_every_path},
    {"shrink_moves_down", test_shrink_moves_down},
    {"shrink_slides_large", test_shrink_slides_large},
    {"grow_into_kept", test_grow_into_kept},
    {"grow_slides_down", test_grow_slides_down},
    {"grow_tighter_hole", test_grow_tighter_hole},
    {"grow_at_top", test_grow_at_top},
    {"grow_at_top_absorbs", test_grow_at_top_absorbs},
    {"grow_keeps_slack", test_grow_keeps_slack},
    {"grow_large_moves_low", test_grow_large_moves_low},
    {"run_sizes", test_run_sizes},
    {"runs_count_live_blocks", test_runs_count_live_blocks},
    {"long_runs", test_long_runs},
    {"long_run_fills_first", test_long_run_fills_first},
    {"exact_hole_before_run", test_exact_hole_before_run},
    {"run_in_hole", test_run_in_hole},
    {"medium_run_stretches", test_medium_run_stretches},
    {"index_goes_back", test_index_goes_back},
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
