/* checker-reset.c - a correct allocator whose heap checker empties the heap
 * (mem_reset_brk) after op 2, with a block still live: lowering the break is as
 * much a change to the heap as growing it. */
#include <stdbool.h>

#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }

bool mm_checkheap(int lineno)
{
    if (lineno == 2)
        mem_reset_brk();
    return true;
}
