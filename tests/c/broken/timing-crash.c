/* timing-crash.c - correct until the timed runs (the third mm_init on), where it aborts. */
#include <stdlib.h>

#include "bump.h"

static int inits;

int mm_init(void)
{
    inits++;
    return 0;
}

void *mm_malloc(size_t size)
{
    if (inits >= 3)
        abort();
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
