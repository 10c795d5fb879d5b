/* checker-void-void.c - a correct allocator whose heap checker takes no line number and
 * returns nothing, `void mm_checkheap(void)`: it reports by printing.  Its return register is
 * left holding 0, as whatever it last computed may leave it: called as the kit's bool form,
 * it read as "returned false". */
#include <stdio.h>

#include "bump.h"

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }

void mm_checkheap(void)
{
    printf("checked\n");
    __asm__ volatile("xor %%eax, %%eax" ::: "rax");
}
