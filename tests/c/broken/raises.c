/* raises.c - a TRIGGER-byte request raises SIGINT, a TRIGGER+1-byte one sends
 * itself SIGTERM: the allocator's own signals, which end its trace as a crash
 * (they are not the driver's interrupt).  TRIGGER+2 raises SIGFPE and TRIGGER+3
 * sends itself SIGSEGV: signals the driver catches as faults, sent instead.
 * Otherwise the honest bump allocator. */
#include <signal.h>
#include <unistd.h>

#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER)
        raise(SIGINT);
    if (size == TRIGGER + 1)
        kill(getpid(), SIGTERM);
    if (size == TRIGGER + 2)
        raise(SIGFPE);
    if (size == TRIGGER + 3)
        kill(getpid(), SIGSEGV);
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
