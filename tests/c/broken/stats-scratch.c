/* stats-scratch.c - honest (bump.h), but its optional mm_stats hook, called once
 * after the checked runs, keeps a counter in the process's start-up stack:
 * memory outside the heap, changed where no op's audit falls.  Untimed, the
 * audit after the hook's call is the last that could see it. */
#include "bump.h"

extern char **environ;

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }

void mm_stats(mm_stats_t *out)
{
    (void)out;
    ++*(volatile int *)(((uintptr_t)environ - (80 << 10)) & ~(uintptr_t)4095);
}
