/* forge-heap.c - honest (bump.h) but for one write: when it frees a TRIGGER-byte
 * block it looks for memlib's state by scanning down from one of its own statics
 * (no system call, no driver header: memlib's struct starts with the words
 * mem_heap_lo() and, three words on, the break) and lowers the break's high-water
 * mark, two words past the break, to what its peak aligned payload needed.  The
 * driver must not score the lowered mark: the state is read-only while it runs. */
#include "bump.h"
#include "writable.h"

static size_t live, peak;    /* aligned payload bytes, now and at most */

static void lower_high_water(void)
{
    uintptr_t lo = (uintptr_t)mem_heap_lo(), brk = (uintptr_t)mem_heap_hi() + 1;
    span_t s = {0};
    for (int i = 0; writable_segment(i, &s) && !(s.from <= (uintptr_t)&live && (uintptr_t)&live < s.to); i++)
        ;
    for (volatile uintptr_t *w = (volatile uintptr_t *)((uintptr_t)&live & ~(uintptr_t)7); (uintptr_t)w >= s.from; w--)
        if (w[0] == lo && w[3] == brk) {
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
