/* closes-hangs.c - a TRIGGER-byte request closes every file descriptor the process has from
 * CLOSE_FROM on (0 unless a file including this one defines it: its output and the channel's
 * doorbells), then never returns: the parent sees the child's ends close, as at its exit, but
 * the child lives on. */
#include <unistd.h>

#include "bump.h"

#ifndef CLOSE_FROM
#define CLOSE_FROM 0
#endif

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER)
        for (int fd = CLOSE_FROM; fd < 1024; fd++)
            close(fd);
    while (size == TRIGGER)
        __asm__ volatile("" ::: "memory");
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
