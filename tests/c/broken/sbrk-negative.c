/* sbrk-negative.c - a TRIGGER-byte request first tries to give 64 bytes back with mem_sbrk(-64),
 * twice, ignoring the refusal (a student's "shrink the heap"); otherwise correct. */
#include "bump.h"

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER) {
        mem_sbrk(-64);
        mem_sbrk(-64);
    }
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
