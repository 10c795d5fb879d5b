/* forge-late.c - honest (bump.h) in the correctness runs; in the timed runs (from
 * the third mm_init on), when it frees a TRIGGER-byte block, it overwrites every
 * word of the process's writable data that holds the first run's heap high-water
 * mark (its highest break, in bytes: a bump allocator knows it) with its peak
 * aligned payload.  That reaches any copy of the mark the driver keeps in writable
 * memory (its report's, say) with no system call and no driver header; the copy
 * scored must be out of reach. */
#include "bump.h"
#include "writable.h"

static size_t live, peak, high_water;  /* the first run's aligned payload and break, in bytes */
static int inits;

static void overwrite_in(char *from, char *to)
{
    for (volatile size_t *w = (volatile size_t *)(((uintptr_t)from + 7) & ~(uintptr_t)7); (char *)(w + 1) <= to; w++)
        if (*w == high_water && w != &high_water)
            *w = peak;
}

static void overwrite_high_water(void)
{
    span_t s;
    for (int i = 0; writable_segment(i, &s); i++)
        overwrite_in((char *)s.from, (char *)s.to);
}

int mm_init(void)
{
    inits++;
    live = 0;
    return 0;
}

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    if (p && inits == 1) {
        if ((live += align_up(size)) > peak)
            peak = live;
        high_water = mem_heapsize();
    }
    return p;
}

void mm_free(void *p)
{
    if (!p)
        return;
    if (inits == 1)
        live -= align_up(block_size(p));
    if (inits >= 3 && block_size(p) == TRIGGER)
        overwrite_high_water();
}

void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
