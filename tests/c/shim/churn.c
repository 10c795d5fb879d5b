/*
 * churn.c - threads that come and go: each allocates, frees some of its blocks
 * itself and hands the rest to the main thread, which frees them (cross-thread
 * frees).  Run under a shim with MMSHIM_STATS set: the test reads the heap's
 * high-water mark to see that an exited thread's memory is reused, not leaked.
 *
 *   churn [threads_in_total] [blocks_per_thread]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int blocks = 200;
static void **handed;

static void *worker(void *arg)
{
    (void)arg;
    void **mine = malloc(sizeof *mine * (size_t)blocks);
    for (int i = 0; i < blocks; i++) {
        mine[i] = malloc(64 + (size_t)(i % 32) * 32);
        memset(mine[i], i, 64);
    }
    for (int i = 0; i < blocks; i += 2)
        free(mine[i]);
    for (int i = 1; i < blocks; i += 2)
        handed[i / 2] = mine[i];
    free(mine);
    return NULL;
}

int main(int argc, char **argv)
{
    int total = argc > 1 ? atoi(argv[1]) : 200;
    blocks = argc > 2 ? atoi(argv[2]) : 200;
    handed = malloc(sizeof *handed * (size_t)blocks);
    for (int t = 0; t < total; t++) {
        pthread_t tid;
        if (pthread_create(&tid, NULL, worker, NULL))
            return 2;
        pthread_join(tid, NULL);
        for (int i = 0; i < blocks / 2; i++) {
            unsigned char *p = handed[i];
            if (p[0] != (unsigned char)(2 * i + 1)) {
                printf("block %d of thread %d damaged\n", i, t);
                return 1;
            }
            free(p);
        }
    }
    printf("ok %d threads\n", total);
    return 0;
}
