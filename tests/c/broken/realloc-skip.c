/* realloc-skip.c - mm_realloc copies all it must keep but the first byte. */
#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }

void *mm_realloc(void *p, size_t size)
{
    if (!p)
        return bump(size);
    if (size == 0)
        return NULL;
    char *q = bump(size);
    size_t old = block_size(p), keep = old < size ? old : size;
    if (q && keep > 1)
        memcpy(q + 1, (char *)p + 1, keep - 1);
    return q;
}
