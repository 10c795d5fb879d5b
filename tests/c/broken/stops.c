/* stops.c - a TRIGGER-byte request stops the process (SIGSTOP): stopped, not slow. */
#include <signal.h>

#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER)
        raise(SIGSTOP);
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
