/* overflow.c - a TRIGGER-byte request overflows a signed int: UBSan's report in a SANITIZE=1 build. */
#include <limits.h>

#include "bump.h"

static volatile int counter = INT_MAX;  /* volatile: the overflow happens at run time */

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER)
        counter = counter + 1;
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
