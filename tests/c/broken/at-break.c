/* at-break.c - a TRIGGER-byte request gets the break itself, the heap not grown:
 * the block begins where the heap ends, every byte of it past the break. */
#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return size == TRIGGER ? (char *)mem_heap_hi() + 1 : bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
