/*
 * classic_mm.c - an allocator written the way the 2002 CS:APP handout asked for,
 * kept here to prove the kit builds and runs such a file unchanged.
 *
 * Implicit list with boundary tags: a 4-byte header and a 4-byte footer per
 * block, each (size | used).  A padding word, a used 8-byte prologue and a
 * zero-size used epilogue header frame the blocks, so merging never checks
 * bounds.  Best fit, immediate merging, in-place shrink, else malloc-copy-free.  8-byte alignment, as in the 32-bit
 * lab: build with `make ALIGNMENT=8`.
 *
 * Deliberately in the old style: its own ALIGNMENT and word-size macros, a team
 * struct, and a void checker that prints instead of returning a verdict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <assert.h>
#include <unistd.h>
#include <string.h>

#include "mm.h"
#include "memlib.h"

team_t team = {
    /* Team name */
    "classic",
    /* First member's full name */
    "Ada Ñandú",
    /* First member's email address */
    "ada@example.edu",
    /* Second member's full name (leave blank if none) */
    "",
    /* Second member's email address (leave blank if none) */
    ""
};

/* single word (4) or double word (8) alignment */
#define ALIGNMENT 8

/* rounds up to the nearest multiple of ALIGNMENT */
#define ALIGN(size) (((size) + (ALIGNMENT-1)) & ~0x7)

#define WSIZE      4         /* one tag: a header or a footer */
#define DSIZE      8         /* two tags, and the alignment */
#define MINBLOCK   16        /* header + 8 payload bytes + footer */
#define GROWBY     (1<<12)   /* smallest heap extension */

#define BIGGER(a, b) ((a) > (b) ? (a) : (b))

/* a tag: block size (a multiple of 8) with the allocated flag in bit 0 */
#define TAG(size, used)   ((unsigned int)(size) | (used))
#define RD(p)             (*(unsigned int *)(p))
#define WR(p, v)          (*(unsigned int *)(p) = (v))
#define SIZEOF(p)         (RD(p) & ~0x7u)
#define USED(p)           (RD(p) & 0x1u)

/* from a payload pointer bp */
#define HEAD(bp)          ((char *)(bp) - WSIZE)
#define FOOT(bp)          ((char *)(bp) + SIZEOF(HEAD(bp)) - DSIZE)
#define NEXT(bp)          ((char *)(bp) + SIZEOF(HEAD(bp)))
#define PREV(bp)          ((char *)(bp) - SIZEOF((char *)(bp) - DSIZE))

static char *first_bp;  /* payload of the prologue block */

static void set_block(char *bp, size_t size, int used)
{
    WR(HEAD(bp), TAG(size, used));
    WR(FOOT(bp), TAG(size, used));
}

/* Merge the free block bp with whichever neighbours are free; return the result. */
static char *merge(char *bp)
{
    size_t size = SIZEOF(HEAD(bp));
    if (!USED(HEAD(NEXT(bp))))
        size += SIZEOF(HEAD(NEXT(bp)));
    if (!USED(HEAD(PREV(bp)))) {
        bp = PREV(bp);
        size += SIZEOF(HEAD(bp));
    }
    set_block(bp, size, 0);
    return bp;
}

/* Grow the heap by at least bytes; the new space becomes one free block. */
static char *grow(size_t bytes)
{
    bytes = (bytes + DSIZE - 1) & ~(size_t)(DSIZE - 1);
    char *bp = mem_sbrk(bytes);
    if (bp == (void *)-1)
        return NULL;
    set_block(bp, bytes, 0);          /* its header replaces the old epilogue */
    WR(HEAD(NEXT(bp)), TAG(0, 1));   /* the new epilogue */
    return merge(bp);
}

/* Best fit over the whole list: the classic trade of time for space. */
static char *best_fit(size_t need)
{
    char *best = NULL;
    for (char *bp = first_bp; SIZEOF(HEAD(bp)) > 0; bp = NEXT(bp))
        if (!USED(HEAD(bp)) && SIZEOF(HEAD(bp)) >= need &&
            (best == NULL || SIZEOF(HEAD(bp)) < SIZEOF(HEAD(best))))
            best = bp;
    return best;
}

/* Mark bp used for need bytes, giving the tail back when it can hold a block. */
static void take(char *bp, size_t need)
{
    size_t have = SIZEOF(HEAD(bp));
    if (have - need >= MINBLOCK) {
        set_block(bp, need, 1);
        set_block(NEXT(bp), have - need, 0);
    } else {
        set_block(bp, have, 1);
    }
}

int mm_init(void)
{
    char *start = mem_sbrk(4*WSIZE);
    if (start == (void *)-1)
        return -1;
    WR(start, 0);                          /* pad, so payloads land on 8 */
    WR(start + WSIZE, TAG(DSIZE, 1));      /* prologue: header ... */
    WR(start + 2*WSIZE, TAG(DSIZE, 1));    /* ... and footer */
    WR(start + 3*WSIZE, TAG(0, 1));        /* epilogue */
    first_bp = start + 2*WSIZE;
    return grow(GROWBY) ? 0 : -1;
}

void *mm_malloc(size_t size)
{
    if (size == 0)
        return NULL;
    size_t need = BIGGER(MINBLOCK, ALIGN(size) + DSIZE);
    char *bp = best_fit(need);
    if (bp == NULL && (bp = grow(BIGGER(need, GROWBY))) == NULL)
        return NULL;
    take(bp, need);
    return bp;
}

void mm_free(void *ptr)
{
    if (ptr == NULL)
        return;
    set_block(ptr, SIZEOF(HEAD(ptr)), 0);
    merge(ptr);
}

/* Shrinks stay in place; growth moves the block. */
void *mm_realloc(void *ptr, size_t size)
{
    if (ptr == NULL)
        return mm_malloc(size);
    if (size == 0) {
        mm_free(ptr);
        return NULL;
    }
    size_t have = SIZEOF(HEAD(ptr)) - DSIZE;
    if (size <= have)
        return ptr;
    void *newptr = mm_malloc(size);
    if (newptr == NULL)
        return NULL;
    memcpy(newptr, ptr, have);
    mm_free(ptr);
    return newptr;
}

/*
 * mm_checkheap - walk every block; print what is wrong (and, when verbose,
 * every block).  The old way: nothing is returned.
 */
void mm_checkheap(int verbose)
{
    char *bp = first_bp;
    int free_run = 0;

    if (SIZEOF(HEAD(bp)) != DSIZE || !USED(HEAD(bp)))
        printf("mm_checkheap: bad prologue\n");
    for (bp = NEXT(bp); SIZEOF(HEAD(bp)) > 0; bp = NEXT(bp)) {
        if (verbose)
            printf("%p: %u bytes, %s\n", bp, SIZEOF(HEAD(bp)), USED(HEAD(bp)) ? "used" : "free");
        if ((unsigned long)bp % ALIGNMENT)
            printf("mm_checkheap: %p is not aligned\n", bp);
        if (RD(HEAD(bp)) != RD(FOOT(bp)))
            printf("mm_checkheap: %p: header and footer differ\n", bp);
        if (!USED(HEAD(bp)) && free_run)
            printf("mm_checkheap: %p: two free blocks in a row\n", bp);
        free_run = !USED(HEAD(bp));
    }
    if (!USED(HEAD(bp)))
        printf("mm_checkheap: bad epilogue\n");
}
