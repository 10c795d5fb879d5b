/* forge-mprotect.c - forge-heap.c's forgery by an allocator that can make system
 * calls (the grader's rules forbid it; a libc pointer found in memory would do):
 * before it lowers memlib's high-water mark it makes the page holding it writable
 * again with mprotect.  The parent's own bound must catch it: the checked run
 * touched heap pages above the lowered mark. */
#include <sys/mman.h>

#include "bump.h"
#include "writable.h"

static size_t live, peak;  /* aligned payload bytes, now and at most */

static void lower_high_water(void)
{
    uintptr_t lo = (uintptr_t)mem_heap_lo(), brk = (uintptr_t)mem_heap_hi() + 1;
    span_t s = {0};
    for (int i = 0; writable_segment(i, &s) && !(s.from <= (uintptr_t)&live && (uintptr_t)&live < s.to); i++)
        ;
    for (volatile uintptr_t *w = (volatile uintptr_t *)((uintptr_t)&live & ~(uintptr_t)7); (uintptr_t)w >= s.from; w--)
        if (w[0] == lo && w[3] == brk) {
            uintptr_t page = (uintptr_t)&w[5] & ~(uintptr_t)(mem_pagesize() - 1);
            mprotect((void *)page, mem_pagesize(), PROT_READ | PROT_WRITE);
            w[5] = lo + peak;
            return;
        }
}

int mm_init(void)
{
    live = peak = 0;
    return 0;
}

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    if (p && (live += align_up(size)) > peak)
        peak = live;
    return p;
}

void mm_free(void *p)
{
    if (!p)
        return;
    live -= align_up(block_size(p));
    if (block_size(p) == TRIGGER)
        lower_high_water();
}

void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
