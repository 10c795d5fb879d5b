/*
 * sizes.c - the cost of one malloc+free (or calloc+free) pair by request size.
 *
 *   sizes [-k malloc|calloc] [-a min_log2] [-b max_log2] [-n pairs] [-B budget_bytes]
 *
 * For each size 2^a .. 2^b, in increasing order, in this one process: time the
 * first pair alone (for glibc it shows the mmap threshold before it adapts),
 * then n pairs in BATCHES batches (steady state: the median batch's time per
 * pair, so a batch that the scheduler interrupted does not count).  calloc pairs are capped at budget /
 * size so that clearing memory cannot run for minutes; malloc pairs at
 * 64 * budget / size (at least 8 either way).  One line per size:
 *   kind=malloc size=4096 pairs=20000 first_ns=812 steady_ns=23.4
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BATCHES = 5 };

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Keep the compiler from pairing malloc with free and deleting both. */
static inline void keep(void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }

static int one_pair(int use_calloc, size_t size)
{
    void *p = use_calloc ? calloc(1, size) : malloc(size);
    if (!p)
        return -1;
    keep(p);
    free(p);
    return 0;
}

int main(int argc, char **argv)
{
    int use_calloc = 0, lo = 1, hi = 30;
    long pairs = 20000;
    double budget = 256.0 * (1 << 20);
    for (int c; (c = getopt(argc, argv, "k:a:b:n:B:")) != -1;) {
        switch (c) {
        case 'k': use_calloc = !strcmp(optarg, "calloc"); break;
        case 'a': lo = atoi(optarg); break;
        case 'b': hi = atoi(optarg); break;
        case 'n': pairs = atol(optarg); break;
        case 'B': budget = atof(optarg); break;
        default:
            fprintf(stderr, "usage: sizes [-k malloc|calloc] [-a min_log2] [-b max_log2] [-n pairs] [-B budget_bytes]\n");
            return 2;
        }
    }
    if (lo < 0 || hi > 40 || lo > hi || pairs < 1 || budget <= 0) {
        fprintf(stderr, "sizes: argument out of range\n");
        return 2;
    }
    for (int e = lo; e <= hi; e++) {
        size_t size = (size_t)1 << e;
        double cap = (use_calloc ? budget : 64 * budget) / (double)size;
        long n = cap < pairs ? (long)cap : pairs;
        if (n < 3)
            n = 3;
        double t0 = now_ns();
        if (one_pair(use_calloc, size))
            goto failed;
        double first = now_ns() - t0;
        long per = (n + BATCHES - 1) / BATCHES;
        double batch[BATCHES];
        for (int b = 0; b < BATCHES; b++) {
            t0 = now_ns();
            for (long i = 0; i < per; i++)
                if (one_pair(use_calloc, size))
                    goto failed;
            batch[b] = (now_ns() - t0) / (double)per;
        }
        qsort(batch, BATCHES, sizeof batch[0], by_value);
        double steady = batch[BATCHES / 2];
        n = per * BATCHES;
        printf("kind=%s size=%zu pairs=%ld first_ns=%.0f steady_ns=%.2f\n", use_calloc ? "calloc" : "malloc",
               size, n, first, steady);
        fflush(stdout);
        continue;
    failed:
        printf("kind=%s size=%zu failed=1\n", use_calloc ? "calloc" : "malloc", size);
        fflush(stdout);
    }
    return 0;
}
