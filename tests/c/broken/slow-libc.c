/* slow-libc.c - honest (bump.h), but its first mm_init slows libc's malloc down:
 * no top padding, trim at every free, mmap for every growth of the heap.  The red
 * team did the same with plain stores into glibc's tunables (found from stdout,
 * no call at all); mallopt stands in for them here.  libc's timing must not run
 * after allocator code in the same process. */
#include <malloc.h>

#include "bump.h"

static int inits;

int mm_init(void)
{
    if (++inits == 1) {
        mallopt(M_TOP_PAD, 0);
        mallopt(M_TRIM_THRESHOLD, 0);
        mallopt(M_MMAP_THRESHOLD, 0);
        mallopt(M_MXFAST, 0);
    }
    return 0;
}

void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
