/* asserts.c - a TRIGGER-byte request fails an assert(), as a student's checks do. */
#include <assert.h>

#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    assert(size != TRIGGER);
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
