/* hide-at-peak.c - honest (bump.h), but while its live payload is above
 * PEAK_BYTES (and at most HIDE_UPTO bytes, when that is set in the environment)
 * it keeps a word outside the heap, in the process's start-up stack, and clears
 * it as soon as the payload leaves that band: the way metadata would be kept
 * out only around a peak, where it pays, for a few ops that random audits
 * would seldom fall on. */
#include <stdlib.h>

#include "live-bump.h"

enum { PEAK_BYTES = 150000 };

static size_t upto;

static void note(void)
{
    *startup_stack_word() = live > PEAK_BYTES && live <= upto ? live : 0;
}

int mm_init(void)
{
    live = 0;
    const char *band = getenv("HIDE_UPTO");
    upto = band ? strtoul(band, NULL, 10) : SIZE_MAX;
    return 0;
}
