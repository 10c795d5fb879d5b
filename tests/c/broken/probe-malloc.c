/* probe-malloc.c - the starter bump allocator (bump.h) whose every mm_malloc
 * grows the heap by 1 MiB, empties it (mem_reset_brk) and grows it back to where
 * it was, writing nothing there: memlib's own canary is all that touches the
 * top page.  Documented memlib calls only; each call's break reaches 1 MiB past
 * the heap it returns with. */
#include "bump.h"

enum { PROBE = 1 << 20 };

void *mm_malloc(size_t size)
{
    size_t cur = mem_heapsize();
    if (mem_sbrk(PROBE) != (void *)-1) {
        mem_reset_brk();
        mem_sbrk((intptr_t)cur);
    }
    return bump(size);
}

int mm_init(void) { return 0; }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
