/*
 * expect.h - how the variants' black-box harnesses (unit.c, ts_frees.c,
 * seglist_fit.c) state what they expect: CHECK(cond) prints the failed
 * condition and its line and exits 1, so a case ends at its first surprise
 * and says which; stats() is the variant's counters as they stand.
 */
#ifndef VARIANTS_EXPECT_H
#define VARIANTS_EXPECT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm.h"

static inline void check(bool ok, const char *what, int line)
{
    if (ok)
        return;
    printf("FAIL line %d: %s\n", line, what);
    exit(1);
}

/* A macro only for the condition's text and line. */
#define CHECK(cond) check((cond), #cond, __LINE__)

static inline mm_stats_t stats(void)
{
    mm_stats_t s;
    memset(&s, 0, sizeof s);
    mm_stats(&s);
    return s;
}

#endif
