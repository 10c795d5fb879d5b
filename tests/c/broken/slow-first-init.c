/* slow-first-init.c - an honest bump allocator whose first mm_init sleeps, so a
 * test can look at the trace's processes while libc's child waits beside it. */
#include <time.h>

#include "bump.h"

static int calls;

int mm_init(void)
{
    if (!calls++)
        nanosleep(&(struct timespec){.tv_sec = 3}, NULL);
    return 0;
}
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
