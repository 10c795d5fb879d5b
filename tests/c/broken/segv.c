/* segv.c - a TRIGGER-byte request writes through a wild pointer (address 0x10, or
 * WILD_ADDRESS when a file including this one defines it). */
#include "bump.h"

#ifndef WILD_ADDRESS
#define WILD_ADDRESS 0x10
#endif

/* volatile, so the compiler neither sees nor warns about the constant address */
static char *volatile wild = (char *)WILD_ADDRESS;

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER)
        *wild = 1;
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
