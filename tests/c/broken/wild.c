/* wild.c - a TRIGGER-byte request writes through a garbage pointer, one no process may
 * hold (non-canonical: the CPU faults without saying where), as a size or link read
 * from a payload or a corrupted header gives. */
#include "bump.h"

/* volatile, so the compiler neither sees nor warns about the constant address */
static char *volatile wild = (char *)0xdeadbeefdeadbeefull;

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER)
        *wild = 1;
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
