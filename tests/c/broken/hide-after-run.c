/* hide-after-run.c - honest (bump.h), but once a run has freed all it allocated
 * it keeps a word outside the heap, in the process's start-up stack, until the
 * next mm_init clears it: memory outside the heap changed only after a run's
 * last op, where no op's audit falls but the one after the run.  HIDE_RUN=N in
 * the environment picks the run, counted by mm_init's calls (1: the first
 * checked run, the default; 2: the checked replay). */
#include <stdlib.h>

#include "live-bump.h"

static size_t calls;
static unsigned long inits, hide_run;

static void note(void)
{
    ++calls;
    *startup_stack_word() = inits == hide_run && live == 0 && calls > 1 ? calls : 0;
}

int mm_init(void)
{
    const char *run = getenv("HIDE_RUN");
    hide_run = run ? strtoul(run, NULL, 10) : 1;
    ++inits;
    live = calls = 0;
    *startup_stack_word() = 0;
    return 0;
}
