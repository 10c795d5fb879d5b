/* divides.c - a TRIGGER-byte request divides by zero: a size class computed from a
 * table of class counts one too short, say. */
#include "bump.h"

static volatile size_t classes;  /* volatile: the compiler neither sees nor warns about the 0 */

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER)
        size += size / classes;
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
