/*
 * classic_noteam.c - the handout's naive allocator, in its style, without a team
 * struct and without a heap checker: a block is the heap's next bytes with the
 * size in front, free does nothing, realloc copies.  Proves a classic file that
 * leaves `team` out still builds and runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <assert.h>
#include <unistd.h>
#include <string.h>

#include "mm.h"
#include "memlib.h"

/* single word (4) or double word (8) alignment */
#define ALIGNMENT 8

/* rounds up to the nearest multiple of ALIGNMENT */
#define ALIGN(size) (((size) + (ALIGNMENT-1)) & ~0x7)

/* room in front of each payload for its size, kept aligned */
#define SIZE_T_SIZE (ALIGN(sizeof(size_t)))

int mm_init(void)
{
    return 0;
}

/* Every request takes fresh bytes at the break. */
void *mm_malloc(size_t size)
{
    char *blk = mem_sbrk(ALIGN(size + SIZE_T_SIZE));
    if (blk == (void *)-1)
        return NULL;
    *(size_t *)blk = size;
    return blk + SIZE_T_SIZE;
}

/* Never reuses anything. */
void mm_free(void *ptr)
{
}

void *mm_realloc(void *ptr, size_t size)
{
    size_t keep;
    void *moved;

    if (ptr == NULL)
        return mm_malloc(size);
    if (size == 0)
        return NULL;
    if ((moved = mm_malloc(size)) == NULL)
        return NULL;
    keep = *(size_t *)((char *)ptr - SIZE_T_SIZE);
    memcpy(moved, ptr, keep < size ? keep : size);
    return moved;
}
