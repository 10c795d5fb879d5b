/* checker-sbrk.c - a correct allocator whose heap checker grows the heap (mem_sbrk) after op 2. */
#include <stdbool.h>

#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }

bool mm_checkheap(int lineno)
{
    if (lineno == 2)
        mem_sbrk(4096);
    return true;
}
