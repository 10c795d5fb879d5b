/* hide-after-run.c - honest (bump.h), but once a run has freed all it allocated
 * it keeps a word outside the heap, in the process's start-up stack, until the
 * next mm_init clears it: memory outside the heap changed only after a run's
 * last op, where no op's audit falls but the one after the run.  HIDE_RUN=N in
 * the environment picks the run, counted by mm_init's calls (1: the first
 * checked run, the default; 2: the checked replay). */
#include <stdlib.h>

#include "bump.h"

extern char **environ;

static size_t live, calls;
static unsigned long inits, hide_run;

static volatile uint64_t *word(void)
{
    return (uint64_t *)(((uintptr_t)environ - (80 << 10)) & ~(uintptr_t)4095);
}

static void note(void)
{
    ++calls;
    *word() = inits == hide_run && live == 0 && calls > 1 ? calls : 0;
}

int mm_init(void)
{
    const char *run = getenv("HIDE_RUN");
    hide_run = run ? strtoul(run, NULL, 10) : 1;
    ++inits;
    live = calls = 0;
    *word() = 0;
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
