/*
 * lab2016_mm.c - an allocator written the way the 2016 64-bit CS:APP handout asked
 * for, kept here to prove the kit builds and runs such a file unchanged.
 *
 * The handout's naive design: each block is a size word and its payload, at the
 * break, never reused.  Deliberately in that handout's style: `bool mm_init`, the
 * functions named malloc, free, realloc and calloc with the `#ifdef DRIVER`
 * aliases to mm_*, a `bool mm_checkheap(int lineno)` and dbg_printf.  16-byte
 * alignment.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "mm.h"
#include "memlib.h"

/* If you want debugging output, use the following macro.  When you hand
 * in, remove the #define DEBUG line. */
/* #define DEBUG */
#ifdef DEBUG
# define dbg_printf(...) printf(__VA_ARGS__)
#else
# define dbg_printf(...)
#endif

/* do not change the following! */
#ifdef DRIVER
/* create aliases for driver tests */
#define malloc mm_malloc
#define free mm_free
#define realloc mm_realloc
#define calloc mm_calloc
#endif /* def DRIVER */

#define ALIGNMENT 16

typedef uint64_t word_t;
static const size_t wsize = sizeof(word_t);

static size_t align(size_t x) { return ALIGNMENT * ((x + ALIGNMENT - 1) / ALIGNMENT); }

static bool in_heap(const void *p) { return p <= mem_heap_hi() && p >= mem_heap_lo(); }

bool mm_init(void)
{
    dbg_printf("init\n");
    return mem_sbrk(0) != (void *)-1;
}

void *malloc(size_t size)
{
    size_t newsize = ALIGNMENT + align(size);
    char *p = mem_sbrk((intptr_t)newsize);
    if (p == (void *)-1)
        return NULL;
    p += ALIGNMENT - wsize;
    *(word_t *)p = size;
    return p + wsize;
}

void free(void *ptr) { (void)ptr; }

void *realloc(void *oldptr, size_t size)
{
    if (size == 0) {
        free(oldptr);
        return NULL;
    }
    if (oldptr == NULL)
        return malloc(size);
    void *newptr = malloc(size);
    if (!newptr)
        return NULL;
    size_t oldsize = *(word_t *)((char *)oldptr - wsize);
    memcpy(newptr, oldptr, oldsize < size ? oldsize : size);
    free(oldptr);
    return newptr;
}

void *calloc(size_t elements, size_t size)
{
    size_t asize = elements * size;
    void *p = malloc(asize);
    if (p)
        memset(p, 0, asize);
    return p;
}

bool mm_checkheap(int lineno)
{
    printf("checked at %d\n", lineno);
    return mem_heapsize() == 0 || in_heap((char *)mem_heap_hi());
}
