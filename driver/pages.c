/* pages.c - mmap-backed arrays (see pages.h). */
#define _GNU_SOURCE
#include "driver/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Just below each array, its mapping's length and where the mapping starts:
 * a 16-byte header (the array stays 16-byte aligned), or for a shared array a
 * page of its own, so that the parent never touches a page a child may use
 * (pages_untouched). */
enum { HEADER = 16 };

static inline size_t mapped_length(const void *p) { return ((const size_t *)p)[-2]; }
static inline size_t header_bytes(const void *p) { return ((const size_t *)p)[-1]; }
static inline char *mapping(const void *p) { return (char *)p - header_bytes(p); }

/* Not inherited by a trace's child: the trace, the checker's ledger and the
 * placements stay the parent's (a child that could read the trace could plan
 * its placements with hindsight). */
static inline void private_to_parent(char *m, size_t len) { madvise(m, len, MADV_DONTFORK); }

static void *map(size_t n, int sharing)
{
    size_t header = sharing == MAP_SHARED ? (size_t)sysconf(_SC_PAGESIZE) : HEADER;
    if (n > (size_t)-1 - header)
        return NULL;
    size_t len = n + header;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, sharing | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (sharing == MAP_PRIVATE)
        private_to_parent(m, len);
    size_t *array = (size_t *)(m + header);
    array[-2] = len;
    array[-1] = header;
    return array;
}

void *pages_alloc(size_t n) { return map(n, MAP_PRIVATE); }

void *pages_alloc_shared(size_t n) { return map(n, MAP_SHARED); }

void *pages_resize(void *p, size_t n)
{
    if (!p)
        return pages_alloc(n);
    if (n > (size_t)-1 - HEADER)
        return NULL;
    size_t len = n + HEADER;
    /* Fresh anonymous pages read as zero, and so does the old last page's tail. */
    char *moved = mremap(mapping(p), mapped_length(p), len, MREMAP_MAYMOVE);
    if (moved == MAP_FAILED)
        return NULL;
    private_to_parent(moved, len);
    size_t *array = (size_t *)(moved + HEADER);
    array[-2] = len;
    return array;
}

void pages_share_no_further(void *p)
{
    if (p)
        private_to_parent(mapping(p), mapped_length(p));
}

void pages_free(void *p)
{
    if (p)
        munmap(mapping(p), mapped_length(p));
}

bool pages_contains(const void *p, uintptr_t addr)
{
    if (!p)
        return false;
    uintptr_t m = (uintptr_t)mapping(p), page = (uintptr_t)sysconf(_SC_PAGESIZE);
    return addr >= m && addr - m < (mapped_length(p) + page - 1) / page * page;
}

bool pages_untouched(const void *p)
{
    if (!p)
        return true;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = mapped_length(p) - header_bytes(p);
    size_t pages = (len + page - 1) / page;
    for (size_t at = 0; at < pages; at += 4096) {
        unsigned char resident[4096];
        size_t n = pages - at < 4096 ? pages - at : 4096;
        if (mincore((char *)p + at * page, n * page < len - at * page ? n * page : len - at * page, resident))
            return false;
        for (size_t k = 0; k < n; k++)
            if (resident[k] & 1)
                return false;
    }
    return true;
}
