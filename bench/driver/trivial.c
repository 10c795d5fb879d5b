/*
 * trivial.c - the least an allocator can do, for measuring the driver's own cost.
 *
 * Bumps a pointer through 1 MiB chunks of heap; free does nothing.  Whatever
 * time a trace takes with it is almost all the driver's replay loop.
 */
#include <stdint.h>
#include <string.h>

#include "memlib.h"
#include "mm.h"

enum { CHUNK = 1 << 20 };

static struct {
    char *next, *end;
} bump;

int mm_init(void)
{
    bump.next = bump.end = NULL;
    return 0;
}

void *mm_malloc(size_t size)
{
    size_t need = (size + 2 * MM_ALIGNMENT - 1) & ~(size_t)(MM_ALIGNMENT - 1);
    if (size > CHUNK)
        return NULL;
    if ((size_t)(bump.end - bump.next) < need) {
        char *chunk = mem_sbrk(CHUNK);
        if (chunk == (void *)-1)
            return NULL;
        bump.next = chunk;
        bump.end = chunk + CHUNK;
    }
    char *block = bump.next;
    bump.next += need;
    *(size_t *)block = size;
    return block + MM_ALIGNMENT;
}

void mm_free(void *ptr)
{
    (void)ptr;
}

void *mm_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return mm_malloc(size);
    if (!size)
        return NULL;
    void *fresh = mm_malloc(size);
    if (fresh) {
        size_t old = *(size_t *)((char *)ptr - MM_ALIGNMENT);
        memcpy(fresh, ptr, old < size ? old : size);
    }
    return fresh;
}
