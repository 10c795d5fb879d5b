/* init-crash.c - mm_init writes through a heap pointer it has not set yet (NULL). */
#include "bump.h"

static char *volatile heap_start;   /* volatile: the compiler neither sees nor warns about the NULL */

int mm_init(void)
{
    *heap_start = 0;
    return 0;
}
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
