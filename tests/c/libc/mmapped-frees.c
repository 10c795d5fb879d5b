/*
 * mmapped-frees.c - a preloaded free() that notes every block glibc had mmapped.
 *
 * Freeing such a block is what retunes glibc (it raises the mmap and trim
 * thresholds to the block's size), so a driver whose own frees show up here
 * hands libc a heap tuned by earlier traces.  Each one is appended, with the
 * pid, to the file named by $MMAPPED_FREES_LOG.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void __libc_free(void *p);

/* glibc's chunk header: the size word just below the block, bit 1 = mmapped. */
static inline int glibc_mmapped(const void *p) { return p && (((const size_t *)p)[-1] & 2); }

void free(void *p)
{
    if (glibc_mmapped(p)) {
        const char *log = getenv("MMAPPED_FREES_LOG");
        int fd = log ? open(log, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
        if (fd >= 0) {
            char line[64];
            int n = snprintf(line, sizeof line, "%d %zu\n", (int)getpid(), ((const size_t *)p)[-1] & ~(size_t)7);
            if (n > 0)
                write(fd, line, (size_t)n);
            close(fd);
        }
    }
    __libc_free(p);
}
