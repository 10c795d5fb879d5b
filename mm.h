/*
 * mm.h - the allocator API: what a student implements in mm.c.
 *
 * The four classic calls.  A mm.c written for the classic CS:APP handout builds
 * unchanged against this header, with or without its `team_t team` struct, and so
 * does one for the 2016 64-bit lab (its DRIVER aliases, its bool mm_init).
 *
 *   mm_init      prepare an empty heap; 0 on success, -1 on failure.  The driver
 *                calls it before every pass, so it must reset all state.  The
 *                2016 64-bit lab's `bool mm_init(void)` (true on success) is
 *                detected by the build, which then defines MM_INIT_BOOL.
 *   mm_malloc    a block of at least size bytes, aligned to MM_ALIGNMENT and
 *                entirely inside the heap; NULL only when the heap cannot grow.
 *                mm_malloc(0) may return NULL or a unique block, which may sit at
 *                the break (a header-only block, as the starter mm.c returns).
 *   mm_free      release a block from mm_malloc/mm_realloc; mm_free(NULL) does nothing.
 *   mm_realloc   mm_realloc(NULL, n) is mm_malloc(n); mm_realloc(p, 0) is mm_free(p)
 *                and returns NULL (a block returned instead is accepted if it would
 *                do for mm_malloc(0), and the driver frees it at once); otherwise a
 *                block of n bytes whose first min(old size, n) bytes equal the old
 *                block's, which is then freed.
 *
 * Optional hooks, used when the allocator defines them (weak references in the driver):
 *   bool mm_checkheap(int lineno)     heap checker; returns false on a problem (after
 *                                     printing it).  Run after every op by `mdriver -c`.
 *                                     Not declared here so that a classic
 *                                     `void mm_checkheap(int)` still compiles.
 *   void mm_stats(mm_stats_t *out)    counters for the driver's report (mm_stats.h).
 */
#ifndef MM_H
#define MM_H

#include <stddef.h>
#include "config.h"
#include "mm_stats.h"

#ifdef MM_INIT_BOOL
#include <stdbool.h>
bool mm_init(void);
#else
int mm_init(void);
#endif
void *mm_malloc(size_t size);
void mm_free(void *ptr);
void *mm_realloc(void *ptr, size_t size);

void mm_stats(mm_stats_t *out);

/* The classic handout's identification struct; defining it is optional. */
typedef struct {
    char *teamname;
    char *name1;
    char *id1;
    char *name2;
    char *id2;
} team_t;

extern team_t team;

#endif
