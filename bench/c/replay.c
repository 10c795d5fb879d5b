/*
 * replay.c - run a trace against the real malloc, timed.
 *
 *   replay TRACE [-r repeats]
 *
 * Reads the whole trace first with the driver's own parser (driver/trace.c: plain
 * or gzip, every check mdriver makes, the same one-line messages), then replays it
 * `repeats` times, freeing whatever is still live after each pass; writes one byte
 * per 4 KiB of every block so the memory is used, as a program would.  Prints
 *   ops=N repeats=R seconds=S
 * (seconds for all passes together, parsing excluded).  `-r 0` only checks the
 * trace.  Exits 2 on a bad trace or usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver/heap.h"
#include "driver/trace.h"

static void touch(char *p, size_t size)
{
    for (size_t i = 0; i < size; i += 4096)
        p[i] = (char)i;
    if (size)
        p[size - 1] = 1;
}

static int usage(const char *why)
{
    fprintf(stderr, "replay: %s (usage: replay TRACE [-r repeats], repeats from 0 to 1000000)\n", why);
    return 2;
}

static void replay_once(const trace_t *t, char **live)
{
    for (size_t i = 0; i < t->num_ops; i++) {
        const op_t *o = &t->ops[i];
        switch (o->kind) {
        case OP_ALLOC:
            live[o->id] = malloc(o->size);
            if (live[o->id])
                touch(live[o->id], o->size);
            break;
        case OP_FREE:
            free(live[o->id]);
            live[o->id] = NULL;
            break;
        case OP_REALLOC:
            if (o->size == 0) {  /* the trace's `r ID 0` frees the block, whatever realloc(p, 0) does */
                free(live[o->id]);
                live[o->id] = NULL;
                break;
            }
            /* fall through */
        case OP_REALLOC_NULL:
            live[o->id] = realloc(o->kind == OP_REALLOC_NULL ? NULL : live[o->id], o->size);
            if (live[o->id])
                touch(live[o->id], o->size);
            break;
        }
    }
    for (uint32_t id = 0; id < t->num_ids; id++) {
        free(live[id]);
        live[id] = NULL;
    }
}

int main(int argc, char **argv)
{
    long repeats = 1;
    if (argc == 4 && !strcmp(argv[2], "-r")) {
        char *end;
        errno = 0;
        repeats = strtol(argv[3], &end, 10);
        if (errno || end == argv[3] || *end || repeats < 0 || repeats > 1000000)
            return usage("-r: not a number of repeats");
    } else if (argc != 2) {
        return usage("wrong arguments");
    }
    trace_t t;
    char err[512];
    /* Sizes up to the driver's largest heap (-M 4G): every trace mdriver can accept. */
    if (!trace_load(argv[1], HEAP_LIMIT, &t, err, sizeof err)) {
        fprintf(stderr, "replay: %s\n", err);
        return 2;
    }
    char **live = calloc((size_t)t.num_ids + 1, sizeof *live);
    if (!live) {
        fprintf(stderr, "replay: %s: out of memory for %u ids\n", argv[1], t.num_ids);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long r = 0; r < repeats; r++)
        replay_once(&t, live);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("ops=%zu repeats=%ld seconds=%.6f\n", t.num_ops, repeats, seconds);
    free(live);
    trace_free(&t);
    return 0;
}
