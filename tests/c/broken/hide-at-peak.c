/* hide-at-peak.c - honest (bump.h), but while its live payload is above
 * PEAK_BYTES (and at most HIDE_UPTO bytes, when that is set in the environment)
 * it keeps a word outside the heap, in the process's start-up stack, and clears
 * it as soon as the payload leaves that band: the way metadata would be kept
 * out only around a peak, where it pays, for a few ops that random audits
 * would seldom fall on. */
#include <stdlib.h>

#include "bump.h"

enum { PEAK_BYTES = 150000 };

extern char **environ;

static size_t live, upto;

static void note(void)
{
    volatile uint64_t *word = (uint64_t *)(((uintptr_t)environ - (80 << 10)) & ~(uintptr_t)4095);
    *word = live > PEAK_BYTES && live <= upto ? live : 0;
}

int mm_init(void)
{
    live = 0;
    const char *band = getenv("HIDE_UPTO");
    upto = band ? strtoul(band, NULL, 10) : SIZE_MAX;
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
