/*
 * mm.c - the starter allocator: a bump allocator that never reuses memory.
 *
 * Honest but wasteful: every mm_malloc extends the heap by the request rounded
 * up to the alignment, with a header word that remembers the size for
 * mm_realloc; mm_free does nothing.  It passes every correctness check and
 * scores poorly on utilization.  Replace it: see README.md for what to build.
 */
#include <stdint.h>
#include <string.h>

#include "memlib.h"
#include "mm.h"

/* Each block: [size word][padding to the alignment][payload]. */
static inline size_t round_up(size_t n) { return (n + MM_ALIGNMENT - 1) & ~(size_t)(MM_ALIGNMENT - 1); }

static const size_t HEADER = MM_ALIGNMENT; /* room for the size, keeping payloads aligned */

int mm_init(void)
{
    return 0;
}

void *mm_malloc(size_t size)
{
    if (size > SIZE_MAX - 2 * HEADER)
        return NULL;
    char *block = mem_sbrk((intptr_t)(HEADER + round_up(size)));
    if (block == (void *)-1)
        return NULL;
    *(size_t *)block = size;
    return block + HEADER;
}

void mm_free(void *ptr)
{
    (void)ptr;
}

void *mm_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return mm_malloc(size);
    if (size == 0) {
        mm_free(ptr);
        return NULL;
    }
    void *fresh = mm_malloc(size);
    if (!fresh)
        return NULL;
    size_t old = *(size_t *)((char *)ptr - HEADER);
    memcpy(fresh, ptr, old < size ? old : size);
    mm_free(ptr);
    return fresh;
}
