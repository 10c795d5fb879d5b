/* hide-at-peak.c - honest (bump.h), but while its live payload is above
 * PEAK_BYTES it keeps a word outside the heap, in the process's start-up stack,
 * and clears it as soon as the payload falls again: the way metadata would be
 * kept out only around a peak, where it pays, for a few ops that random audits
 * would seldom fall on. */
#include "bump.h"

enum { PEAK_BYTES = 150000 };

extern char **environ;

static size_t live;

static void note(void)
{
    volatile uint64_t *word = (uint64_t *)(((uintptr_t)environ - (80 << 10)) & ~(uintptr_t)4095);
    *word = live > PEAK_BYTES ? live : 0;
}

int mm_init(void)
{
    live = 0;
    return 0;
}

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    if (p)
        live += size;
    note();
    return p;
}

void mm_free(void *p)
{
    if (p)
        live -= block_size(p);
    note();
}

void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
