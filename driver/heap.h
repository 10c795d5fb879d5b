/*
 * heap.h - the driver's side of the simulated heap (memlib.c).
 *
 * An allocator sees only memlib.h.  These calls let the driver size the heap,
 * switch between the checked mode of the correctness pass (pages past the break
 * inaccessible, a canary in the last page's slack) and the fast mode of the
 * timing pass (a plain pointer bump), and read what the allocator cannot reset:
 * the break's high-water mark.  memlib's state sits in pages of its own, read-only
 * whenever allocator code runs in checked mode; the mark a timed run's clean
 * start follows is kept in another, read-only but for heap_keep_mark.  The parent
 * scores the breaks the child reports, bounded by the pages it saw touched.
 */
#ifndef DRIVER_HEAP_H
#define DRIVER_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The heap's fixed address: far from the driver's own data and from where
 * AddressSanitizer keeps its shadow memory. */
static const uintptr_t HEAP_BASE = 0x500000000000u;
/* The same in a ThreadSanitizer build (the thread tests'; mdriver is never built
 * with it): TSan keeps no programs' memory near HEAP_BASE and kills a process
 * that maps there ("mmap at bad address"), but allows it below 512 GiB. */
static const uintptr_t TSAN_HEAP_BASE = 0x004000000000u;
/* Largest maximum heap a run may ask for; 32-bit offsets stay valid below it. */
static const size_t HEAP_LIMIT = (size_t)4 << 30;

/* Set the maximum heap for the next mem_init (default MDRIVER_DEFAULT_MAX_HEAP). */
void heap_configure(size_t max_heap);
/* Empty the heap and forget its high-water mark: the start of a pass.  A fast-mode
 * (timed) pass also starts from a clean heap: zero below the kept high-water mark's
 * page, nothing above it, whatever an earlier run wrote there. */
void heap_restart(bool checked);
/* Highest break reached since heap_restart, as bytes above mem_heap_lo(). */
size_t heap_high_water(void);
/* Keep the current run's high-water mark, and read it back: the mark below which
 * a timed run's clean start zeroes the heap (heap_restart). */
void heap_keep_high_water(void);
size_t heap_kept_high_water(void);
/* Keep a mark the caller measured: the child keeps the one its parent measured,
 * and, when lo is not 0, the heap's range [lo, end) its parent gives: the child's
 * own copy lies in pages the allocator may mprotect, and pointed away (lo = end)
 * the scrub left one timed run's heap to the next (red team). */
void heap_keep_mark(size_t high_water, uintptr_t lo, uintptr_t end);
/* The parent's view of the shared heap's range, [heap_shared_lo(), heap_shared_end()); 0 without one. */
uintptr_t heap_shared_end(void);
/* The parent's view of the child's first checked run (defense in depth, should an
 * allocator unseal memlib's state): heap_share reserves the heap MAP_SHARED before
 * fork and the child's mem_init adopts it; heap_touched is then how far above
 * mem_heap_lo() the highest page any process touched ends (mincore); heap_unshare
 * lets the parent's view go. */
void heap_share(void);
size_t heap_touched(void);
/* After a timed run (fast mode: the whole heap writable), whether any byte above
 * `mark` bytes above mem_heap_lo() was touched since the run's clean start: the
 * scrub zeroed the rest of the mark's page and heap_drop_above removed every page
 * above it.  *at: how far above mem_heap_lo() the first such byte (or page) is. */
bool heap_touched_above(size_t mark, size_t *at);
/* Whether a guard page of the shared heap is resident: -1 the one below
 * mem_heap_lo(), 1 the one above the heap's maximum, 0 neither.  No honest run
 * touches them, but they lie in the range memlib mprotects, which the sandbox
 * lets the allocator mprotect too. */
int heap_guard_touched(void);
void heap_unshare(void);
/* The parent's side of a shared heap: heap_share_view makes its own view of the
 * heap writable (after fork: the child's pages past the break must stay
 * inaccessible), where it fills and checks payloads; heap_shared_lo is the heap's
 * low end there, the same address as the child's; heap_drop_above removes every
 * page above high_water's page, for a timed run's clean start. */
void heap_share_view(void);
uintptr_t heap_shared_lo(void);
void heap_drop_above(size_t high_water);
/* The first byte of [from, to) that is not memlib's canary, or 0. */
uintptr_t heap_canary_broken(uintptr_t from, uintptr_t to);
/* The first overwritten canary byte mem_sbrk found as the heap grew over it, or 0. */
uintptr_t heap_sbrk_violation(void);
/* What memlib mprotects as it runs: its two state records and, once heap_share
 * has reserved it, the heap with its guard pages (the ranges a sandboxed child
 * must still be allowed to mprotect).  Returns how many, at most 3. */
size_t heap_mprotect_ranges(uintptr_t lo[3], size_t len[3]);
/* The bytes of memlib's two state records that it writes: the rest of their
 * pages stays zero, so that an allocator that opens them with mprotect cannot
 * keep metadata there unaudited.  Returns how many, 2. */
size_t heap_state_fields(uintptr_t lo[2], size_t len[2]);
/* True when p lies in memlib's own state (for messages about a write there). */
bool heap_state_contains(uintptr_t p);
/* True when [p, p + len) lies inside [mem_heap_lo(), break). */
bool heap_contains(uintptr_t p, size_t len);
/* The first byte past the break that the allocator overwrote, or 0.  Checks at
 * most `limit` bytes of the slack (0 = all of it), plus anything found by mem_sbrk. */
uintptr_t heap_slack_violation(size_t limit);
/* Where the heap was mapped and how far it can grow (for messages). */
uintptr_t heap_lo(void);
size_t heap_max(void);

#endif
