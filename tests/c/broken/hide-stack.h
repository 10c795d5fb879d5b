/*
 * hide-stack.h - the cheat the audit stops: block sizes kept outside the heap.
 *
 * Headerless blocks, laid end to end at the break, each block's size kept in a
 * table the driver's checks do not see: the file that includes this defines
 * `static uint32_t *hidden_table(void)` (where the table is) and may set
 * TABLE_SLOTS.  realloc copies as many bytes as the table says the old block
 * has, so a table that lost its contents shows at once: the payload is not
 * kept.  The API functions are not inlined into the driver's loop, so a table
 * placed relative to their frame is at the same place in every call.
 */
#ifndef BROKEN_HIDE_STACK_H
#define BROKEN_HIDE_STACK_H

#include "bump.h"

#ifndef TABLE_SLOTS
#define TABLE_SLOTS (1 << 14)
#endif

static uint32_t *hidden_table(void);

/* The block's slot: its offset in the heap, in units. */
static inline size_t slot(const void *p)
{
    return ((size_t)((const char *)p - (const char *)mem_heap_lo()) / MM_ALIGNMENT) % TABLE_SLOTS;
}

__attribute__((noinline)) void *mm_malloc(size_t size)
{
    char *p = mem_sbrk((intptr_t)align_up(size ? size : 1));
    if (p == (void *)-1)
        return NULL;
    hidden_table()[slot(p)] = (uint32_t)size;
    return p;
}

__attribute__((noinline)) void mm_free(void *p) { (void)p; }

__attribute__((noinline)) void *mm_realloc(void *p, size_t size)
{
    return realloc_copying(p, p ? hidden_table()[slot(p)] : 0, size);
}

#endif
