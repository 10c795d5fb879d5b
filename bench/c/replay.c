/*
 * replay.c - run a .rep trace (plain text) against the real malloc, timed.
 *
 *   replay TRACE [-r repeats]
 *
 * Reads the whole trace first (either header order), then replays it `repeats`
 * times, freeing whatever is still live after each pass; writes one byte per
 * 4 KiB of every block so the memory is used, as a program would.  Prints
 *   ops=N repeats=R seconds=S
 * (seconds for all passes together, parsing excluded).  Exits 2 on a bad trace.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct op {
    char kind;        /* a, f, r, n */
    long id;
    size_t size;
} op_t;

static void die(const char *path, long line, const char *what)
{
    fprintf(stderr, "replay: %s:%ld: %s\n", path, line, what);
    exit(2);
}

static void touch(char *p, size_t size)
{
    for (size_t i = 0; i < size; i += 4096)
        p[i] = (char)i;
    if (size)
        p[size - 1] = 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: replay TRACE [-r repeats]\n");
        return 2;
    }
    const char *path = argv[1];
    int repeats = argc >= 4 && !strcmp(argv[2], "-r") ? atoi(argv[3]) : 1;
    FILE *f = fopen(path, "r");
    if (!f)
        die(path, 0, "cannot open");
    char line[256];
    long header[4], nh = 0, lineno = 0, nops = 0, ids = 0;
    op_t *ops = NULL;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = line + strspn(line, " \t");
        if (*s == '#' || *s == '\n' || *s == '\0')
            continue;
        if (nh < 4) {
            header[nh++] = strtol(s, NULL, 10);
            if (nh == 4) {
                ids = header[1];
                long count = header[2];
                if (ids < 0 || count < 0 || count > 100000000)
                    die(path, lineno, "bad header");
                ops = calloc((size_t)count + 1, sizeof *ops);
                header[2] = count;
            }
            continue;
        }
        op_t o = {0};
        char kind;
        unsigned long long size = 0;
        int got = sscanf(s, " %c %ld %llu", &kind, &o.id, &size);
        if (got < 2 || !strchr("afrn", kind) || o.id < 0 || o.id >= ids || (kind != 'f' && got < 3))
            die(path, lineno, "bad op");
        if (nops >= header[2])
            die(path, lineno, "more ops than the header says");
        o.kind = kind;
        o.size = (size_t)size;
        ops[nops++] = o;
    }
    fclose(f);
    if (nh < 4)
        die(path, lineno, "missing header");
    char **live = calloc((size_t)ids + 1, sizeof *live);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < repeats; r++) {
        for (long i = 0; i < nops; i++) {
            op_t *o = &ops[i];
            switch (o->kind) {
            case 'a':
                live[o->id] = malloc(o->size);
                if (live[o->id])
                    touch(live[o->id], o->size);
                break;
            case 'f':
                free(live[o->id]);
                live[o->id] = NULL;
                break;
            case 'r':
            case 'n':
                live[o->id] = realloc(o->kind == 'n' ? NULL : live[o->id], o->size);
                if (live[o->id])
                    touch(live[o->id], o->size);
                break;
            }
        }
        for (long id = 0; id < ids; id++) {
            free(live[id]);
            live[id] = NULL;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("ops=%ld repeats=%d seconds=%.6f\n", nops, repeats, seconds);
    free(live);
    free(ops);
    return 0;
}
