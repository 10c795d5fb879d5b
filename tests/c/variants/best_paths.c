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

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"kept_reuse", test_kept_reuse},
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
