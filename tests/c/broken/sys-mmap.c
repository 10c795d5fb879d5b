/* sys-mmap.c - a TRIGGER-byte request mmaps a page outside the heap to keep
 * metadata in, where no check and no utilization figure would see it; otherwise
 * the honest bump allocator.  The sandbox refuses the mmap. */
#include <sys/mman.h>

#include "bump.h"

static size_t *side_table;

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER && !side_table) {
        void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED)
            side_table = m;
    }
    if (side_table)
        side_table[0]++;
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
