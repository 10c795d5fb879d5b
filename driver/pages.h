/*
 * pages.h - memory for the driver's own arrays, straight from mmap.
 *
 * glibc tunes itself by what a process frees: freeing a block it had mmapped
 * raises its mmap and trim thresholds for the rest of the process, and every
 * child forked later inherits them.  Had the driver malloc'd its per-trace
 * arrays, libc's timed speed on a trace would depend on the traces run before
 * it (measured: classic-binary's libc 37 Mops/s alone, 101 Mops/s after
 * rec-gcc).  Every array whose size follows a trace comes from here instead, so
 * libc's heap in each trace's child is the one a fresh process would have.
 */
#ifndef DRIVER_PAGES_H
#define DRIVER_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* n zeroed bytes; NULL when out of memory.  Not inherited by a child forked
 * later (MADV_DONTFORK): a trace's child gets none of the parent's arrays. */
void *pages_alloc(size_t n);
/* n zeroed bytes that a child forked later shares with the parent. */
void *pages_alloc_shared(size_t n);
/* p (from pages_alloc) resized to n bytes, contents kept, new bytes zeroed;
 * NULL when out of memory, and then p is still valid. */
void *pages_resize(void *p, size_t n);
/* True when addr lies in p's pages (for messages about a write there). */
bool pages_contains(const void *p, uintptr_t addr);
/* True when no page of p (from pages_alloc_shared) was ever touched, by this
 * process or a child: the array starts on a page of its own, after its header's. */
bool pages_untouched(const void *p);
/* p (from pages_alloc_shared) shared with the children forked so far only:
 * one forked later gets none of it.  NULL is fine. */
void pages_share_no_further(void *p);
/* Give p back; NULL is fine. */
void pages_free(void *p);

#endif
