/* sys-mprotect.c - a TRIGGER-byte request mprotects a page of its own .bss (outside
 * the heap) read-only and back, as an allocator would to unseal driver pages;
 * otherwise the honest bump allocator.  The sandbox refuses the mprotect. */
#include <stdint.h>
#include <sys/mman.h>

#include "bump.h"

static char own_page[2 * 4096];

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size == TRIGGER) {
        char *p = (char *)(((uintptr_t)own_page + 4095) & ~(uintptr_t)4095);
        mprotect(p, 4096, PROT_READ);
        mprotect(p, 4096, PROT_READ | PROT_WRITE);
    }
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
