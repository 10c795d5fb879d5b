/*
 * replay.h - the memorizing allocator of the replay-*.c fixtures: the first timed
 * run (mm_init's third call) is honest and notes where each block landed in the
 * file's table(); every later timed run raises the break once to where the first
 * left it and answers every malloc from the table.  Free does nothing.
 */
#ifndef BROKEN_REPLAY_H
#define BROKEN_REPLAY_H

#include "bump.h"

static uint32_t *table(void);  /* where the including file keeps the table */

static size_t k, top;
static int inits;

int mm_init(void)
{
    k = 0;
    return ++inits >= 4 && mem_sbrk((intptr_t)top) == (void *)-1 ? -1 : 0;
}

void *mm_malloc(size_t size)
{
    if (inits >= 4)
        return (char *)mem_heap_lo() + table()[k++];
    char *p = bump(size);
    if (inits == 3)
        table()[k++] = (uint32_t)(p - (char *)mem_heap_lo()), top = mem_heapsize();
    return p;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }

#endif
