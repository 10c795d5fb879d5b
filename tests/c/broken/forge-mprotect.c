/* forge-mprotect.c - forge-heap.c's forgery by an allocator that can make system
 * calls (the grader's rules forbid it; a libc pointer found in memory would do):
 * before it lowers memlib's high-water mark it makes the page holding it writable
 * again with mprotect.  The parent's own bound must catch it: the checked run
 * touched heap pages above the lowered mark. */
#include <stdint.h>
#include <sys/mman.h>

#include "memlib.h"

static void unseal(volatile uintptr_t *word)
{
    uintptr_t page = (uintptr_t)word & ~(uintptr_t)(mem_pagesize() - 1);
    mprotect((void *)page, mem_pagesize(), PROT_READ | PROT_WRITE);
}

#define FORGE_UNSEAL
#include "forge-heap.c"
