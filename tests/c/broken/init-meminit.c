/* init-meminit.c - the starter bump allocator (bump.h) whose mm_init calls mem_init
 * first, "to set up the heap", though the driver has: memlib.h's call, not its. */
#include "bump.h"

int mm_init(void)
{
    mem_init();
    return 0;
}
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
