/*
 * arenas.c - THREADS threads alive at once, each with its own arena: each
 * allocates BLOCKS blocks, then, while every owner is still alive, frees its
 * neighbour's after checking their bytes (frees that must find another arena).
 *
 *   arenas THREADS BLOCKS    prints "ok" or "damaged N"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nthreads, nblocks;
static unsigned char ***blocks;
static pthread_barrier_t all_allocated, all_freed;
static _Atomic int damaged;

static size_t size_of(int i) { return 16 + (size_t)(i * 40 % 1500); }

static void *worker(void *arg)
{
    int me = (int)(long)arg, other = (me + 1) % nthreads;
    unsigned char **mine = malloc(sizeof *mine * (size_t)nblocks);
    for (int i = 0; i < nblocks; i++)
        if ((mine[i] = malloc(size_of(i))))
            memset(mine[i], (me + i) & 0xff, size_of(i));
    blocks[me] = mine;
    pthread_barrier_wait(&all_allocated);
    unsigned char **theirs = blocks[other];
    for (int i = 0; i < nblocks; i++) {
        unsigned char *p = theirs[i];
        if (!p || p[0] != ((other + i) & 0xff) || p[size_of(i) - 1] != ((other + i) & 0xff))
            damaged++;
        free(p);
    }
    free(theirs);
    pthread_barrier_wait(&all_freed);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = argc > 1 ? atoi(argv[1]) : 100;
    nblocks = argc > 2 ? atoi(argv[2]) : 50;
    blocks = calloc((size_t)nthreads, sizeof *blocks);
    pthread_t *tids = calloc((size_t)nthreads, sizeof *tids);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 << 10);
    pthread_barrier_init(&all_allocated, NULL, (unsigned)nthreads);
    pthread_barrier_init(&all_freed, NULL, (unsigned)nthreads);
    for (long t = 0; t < nthreads; t++)
        if (pthread_create(&tids[t], &attr, worker, (void *)t)) {
            printf("cannot start thread %ld\n", t);
            return 2;
        }
    for (int t = 0; t < nthreads; t++)
        pthread_join(tids[t], NULL);
    if (damaged)
        printf("damaged %d\n", (int)damaged);
    else
        printf("ok\n");
    return damaged != 0;
}
