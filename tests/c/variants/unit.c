/*
 * unit.c - the tricky paths of every allocator in variants/, black-box: the
 * edges of its sizes, splits, tags, coalescing, heap limits, counters and
 * re-initialisation here; the realloc ladder in unit_realloc.c and where a
 * request lands in unit_fit.c; the list of them all and their flags here.
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
#include "unit.h"

/* The card's facts, set from the flags in main (unit.h says what each means). */
bool in_place, copies, offsets32, zero_null, grow_by_lack, class_best;
size_t split_rest, tag_bytes;
const char *order = "", *fit = "";

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
