/* got-write.c - an honest bump allocator whose mm_init rewrites one slot of the
 * driver's GOT (with the value it already holds).  With lazy binding the GOT is
 * writable, and an allocator could point the driver's calls (clock_gettime) at
 * its own code; the driver is linked -z relro -z now, so the write must fault. */
#include <stdint.h>

#include "bump.h"

extern uintptr_t _GLOBAL_OFFSET_TABLE_[];

int mm_init(void)
{
    volatile uintptr_t *got = _GLOBAL_OFFSET_TABLE_;
    got[3] = got[3];
    return 0;
}

void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
