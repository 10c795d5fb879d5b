/*
 * ts_frees.c - ts-nolock's card, rung by rung, on a heap built by hand: frees
 * of another thread's blocks, an exited thread's arena adopted, the heap's
 * growth.  (The owner's realloc in place is unit_realloc.c's, under
 * --in-place.)  Each case is black-box (the API, mm_stats, mm_checkheap),
 * with a second thread made for the one call the case is about.
 *
 *   ts-frees CASE     exit 0 and "ok" when the card's outcome is seen
 *
 *   kept     a small block of another arena, freed here, is kept and given
 *            back whole to the next request of its class (rung 1)
 *   remote   a large block freed by another thread goes home; the owner
 *            frees it at its next malloc and reuses it (rung 2)
 *   adopted  a thread's arena, pooled at its exit, is the next thread's,
 *            with its free blocks
 *   returned a block kept by a thread goes home when that thread exits
 *   tail     a free block at the heap's top counts towards a request: the
 *            heap grows by what it lacks
 *   limit    4097 threads alive at once: 4096 arenas (MAX_ARENAS), so exactly
 *            one thread's malloc returns NULL
 */
#include <pthread.h>
#include <stdatomic.h>
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


/* Run fn(arg) in a thread of its own, to its end. */
static void in_thread(void *(*fn)(void *), void *arg)
{
    pthread_t tid;
    CHECK(pthread_create(&tid, NULL, fn, arg) == 0 && pthread_join(tid, NULL) == 0);
}

static void *malloc_200(void *out) { return *(void **)out = mm_malloc(200); }

static void *free_it(void *p)
{
    mm_free(p);
    return NULL;
}

static void *malloc_then_free(void *out)
{
    mm_free(*(void **)out = mm_malloc(100));
    return NULL;
}

static void test_kept(void)
{
    void *theirs = NULL, *mine = mm_malloc(200);   /* this thread's arena, to keep blocks in */
    in_thread(malloc_200, &theirs);
    CHECK(mine && theirs);
    mm_free(theirs);                                /* kept here, not sent home */
    CHECK(mm_checkheap(__LINE__));
    mm_stats_t s = stats();
    void *again = mm_malloc(200);
    CHECK(again == theirs);                          /* the kept block, whole */
    CHECK(stats().reuses == s.reuses + 1 && stats().extensions == s.extensions);
    CHECK(mm_checkheap(__LINE__));                 /* no longer counted as kept */
    mm_free(again);
    mm_free(mine);
    CHECK(mm_checkheap(__LINE__));
}

static void test_remote(void)
{
    void *big = mm_malloc(3000), *guard = mm_malloc(100);
    CHECK(big && guard);
    in_thread(free_it, big);                        /* above 1 KiB: sent home */
    CHECK(mm_checkheap(__LINE__));
    mm_stats_t s = stats();
    void *again = mm_malloc(3000);                  /* the owner takes it back first */
    CHECK(again == big);
    CHECK(stats().frees == s.frees + 1 && stats().extensions == s.extensions);
    mm_free(again);
    mm_free(guard);
    CHECK(mm_checkheap(__LINE__));
}

/* Has an arena of its own, keeps the block it frees, and exits. */
static void *keep_and_exit(void *p)
{
    mm_free(mm_malloc(100));
    mm_free(p);
    return NULL;
}

static void test_returned(void)
{
    void *mine = mm_malloc(200), *guard = mm_malloc(100);
    CHECK(mine && guard);
    in_thread(keep_and_exit, mine);
    CHECK(mm_checkheap(__LINE__));
    void *again = mm_malloc(200);                   /* back home, freed, and reused */
    CHECK(again == mine);
    mm_free(again);
    mm_free(guard);
    CHECK(mm_checkheap(__LINE__));
}

static void test_adopted(void)
{
    void *first = NULL, *second = NULL;
    in_thread(malloc_then_free, &first);            /* its arena is pooled at its exit */
    size_t heap = mem_heapsize();
    in_thread(malloc_then_free, &second);           /* adopts it: the freed block again */
    CHECK(first && second == first && mem_heapsize() == heap);
    CHECK(mm_checkheap(__LINE__));
}

static void test_tail(void)
{
    void *low = mm_malloc(200), *top = mm_malloc(3000);
    CHECK(low && top);
    mm_free(top);
    size_t heap = mem_heapsize();
    void *p = mm_malloc(5000);
    CHECK(p == top && mem_heapsize() - heap < 5000 - 3000 + 64);
    mm_free(p);
    mm_free(low);
    CHECK(mm_checkheap(__LINE__));
}

enum { LIMIT = 4096, LIMIT_THREADS = LIMIT + 1 };
static pthread_barrier_t all_alive;
static atomic_int refused;

static void *malloc_while_all_alive(void *unused)
{
    void *p = mm_malloc(100);
    refused += !p;
    pthread_barrier_wait(&all_alive);            /* no arena is pooled before every thread has asked */
    mm_free(p);
    return unused;
}

static void test_limit(void)
{
    static pthread_t tid[LIMIT_THREADS];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 << 10);
    pthread_barrier_init(&all_alive, NULL, LIMIT_THREADS);
    for (int t = 0; t < LIMIT_THREADS; t++)
        CHECK(pthread_create(&tid[t], &attr, malloc_while_all_alive, NULL) == 0);
    for (int t = 0; t < LIMIT_THREADS; t++)
        pthread_join(tid[t], NULL);
    CHECK(refused == 1);
    CHECK(mm_checkheap(__LINE__));
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"kept", test_kept},
    {"remote", test_remote},
    {"returned", test_returned},
    {"adopted", test_adopted},
    {"tail", test_tail},
    {"limit", test_limit},
};

int main(int argc, char **argv)
{
    heap_configure((size_t)256 << 20);          /* limit: 4096 arenas of some 2 KiB, a 16 KiB chunk each */
    mem_init();
    heap_restart(true);
    if (argc != 2 || mm_init() != 0)
        return 2;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(argv[1], cases[i].name)) {
            cases[i].run();
            puts("ok");
            return 0;
        }
    return 2;
}
