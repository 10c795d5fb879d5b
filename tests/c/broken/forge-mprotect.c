/* forge-mprotect.c - honest (bump.h) but for where it keeps one record: on a
 * request of TRIGGER bytes it makes the page after its break's page writable with
 * mprotect and writes there, in memory past the break that utilization does not
 * count.  The parent, which shares the heap, must see the page touched. */
#include <stdint.h>
#include <sys/mman.h>

#include "bump.h"

static void hide_a_record(void)
{
    uintptr_t page = mem_pagesize(), brk = (uintptr_t)mem_heap_hi() + 1;
    char *past = (char *)((brk + page - 1) / page * page + page);
    if (mprotect(past, page, PROT_READ | PROT_WRITE) == 0)
        past[0] = 1;
}

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER)
        hide_a_record();
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
