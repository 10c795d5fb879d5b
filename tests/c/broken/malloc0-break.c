/* malloc0-break.c - the starter bump allocator (bump.h) whose mm_malloc(0)
 * returns the break itself without growing the heap: a unique 0-byte block at
 * the break, where the starter mm.c's header-only block lands too; on a trace
 * that begins with it, the start of an empty heap. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == 0)
        return (char *)mem_heap_hi() + 1;
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
