/* init-one.c - mm_init returns 1 (a bool's true) where the kit's int mm_init returns 0. */
#include "bump.h"

int mm_init(void) { return 1; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
