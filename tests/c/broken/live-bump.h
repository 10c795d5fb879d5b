/*
 * live-bump.h - bump.h's honest allocator, counting its live payload and
 * calling the file's note() after every malloc and free: the core of the cheats
 * that keep a word outside the heap only while the payload is in some band.
 */
#ifndef BROKEN_LIVE_BUMP_H
#define BROKEN_LIVE_BUMP_H

#include "bump.h"

extern char **environ;

static size_t live;         /* payload bytes live now */

static void note(void);     /* the file's own: after each malloc and free */

/* A word of the process's start-up stack, 80 KiB below the environment, where
 * the driver's frames were before fork and none are after. */
static inline volatile uint64_t *startup_stack_word(void)
{
    return (uint64_t *)(((uintptr_t)environ - (80 << 10)) & ~(uintptr_t)4095);
}

void *mm_malloc(size_t size)
{
    char *p = bump(size);
    if (p)
        live += size;
    note();
    return p;
}

void mm_free(void *p)
{
    if (p)
        live -= block_size(p);
    note();
}

void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }

#endif
