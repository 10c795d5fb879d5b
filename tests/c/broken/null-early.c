/* null-early.c - a TRIGGER-byte request gets NULL although the heap has room. */
#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return size == TRIGGER ? NULL : bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
