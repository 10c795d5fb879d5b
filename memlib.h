/*
 * memlib.h - the simulated heap: the only "operating system" an allocator sees.
 *
 * Contract (memlib.c implements it; the driver enforces it):
 *   1. The heap is one range of bytes [mem_heap_lo(), mem_heap_hi()] that begins
 *      empty.  It lives in a mapping of its own, away from the driver's data, at
 *      the same address in every run (HEAP_BASE, driver/heap.h), with an
 *      unmapped guard page below it.
 *   2. mem_sbrk(incr) moves the break up by incr >= 0 bytes and returns the old
 *      break.  A negative incr, or growth past the run's maximum heap (20 MiB
 *      unless `mdriver -M` says otherwise), returns (void *)-1 with errno = ENOMEM
 *      and changes nothing; a negative one is also told, once a trace, in the
 *      allocator's output (in the checked runs; `mdriver -v` shows it).
 *   3. The bytes past the break are not the allocator's.  Whole pages past it are
 *      inaccessible, so touching them faults at once; the bytes between the break
 *      and the end of its page hold a canary that the driver checks.  (In the
 *      timed runs the heap is writable, for speed; the driver checks after each
 *      run that nothing past the checked runs' highest break was touched.)
 *   4. mem_reset_brk() empties the heap: call it only when no block is live (a
 *      break fallen below a live block is out_of_heap at that op).  The
 *      driver measures utilization from the break's high-water mark, which
 *      mem_reset_brk does not lower.
 *   5. mem_heapsize() = break - mem_heap_lo(); mem_heap_hi() is the last byte
 *      below the break (mem_heap_lo() - 1 while the heap is empty).
 *   6. memlib's own state (the break, its high-water mark) is not the allocator's
 *      to write: in the correctness runs its pages are read-only, so a write there
 *      faults.
 *   7. memlib is not thread-safe: mem_sbrk opens its state's pages and seals them
 *      again around each write, so two calls at once can fault.  A thread-safe
 *      allocator calls it under a lock of its own (ts-lock's `lock`, ts-nolock's
 *      `grow`); the shim's region.c, memlib in a real process, locks mem_sbrk.
 *
 * mem_init and mem_deinit are the driver's; an allocator never calls them (a
 * mem_init of the allocator's is taken as mem_reset_brk, and told as a negative
 * mem_sbrk is).
 */
#ifndef MEMLIB_H
#define MEMLIB_H

#include <stddef.h>
#include <stdint.h>

void mem_init(void);
void mem_deinit(void);
void *mem_sbrk(intptr_t incr);
void mem_reset_brk(void);
void *mem_heap_lo(void);
void *mem_heap_hi(void);
size_t mem_heapsize(void);
size_t mem_pagesize(void);

#endif
