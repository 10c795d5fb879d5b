/*
 * unit_fit.c - where a request lands, per each variant's card: next fit's
 * rover, the free lists' insertion order, the fit policies, the size classes,
 * the top block and how far the heap grows.
 * Run through unit.c (its list and flags).
 */
#include "unit.h"

/* Next fit: a merge that swallows the rover's block must move the rover. */
void test_rover_after_coalesce(void)
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
void test_rover_after_growth(void)
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
void test_insertion_order(void)
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
void test_fit_policy(void)
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
void test_best_fit_exact_later(void)
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
void test_worst_fit_largest_by_a_unit(void)
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
void test_larger_class_fit(void)
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
void test_class_best_fit(void)
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
void test_class_boundaries(void)
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
void test_class_neighbours(void)
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

void test_top_block_unprobed(void)
{
    top_block_case(12, 56, 100, 72);
    top_block_case(600, 580, 620, 600);
}

/* the top block exactly the request's size: it had grown the heap by a minimum block */
void test_top_block_exact(void)
{
    top_block_case(12, 56, 100, 100);
    top_block_case(600, 580, 620, 620);
}

/* The variants built on tags-core.h (--grow-by-lack) grow the heap by exactly
 * what a request lacks, a free block at the top counting towards it, and by at
 * least a minimum block (the split threshold), never by a fixed chunk. */
void test_grow_by_lack(void)
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
