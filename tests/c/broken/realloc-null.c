/* realloc-null.c - mm_malloc is correct, but mm_realloc(NULL, TRIGGER) returns a
 * block 8 bytes off: only a driver that makes the very call the trace names sees it. */
#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }

void *mm_realloc(void *p, size_t size)
{
    char *q = copy_realloc(p, size);
    return q && !p && size == TRIGGER ? q + 8 : q;
}
