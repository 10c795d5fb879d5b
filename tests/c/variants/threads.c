/*
 * threads.c - a thread-safe variant (ts-lock, ts-nolock) called by several
 * threads at once, as the shim calls it, but on the simulated heap with its
 * checker at hand.
 *
 * Each thread mallocs, reallocs and frees blocks of its own, and hands some
 * to the next thread through a mailbox; that one checks their bytes, then
 * frees or reallocs them (another arena's blocks, in ts-nolock).  Every block
 * carries its size and a seed, and its bytes are checked before each free and
 * after each realloc.  Each round starts with every thread growing its heap at
 * once (512 blocks of 20000 bytes, kept to its end).  The threads run in two
 * rounds (the second adopts the first's arenas, in ts-nolock); then, with no thread busy, the heap checker
 * runs and the call counters must add up (mm_stats.h: mallocs counts blocks
 * returned by malloc and realloc(NULL, n), reallocs every realloc call).
 *
 *   threads [--check-while-busy | --stats-while-busy] THREADS OPS
 *       prints "ok", or the first thing that went wrong and exits 1.
 *   --check-while-busy: one more thread runs mm_checkheap over and over while
 *       the others allocate (ts-lock's checker runs under its lock, so may):
 *       a call that changes the heap outside the lock is seen mid-way.
 *   --stats-while-busy: one more thread calls mm_stats over and over while the
 *       others allocate, as the shim's exit report may (both variants allow it).
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

bool mm_checkheap(int lineno);

enum { GROWN = 512, GROWN_SIZE = 20000, MAX_THREADS = 16, SLOTS = 64, BOX = 16, HEAD = 2 * sizeof(size_t), MAX_SIZE = 24000, ROUNDS = 2 };

static int nthreads, nops;
static enum { WATCH_NONE, WATCH_CHECK, WATCH_STATS } watch;   /* what one more thread does while busy */
static _Atomic(unsigned char *) box[MAX_THREADS][BOX];   /* blocks handed to thread t */
static atomic_ullong mallocs, reallocs;                    /* calls the variant must count */
static atomic_int failed;
static pthread_barrier_t start;                            /* all of a round's threads begin at once */

static void fail(const char *what, int line)
{
    if (atomic_fetch_add(&failed, 1) == 0)
        printf("FAIL line %d: %s\n", line, what);
}

#define CHECK(cond) ((cond) ? (void)0 : fail(#cond, __LINE__))

static inline uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* Mostly small blocks (ts-nolock keeps those a thread frees for another
 * arena), some above 1 KiB (sent home to their arena), a few large. */
static size_t pick_size(uint64_t r)
{
    switch (r % 8) {
    case 0: return HEAD + r / 8 % 9000;
    case 1: return HEAD + r / 8 % MAX_SIZE;
    default: return HEAD + r / 8 % 240;
    }
}

/* A block's bytes: its size and seed, then words that follow from the seed
 * (words, not bytes, so that the threads spend their time in the allocator). */
static inline uint64_t word_at(size_t seed, size_t k) { return (uint64_t)seed * 0x9E3779B97F4A7C15u + k; }

static inline unsigned char byte_at(size_t seed, size_t n, size_t i)
{
    if (i < n / 8 * 8)
        return (unsigned char)(word_at(seed, i / 8) >> (i % 8 * 8));   /* little-endian */
    return (unsigned char)(seed + i);
}

static void fill(unsigned char *p, size_t n, size_t seed)
{
    memcpy(p, &n, sizeof n);
    memcpy(p + sizeof n, &seed, sizeof seed);
    uint64_t *w = (uint64_t *)p;
    for (size_t k = HEAD / 8; k < n / 8; k++)
        w[k] = word_at(seed, k);
    for (size_t i = n / 8 * 8; i < n; i++)
        p[i] = byte_at(seed, n, i);
}

/* Whether the first `upto` bytes (at most the block's size) are as fill left them. */
static bool intact(const unsigned char *p, size_t upto)
{
    size_t n, seed;
    memcpy(&n, p, sizeof n);
    memcpy(&seed, p + sizeof n, sizeof seed);
    if (n < HEAD || n > MAX_SIZE + HEAD)
        return false;
    if (upto > n)
        upto = n;
    const uint64_t *w = (const uint64_t *)p;
    size_t k = HEAD / 8;
    for (; k < upto / 8 && k < n / 8; k++)
        if (w[k] != word_at(seed, k))
            return false;
    for (size_t i = k * 8; i < upto; i++)
        if (p[i] != byte_at(seed, n, i))
            return false;
    return true;
}

static size_t size_in(const unsigned char *p)
{
    size_t n;
    memcpy(&n, p, sizeof n);
    return n;
}

static void check_and_free(unsigned char *p)
{
    CHECK(intact(p, SIZE_MAX));
    mm_free(p);
}

/* realloc to n: the bytes kept must be the old ones; then the block is filled anew. */
static unsigned char *resize(unsigned char *p, size_t n, size_t seed)
{
    size_t old = size_in(p);
    unsigned char *q = mm_realloc(p, n);
    reallocs++;
    CHECK(q != NULL);
    if (!q)
        return p;
    CHECK(((uintptr_t)q & (MM_ALIGNMENT - 1)) == 0);
    CHECK(intact(q, n < old ? n : old));
    fill(q, n, seed);
    return q;
}

/* --check-while-busy, --stats-while-busy: the checker or mm_stats, over and over,
 * until the round's workers are done. */
static atomic_int busy;

static void *watcher(void *arg)
{
    (void)arg;
    mm_stats_t s;
    while (busy && !failed) {
        if (watch == WATCH_CHECK)
            CHECK(mm_checkheap(__LINE__));
        else
            mm_stats(&s);
    }
    return NULL;
}

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg % nthreads, next = (me + 1) % nthreads;
    uint64_t x = 0x9E3779B97F4A7C15u * (uint64_t)((intptr_t)arg + 1);
    unsigned char *slot[SLOTS] = {0}, *grown[GROWN];
    pthread_barrier_wait(&start);
    for (int i = 0; i < GROWN; i++)             /* every thread grows its heap at once */
        if ((grown[i] = mm_malloc(GROWN_SIZE)))
            fill(grown[i], GROWN_SIZE, (size_t)i + 7);
    for (int op = 0; op < nops && !failed; op++) {
        uint64_t r = next_random(&x);
        int i = (int)(r % SLOTS);
        size_t n = pick_size(next_random(&x)), seed = (size_t)r;
        unsigned char **b = (unsigned char **)&box[next][r / SLOTS % BOX];
        switch (r / (SLOTS * BOX) % 8) {
        case 0: case 1: case 2:                  /* malloc, or free what the slot holds */
            if (slot[i]) {
                check_and_free(slot[i]);
                slot[i] = NULL;
            } else if ((slot[i] = (r >> 40) % 4 ? mm_malloc(n) : mm_realloc(NULL, n))) {
                reallocs += !((r >> 40) % 4);
                mallocs++;
                CHECK(((uintptr_t)slot[i] & (MM_ALIGNMENT - 1)) == 0);
                fill(slot[i], n, seed);
            } else {
                CHECK(!"malloc returned NULL");
            }
            break;
        case 3: case 4:                          /* realloc (to 0: a free) */
            if (slot[i] && (r >> 40) % 16 == 0) {
                CHECK(intact(slot[i], SIZE_MAX));
                CHECK(mm_realloc(slot[i], 0) == NULL);
                reallocs++;
                slot[i] = NULL;
            } else if (slot[i]) {
                slot[i] = resize(slot[i], n, seed);
            }
            break;
        case 5:                                  /* hand to the next thread */
            if (slot[i]) {
                unsigned char *old = atomic_exchange((_Atomic(unsigned char *) *)b, slot[i]);
                slot[i] = old;                   /* one it did not take yet comes back */
                CHECK(!old || intact(old, SIZE_MAX));
            }
            break;
        default:                                 /* take one handed to me */
            if (!slot[i]) {
                slot[i] = atomic_exchange(&box[me][r / SLOTS % BOX], NULL);
                CHECK(!slot[i] || intact(slot[i], SIZE_MAX));
            }
            break;
        }
    }
    for (int i = 0; i < SLOTS; i++)
        if (slot[i])
            check_and_free(slot[i]);
    for (int i = 0; i < GROWN; i++, mallocs++)
        if (CHECK(grown[i] != NULL), grown[i])
            check_and_free(grown[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    int a = 1;
    if (a < argc && !strcmp(argv[a], "--check-while-busy"))
        watch = WATCH_CHECK, a++;
    else if (a < argc && !strcmp(argv[a], "--stats-while-busy"))
        watch = WATCH_STATS, a++;
    if (argc - a != 2)
        return 2;
    nthreads = atoi(argv[a]), nops = atoi(argv[a + 1]);
    if (nthreads < 2 || nthreads > MAX_THREADS || nops < 1)
        return 2;
    heap_configure((size_t)256 << 20);
    mem_init();
    heap_restart(true);
    if (mm_init() != 0)
        return 2;
    pthread_barrier_init(&start, NULL, (unsigned)nthreads);
    for (int round = 0; round < ROUNDS && !failed; round++) {
        pthread_t tid[MAX_THREADS], check_tid;
        busy = 1;
        if (watch && pthread_create(&check_tid, NULL, watcher, NULL))
            return 2;
        for (int t = 0; t < nthreads; t++)
            if (pthread_create(&tid[t], NULL, worker, (void *)(intptr_t)(round * nthreads + t)))
                return 2;
        for (int t = 0; t < nthreads; t++)
            pthread_join(tid[t], NULL);
        busy = 0;
        if (watch)
            pthread_join(check_tid, NULL);
        CHECK(mm_checkheap(__LINE__));
    }
    for (int t = 0; t < nthreads; t++)              /* blocks never taken: the main thread frees them */
        for (int j = 0; j < BOX; j++) {
            unsigned char *p = atomic_exchange(&box[t][j], NULL);
            if (p)
                check_and_free(p);
        }
    CHECK(mm_checkheap(__LINE__));
    mm_stats_t s;
    mm_stats(&s);
    CHECK(s.mallocs == mallocs);
    CHECK(s.reallocs == reallocs);
    if (failed)
        return 1;
    printf("ok\n");
    return 0;
}
