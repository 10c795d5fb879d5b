/*
 * hide-fields.h - the red team's headerless allocator whose block sizes live in
 * one 64-bit word kept somewhere outside memory, between calls.
 *
 * The file that includes it names the place: load() and store() of the word,
 * SLOTS fields of FIELD_BITS bits each.  A block's field is its slot: its offset
 * in alignment units, modulo SLOTS.  A size too large for a field is stored as
 * the field's largest value, so that a collision only makes a realloc copy more
 * than the old block's bytes, never fewer: whenever the place keeps the word,
 * every copy is whole, and when something clears it between two calls, the
 * first realloc copies nothing and the driver sees the payload lost.
 */
#ifndef BROKEN_HIDE_FIELDS_H
#define BROKEN_HIDE_FIELDS_H

#include "bump.h"  /* for align_up: the blocks themselves get no header here */

static inline uint64_t load(void);
static inline void store(uint64_t word);

static const uint64_t FIELD_MAX = (1ull << FIELD_BITS) - 1;

static inline unsigned slot(const void *p)
{
    return (unsigned)(((size_t)((const char *)p - (const char *)mem_heap_lo()) / MM_ALIGNMENT) % SLOTS);
}

static char *grab(uint64_t *word, size_t size)
{
    char *p = mem_sbrk((intptr_t)align_up(size ? size : 1));
    if (p == (void *)-1)
        return NULL;
    unsigned at = FIELD_BITS * slot(p);
    *word &= ~(FIELD_MAX << at);
    *word |= (size < FIELD_MAX ? size : FIELD_MAX) << at;
    return p;
}

int mm_init(void) { store(0); return 0; }
void *mm_malloc(size_t size) { uint64_t w = load(); char *p = grab(&w, size); store(w); return p; }
void mm_free(void *p) { uint64_t w = load(); (void)p; store(w); }
void *mm_realloc(void *p, size_t size)
{
    uint64_t w = load();
    char *q = NULL;
    if (!p)
        q = grab(&w, size);
    else if (size) {
        size_t old = (w >> (FIELD_BITS * slot(p))) & FIELD_MAX;
        if ((q = grab(&w, size)))
            for (size_t i = 0; i < old && i < size; i++)
                ((volatile char *)q)[i] = ((char *)p)[i];
    }
    store(w);
    return q;
}

#endif
