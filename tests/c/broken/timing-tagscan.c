/* timing-tagscan.c - honest in the checked runs; from the third mm_init on (the
 * timing runs) realloc copies only the first non-zero byte of the old block.
 * On a heap zeroed for each timed run that byte was the driver's tag, the only
 * one it checks, so the run passed with a fraction of the copying (red team). */
#include "bump.h"

static int inits;

int mm_init(void)
{
    inits++;
    return 0;
}

void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }

void *mm_realloc(void *p, size_t size)
{
    if (inits < 3 || !p || !size)
        return copy_realloc(p, size);
    char *q = bump(size);
    const char *old = p;
    size_t keep = block_size(p) < size ? block_size(p) : size;
    for (size_t i = 0; q && i < keep; i++)
        if (old[i]) {
            q[i] = old[i];
            break;
        }
    return q;
}
