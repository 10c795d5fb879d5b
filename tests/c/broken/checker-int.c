/* checker-int.c - a correct allocator whose heap checker is a handout's `int
 * mm_checkheap(int)`: nonzero (256, whose low byte is 0) means consistent, and it
 * says "broken" (0) after op 2. */
#include <stdio.h>

#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }

int mm_checkheap(int lineno)
{
    printf("mm_checkheap(%d)\n", lineno);
    return lineno != 2 ? 256 : 0;
}
