/* sys-kill.c - a TRIGGER-byte request signals the parent (the driver) with
 * SIGCONT, harmless had it gone through; otherwise the honest bump allocator.
 * The sandbox refuses a signal to any process but the trace's own. */
#include <signal.h>
#include <unistd.h>

#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER)
        kill(getppid(), SIGCONT);
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
