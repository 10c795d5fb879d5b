/*
 * threadtest.c - N threads each allocating and freeing random-size blocks,
 * some of them freed by other threads, every block's contents checked.
 *
 *   threadtest [-t threads] [-r rounds] [-b blocks] [-s maxsize] [-x percent] [-S seed]
 *
 * Each thread keeps `blocks` live blocks.  Every round it replaces each one:
 * check and free the old block, then allocate a new one (16..maxsize bytes) and
 * fill it with a pattern derived from its id.  `percent` of the old blocks are
 * instead swapped through a shared array of slots, so another thread checks and
 * frees them (cross-thread frees).  Prints one line of key=value figures
 * (heap_kb: VmData growth while every block is live, thread stacks excluded;
 * seconds: until every thread finished its rounds); exits 1 if any block's contents were wrong.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { SLOTS = 1024, STACK = 512 << 10 };

typedef struct block {
    uint64_t key;    /* seeds the fill pattern */
    uint64_t size;   /* bytes of the whole block, this header included */
} block_t;

static struct {
    int threads, rounds, blocks, percent;
    size_t maxsize;
    uint64_t seed;
    _Atomic(block_t *) slot[SLOTS];
    atomic_ulong errors, ops;
    pthread_barrier_t done;     /* all threads finished their rounds, blocks still live */
} cfg = {.threads = 2, .rounds = 200, .blocks = 1000, .percent = 10, .maxsize = 512, .seed = 1};

static inline uint64_t next_random(uint64_t *s)   /* xorshift64* */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* The fill: 8-byte words derived from the key, then single bytes for the tail. */
static inline uint64_t pattern(uint64_t key, size_t i) { return key ^ (i * 0x9E3779B97F4A7C15ULL); }

static void fill(block_t *b)
{
    size_t words = b->size / 8;
    uint64_t *w = (uint64_t *)b;
    for (size_t i = 2; i < words; i++)
        w[i] = pattern(b->key, i);
    for (size_t i = words * 8; i < b->size; i++)
        ((unsigned char *)b)[i] = (unsigned char)pattern(b->key, i);
}

static bool intact(const block_t *b)
{
    size_t words = b->size / 8;
    const uint64_t *w = (const uint64_t *)b;
    for (size_t i = 2; i < words; i++)
        if (w[i] != pattern(b->key, i))
            return false;
    for (size_t i = words * 8; i < b->size; i++)
        if (((const unsigned char *)b)[i] != (unsigned char)pattern(b->key, i))
            return false;
    return true;
}

static block_t *make_block(uint64_t *rng)
{
    size_t size = 16 + next_random(rng) % (cfg.maxsize - 15);
    block_t *b = malloc(size);
    if (!b) {
        fprintf(stderr, "threadtest: malloc(%zu) failed\n", size);
        exit(2);
    }
    b->key = next_random(rng);
    b->size = size;
    fill(b);
    return b;
}

static void check_and_free(block_t *b)
{
    if (!intact(b))
        atomic_fetch_add(&cfg.errors, 1);
    free(b);
}

static void *worker(void *arg)
{
    uint64_t rng = cfg.seed * 0x9E3779B97F4A7C15ULL + (uintptr_t)arg + 1;
    block_t **live = malloc(sizeof *live * (size_t)cfg.blocks);
    for (int i = 0; i < cfg.blocks; i++)
        live[i] = make_block(&rng);
    unsigned long ops = 0;
    for (int r = 0; r < cfg.rounds; r++)
        for (int i = 0; i < cfg.blocks; i++, ops += 2) {
            block_t *old = live[i];
            if ((int)(next_random(&rng) % 100) < cfg.percent)
                old = atomic_exchange(&cfg.slot[next_random(&rng) % SLOTS], old);
            if (old)
                check_and_free(old);
            live[i] = make_block(&rng);
        }
    pthread_barrier_wait(&cfg.done);    /* main measures the heap here */
    pthread_barrier_wait(&cfg.done);
    for (int i = 0; i < cfg.blocks; i++)
        check_and_free(live[i]);
    free(live);
    atomic_fetch_add(&cfg.ops, ops);
    return NULL;
}

/* A "Key:   123 kB" figure from /proc/self/status, or -1. */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':')
            kb = strtol(line + n + 1, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    for (int c; (c = getopt(argc, argv, "t:r:b:s:x:S:")) != -1;) {
        long v = strtol(optarg, NULL, 10);
        switch (c) {
        case 't': cfg.threads = (int)v; break;
        case 'r': cfg.rounds = (int)v; break;
        case 'b': cfg.blocks = (int)v; break;
        case 's': cfg.maxsize = (size_t)v; break;
        case 'x': cfg.percent = (int)v; break;
        case 'S': cfg.seed = (uint64_t)v; break;
        default:
            fprintf(stderr, "usage: threadtest [-t threads] [-r rounds] [-b blocks] [-s maxsize] [-x percent] [-S seed]\n");
            return 2;
        }
    }
    if (cfg.threads < 1 || cfg.threads > 256 || cfg.rounds < 0 || cfg.blocks < 1 || cfg.maxsize < 32
        || cfg.percent < 0 || cfg.percent > 100) {
        fprintf(stderr, "threadtest: argument out of range\n");
        return 2;
    }
    /* The heap's data segment: VmData with every thread's blocks live, less what
     * it was before the threads started and less their stacks (fixed size). */
    pthread_t tid[256];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK);
    pthread_barrier_init(&cfg.done, NULL, (unsigned)cfg.threads + 1);
    long vmdata_before = status_kb("VmData");
    double start = now();
    for (int i = 0; i < cfg.threads; i++)
        if (pthread_create(&tid[i], &attr, worker, (void *)(uintptr_t)i)) {
            fprintf(stderr, "threadtest: cannot create thread %d\n", i);
            return 2;
        }
    pthread_barrier_wait(&cfg.done);
    double seconds = now() - start;
    long vmdata = status_kb("VmData"), hwm = status_kb("VmHWM");
    long heap = vmdata - vmdata_before - (long)cfg.threads * (STACK >> 10);
    pthread_barrier_wait(&cfg.done);
    for (int i = 0; i < cfg.threads; i++)
        pthread_join(tid[i], NULL);
    for (int i = 0; i < SLOTS; i++) {
        block_t *b = atomic_exchange(&cfg.slot[i], NULL);
        if (b)
            check_and_free(b);
    }
    printf("threads=%d ops=%lu seconds=%.6f heap_kb=%ld vmdata_kb=%ld hwm_kb=%ld errors=%lu\n", cfg.threads,
           atomic_load(&cfg.ops), seconds, heap, vmdata, hwm, atomic_load(&cfg.errors));
    return atomic_load(&cfg.errors) ? 1 : 0;
}
