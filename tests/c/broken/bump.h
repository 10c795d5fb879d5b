/*
 * bump.h - the honest core every broken allocator here starts from.
 *
 * A bump allocator with a size header (the kit's starter design), so that each
 * file in this folder shows its one defect and nothing else.  Most defects fire
 * only on a request of exactly TRIGGER bytes: the same allocator then passes
 * every trace without such a request, which lets a test prove that the other
 * traces of a run still go through and are scored.
 */
#ifndef BROKEN_BUMP_H
#define BROKEN_BUMP_H

#include <stdint.h>
#include <string.h>

#include "memlib.h"
#include "mm.h"

enum { TRIGGER = 777, HDR = MM_ALIGNMENT };

static inline size_t align_up(size_t n) { return (n + MM_ALIGNMENT - 1) & ~(size_t)(MM_ALIGNMENT - 1); }

/* A fresh block of `size` payload bytes at the break, or NULL. */
static inline char *bump(size_t size)
{
    char *b = mem_sbrk((intptr_t)(HDR + align_up(size)));
    if (b == (void *)-1)
        return NULL;
    *(size_t *)b = size;
    return b + HDR;
}

static inline size_t block_size(const void *p) { return *(const size_t *)((const char *)p - HDR); }

/* realloc as malloc + copy of the old block's `old` bytes + free, through the
 * file's own mm_malloc and mm_free. */
static inline void *realloc_copying(void *p, size_t old, size_t size)
{
    if (!p)
        return mm_malloc(size);
    if (size == 0) {
        mm_free(p);
        return NULL;
    }
    void *q = mm_malloc(size);
    if (q) {
        memcpy(q, p, old < size ? old : size);
        mm_free(p);
    }
    return q;
}

/* The same, the old size read from bump()'s header. */
static inline void *copy_realloc(void *p, size_t size) { return realloc_copying(p, p ? block_size(p) : 0, size); }

#endif
