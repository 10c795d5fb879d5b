/*
 * alignpipe.c - write throughput into a pipe from buffers of different alignment.
 *
 *   alignpipe [-s size] [-k malloc|page|odd] [-m megabytes]
 *
 * The buffer comes from malloc (whatever address it returns), posix_memalign
 * with the page size (page), or malloc + 1 byte (odd).  A reader thread drains
 * the pipe into a page-aligned buffer.  Prints
 *   kind=page size=4096 offset=0 mbps=1234.5
 * where offset is the buffer's address modulo the page size.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fds[2];

static void *drain(void *arg)
{
    size_t cap = (size_t)(uintptr_t)arg;
    void *buf;
    if (posix_memalign(&buf, 4096, cap))
        return NULL;
    while (read(fds[0], buf, cap) > 0)
        ;
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    size_t size = 4096;
    const char *kind = "malloc";
    double megabytes = 256;
    for (int c; (c = getopt(argc, argv, "s:k:m:")) != -1;) {
        switch (c) {
        case 's': size = (size_t)atol(optarg); break;
        case 'k': kind = optarg; break;
        case 'm': megabytes = atof(optarg); break;
        default:
            fprintf(stderr, "usage: alignpipe [-s size] [-k malloc|page|odd] [-m megabytes]\n");
            return 2;
        }
    }
    long page = sysconf(_SC_PAGESIZE);
    char *raw = NULL, *buf = NULL;
    if (!strcmp(kind, "page")) {
        if (posix_memalign((void **)&raw, (size_t)page, size))
            return 1;
        buf = raw;
    } else if (!strcmp(kind, "malloc") || !strcmp(kind, "odd")) {
        raw = malloc(size + 1);
        buf = raw + (kind[0] == 'o');
    } else {
        fprintf(stderr, "alignpipe: unknown kind %s\n", kind);
        return 2;
    }
    if (!raw || size < 1 || megabytes <= 0 || pipe(fds)) {
        fprintf(stderr, "alignpipe: bad arguments or no memory\n");
        return 2;
    }
    memset(buf, 'x', size);
    pthread_t reader;
    pthread_create(&reader, NULL, drain, (void *)(uintptr_t)(size > 65536 ? size : 65536));
    long writes = (long)(megabytes * (1 << 20) / (double)size);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < writes; i++)
        for (size_t done = 0; done < size;) {
            ssize_t n = write(fds[1], buf + done, size - done);
            if (n <= 0)
                return 1;
            done += (size_t)n;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    close(fds[1]);
    pthread_join(reader, NULL);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("kind=%s size=%zu offset=%lu mbps=%.1f\n", kind, size, (unsigned long)((uintptr_t)buf % (uintptr_t)page),
           (double)writes * (double)size / (1 << 20) / seconds);
    free(raw);
    return 0;
}
