/* Fake simulated heap for the grader's tests: the memlib API, backed by a static array. */
#include <stdint.h>
#include "memlib.h"

static char heap[1 << 16];
static size_t brk_at;

void mem_init(void) { brk_at = 0; }
void mem_deinit(void) { brk_at = 0; }
void mem_reset_brk(void) { brk_at = 0; }
void *mem_heap_lo(void) { return heap; }
void *mem_heap_hi(void) { return heap + brk_at - 1; }
size_t mem_heapsize(void) { return brk_at; }
size_t mem_pagesize(void) { return 4096; }

void *mem_sbrk(intptr_t incr)
{
    if (incr < 0 || brk_at + (size_t)incr > sizeof heap)
        return (void *)-1;
    brk_at += (size_t)incr;
    return heap + brk_at - incr;
}
