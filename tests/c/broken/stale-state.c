/* stale-state.c - takes its arena from mem_sbrk on the first mm_malloc ever, not in
 * mm_init, so after the second mm_init it still hands out the old arena, which
 * now lies past the break.  Correct within one run: only the driver's second
 * correctness pass can find it.  Headerless, so it never writes there itself. */
#include "bump.h"

enum { ARENA = 1 << 20 };

static char *arena, *next;

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (!arena && (arena = next = mem_sbrk(ARENA)) == (void *)-1)
        return arena = NULL;
    size_t need = align_up(size ? size : 1);
    if (next + need > arena + ARENA)
        return NULL;
    next += need;
    return next - need;
}

void mm_free(void *p) { (void)p; }

/* Copies `size` bytes whatever the old size: the arena is always mapped. */
void *mm_realloc(void *p, size_t size)
{
    if (p && size == 0)
        return NULL;
    void *q = mm_malloc(size);
    if (p && q)
        memcpy(q, p, size);
    return q;
}
