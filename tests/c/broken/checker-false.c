/* checker-false.c - a correct allocator whose heap checker says "broken" after op 2.
 * It prints a line on every call, so a test can see that -c runs it after every
 * op and that without -c it never runs. */
#include <stdbool.h>
#include <stdio.h>

#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }

bool mm_checkheap(int lineno)
{
    printf("mm_checkheap(%d)\n", lineno);
    return lineno != 2;
}
