/*
 * memlib.c - the simulated heap (contract in memlib.h, driver calls in driver/heap.h).
 *
 *   HEAP_BASE - page   HEAP_BASE              brk        page end          HEAP_BASE + max
 *   | guard (none)     | allocator's bytes    | canary ... | inaccessible ... | guard |
 *
 * Checked mode (correctness pass): pages wholly past the break are PROT_NONE, so
 * a stray write faults at once; the bytes between the break and the end of its
 * page hold CANARY and are checked by mem_sbrk and the driver.  Fast mode
 * (timing pass): the whole range is writable and mem_sbrk is a pointer bump;
 * each fast-mode run starts from a clean heap (scrub), so that no run finds
 * what an earlier one left in it or past its break, and the parent checks
 * after it that nothing past the kept mark was touched (heap_touched_above).
 *
 * memlib's own state (the break, its high-water mark) lives in the driver's data,
 * where an allocator in the same process could find it and lower the mark it is
 * scored on.  So it sits alone in its own pages, read-only in checked mode except
 * while memlib itself writes it; fast mode leaves it writable.  The mark the
 * driver's timed runs follow is kept apart (heap_keep_mark), read-only but then.
 * The driver's parent may reserve the heap shared before fork (heap_share): the
 * child's mem_init adopts it, and the parent can see which pages were touched.
 */
#define _GNU_SOURCE
#include "memlib.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "driver/heap.h"

enum { CANARY = 0xCB };
/* A whole number of pages at every page size Linux uses (4 KiB to 64 KiB), so
 * that mprotect of a state's own pages touches nothing else. */
enum { STATE_BYTES = 1 << 16 };

static struct __attribute__((aligned(STATE_BYTES))) heap {
    char *lo;            /* first byte of the heap (HEAP_BASE when the fixed map worked) */
    size_t max;          /* how far the break may rise above lo (0: the default) */
    size_t mapped;       /* bytes of the reservation, guards included */
    char *brk;           /* current break */
    char *open_end;      /* end of the writable pages */
    char *high_water;    /* highest break since heap_restart */
    uintptr_t violation; /* first overwritten canary byte found by mem_sbrk, or 0 */
    bool checked;
    bool sealed;         /* these pages are read-only now */
    bool shrink_told;    /* a negative mem_sbrk was told in the trace's output */
    bool init_told;      /* likewise the allocator's call of mem_init */
    size_t page;
    char *shared;        /* the reservation heap_share made before fork, or NULL */
    char rest[];         /* the rest of the pages, unused: cleared with the heap in fast mode */
} heap;

/* The high-water mark utilization is scored on: kept at the end of the first
 * checked run, read-only from mem_init to mem_deinit but for that one write.
 * With it, where the heap is, for the fast mode's scrub: heap's copy is writable
 * in fast mode, and an allocator could point the scrub away from its own bytes. */
static struct __attribute__((aligned(STATE_BYTES))) kept {
    size_t high_water;   /* bytes above lo */
    char *lo, *end;      /* the heap's writable range at its largest: [lo, page_up(lo + max)) */
    bool shared;         /* the range is MAP_SHARED (heap_share): dropped pages must be removed */
    bool sealed;
    char rest[];         /* the rest of the pages, unused: never written */
} kept;

_Static_assert(sizeof heap == STATE_BYTES && sizeof kept == STATE_BYTES, "each state fills its own pages");

static inline size_t page_size(void)
{
    if (!heap.page)
        heap.page = (size_t)sysconf(_SC_PAGESIZE);
    return heap.page;
}

static inline char *page_up(char *p)
{
    uintptr_t mask = page_size() - 1;
    return (char *)(((uintptr_t)p + mask) & ~mask);
}

static inline char *heap_end(void) { return heap.lo + heap.max; }
static inline size_t max_heap(void) { return heap.max ? heap.max : MDRIVER_DEFAULT_MAX_HEAP; }

static void fail(const char *what)
{
    fprintf(stderr, "mdriver: simulated heap: %s: %s\n", what, strerror(errno));
    exit(3);
}

/* Make one state's pages read-only (sealed) or writable again. */
static void protect(void *state, bool *sealed, bool seal)
{
    if (*sealed == seal)
        return;
    if (seal)
        *sealed = true;  /* written while still writable */
    if (mprotect(state, STATE_BYTES, seal ? PROT_READ : PROT_READ | PROT_WRITE))
        fail("mprotect");
    if (!seal)
        *sealed = false;
}

/* Around each of memlib's own writes: open, write, close.  Closed means sealed in
 * checked mode (once mem_init has mapped the heap), writable in fast mode. */
static inline void state_open(void) { protect(&heap, &heap.sealed, false); }
static inline void state_close(void) { protect(&heap, &heap.sealed, heap.checked && heap.lo); }

static void set_open_end(char *end)
{
    if (end > heap.open_end && mprotect(heap.open_end, end - heap.open_end, PROT_READ | PROT_WRITE))
        fail("mprotect");
    if (end < heap.open_end && mprotect(end, heap.open_end - end, PROT_NONE))
        fail("mprotect");
    heap.open_end = end;
}

/* The first byte of [from, to) that is not the canary, or 0. */
static uintptr_t canary_broken(const char *from, const char *to)
{
    for (const char *p = from; p < to; p++)
        if ((unsigned char)*p != CANARY)
            return (uintptr_t)p;
    return 0;
}

void heap_configure(size_t max)
{
    state_open();
    heap.max = max;
    state_close();
}

/* Where the heap is mapped: HEAP_BASE, but where ThreadSanitizer allows it in its build. */
static inline uintptr_t heap_base(void)
{
#if defined(__SANITIZE_THREAD__)
    return TSAN_HEAP_BASE;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
    return TSAN_HEAP_BASE;
#endif
#endif
    return HEAP_BASE;
}

/* The heap's range and its guard pages, inaccessible: MAP_PRIVATE or MAP_SHARED. */
static char *reserve(int sharing)
{
    heap.max = max_heap();
    size_t page = page_size();
    heap.mapped = (size_t)page_up((char *)heap.max) + 2 * page;
    char *want = (char *)heap_base() - page;
    int flags = sharing | MAP_ANONYMOUS | MAP_NORESERVE;
    char *map = mmap(want, heap.mapped, PROT_NONE, flags | MAP_FIXED_NOREPLACE, -1, 0);
    if (map == MAP_FAILED)  /* the fixed address is taken: any address will do */
        map = mmap(NULL, heap.mapped, PROT_NONE, flags, -1, 0);
    if (map == MAP_FAILED)
        fail("cannot reserve the heap");
    return map;
}

void heap_share(void)
{
    heap.shared = reserve(MAP_SHARED);
    /* One touched byte must not make a whole huge page resident. */
    madvise(heap.shared, heap.mapped, MADV_NOHUGEPAGE);
}

/* The index of the lowest (or the highest) resident page of the shared heap's
 * pages [first, first + n), counted from its low guard page; SIZE_MAX: none. */
static size_t resident_page(size_t first, size_t n, bool highest)
{
    size_t page = page_size(), found = SIZE_MAX;
    unsigned char in[4096];
    for (size_t at = first; heap.shared && at < first + n; at += sizeof in) {
        size_t k = first + n - at < sizeof in ? first + n - at : sizeof in;
        if (mincore(heap.shared + at * page, k * page, in))
            fail("mincore");
        for (size_t i = 0; i < k; i++)
            if (in[i] & 1) {
                found = at + i;
                if (!highest)
                    return found;
            }
    }
    return found;
}

size_t heap_touched(void)
{
    size_t top = resident_page(0, heap.mapped / page_size(), true);
    return top == SIZE_MAX ? 0 : top * page_size();  /* page `top` ends top pages above lo (page 0 is the guard) */
}

int heap_guard_touched(void)
{
    if (!heap.shared)
        return 0;
    if (resident_page(0, 1, false) != SIZE_MAX)
        return -1;
    return resident_page(heap.mapped / page_size() - 1, 1, false) != SIZE_MAX;
}

bool heap_touched_above(size_t mark, size_t *at)
{
    if (!heap.shared)
        return false;
    size_t page = page_size();
    char *lo = heap.shared + page, *above = page_up(lo + mark), *end = page_up(lo + max_heap());
    /* The mark's own page is resident: its bytes past the mark, zeroed by the scrub, are read. */
    for (char *p = lo + mark; p < above && p < end; p++)
        if (*p) {
            *at = (size_t)(p - lo);
            return true;
        }
    /* Pages above it are only asked about: reading one would make it resident. */
    size_t first = (size_t)(above - heap.shared) / page;
    size_t hit = above < end ? resident_page(first, (size_t)(end - above) / page, false) : SIZE_MAX;
    if (hit == SIZE_MAX)
        return false;
    *at = (hit - 1) * page;
    return true;
}

void heap_unshare(void)
{
    if (heap.shared && munmap(heap.shared, heap.mapped))
        fail("munmap");
    heap.shared = NULL;
}

/* The allocator's mem_init, told once a trace in the output -v shows: it set a timed run's
 * heap back to checked mode, and the run failed past the break, naming nothing it wrote. */
static __attribute__((noinline)) void tell_init(void)
{
    if (heap.init_told)
        return;
    state_open();
    heap.init_told = true;
    state_close();
    printf("memlib: mem_init called by the allocator: it is the driver's, called before mm_init (memlib.h); "
           "taken as mem_reset_brk\n");
    fflush(stdout);
}

void mem_init(void)
{
    if (heap.lo) {  /* the heap is set up: the call is the allocator's */
        tell_init();
        mem_reset_brk();
        return;
    }
    state_open();
    char *map = heap.shared ? heap.shared : reserve(MAP_PRIVATE);
    heap.lo = heap.brk = heap.open_end = heap.high_water = map + page_size();
    heap.checked = true;
    heap.violation = 0;
    state_close();
    protect(&kept, &kept.sealed, false);
    kept.high_water = 0;
    kept.lo = heap.lo;
    kept.end = page_up(heap_end());
    kept.shared = map == heap.shared;
    protect(&kept, &kept.sealed, true);
}

void mem_deinit(void)
{
    state_open();
    protect(&kept, &kept.sealed, false);
    kept.lo = kept.end = NULL;
    if (heap.lo && munmap(heap.lo - page_size(), heap.mapped))
        fail("munmap");
    heap.lo = heap.shared = NULL;
}

void mem_reset_brk(void)
{
    state_open();
    heap.brk = heap.lo;
    if (heap.checked)
        set_open_end(heap.lo);
    state_close();
}

/* Fast mode's clean start: the heap zeroed below the kept mark's page, and every
 * page above it dropped, so that nothing an allocator left in the heap or past its
 * break (a table of the checked run's placements, say) outlives the run it wrote it
 * in; likewise the unused rest of memlib's state pages, writable in fast mode.
 * Zeroed rather than dropped below the mark: those pages stay resident, and an
 * honest timed run takes no page fault there.  A shared heap (heap_share) keeps a
 * dropped page's contents in the shared object until removed, which the parent
 * does (heap_drop_above): the child is allowed no call that could hide a page. */
static void scrub(void)
{
    if (!kept.lo)
        return;
    char *mark = page_up(kept.lo + kept.high_water);
    if (mark > kept.end)
        mark = kept.end;
    memset(kept.lo, 0, (size_t)(mark - kept.lo));
    memset(heap.rest, 0, STATE_BYTES - offsetof(struct heap, rest));  /* writable in fast mode too */
    if (mark < kept.end && !kept.shared && madvise(mark, (size_t)(kept.end - mark), MADV_DONTNEED))
        fail("madvise");
}

void heap_drop_above(size_t high_water)
{
    if (!heap.shared)
        return;
    char *lo = heap.shared + page_size(), *end = page_up(lo + max_heap());
    char *mark = page_up(lo + high_water);
    if (mark < end && madvise(mark, (size_t)(end - mark), MADV_REMOVE))
        fail("madvise");
}

void heap_share_view(void)
{
    if (heap.shared && mprotect(heap.shared + page_size(), (size_t)page_up((char *)max_heap()), PROT_READ | PROT_WRITE))
        fail("mprotect");
}

uintptr_t heap_shared_lo(void) { return heap.shared ? (uintptr_t)heap.shared + page_size() : 0; }

uintptr_t heap_shared_end(void) { return heap.shared ? (uintptr_t)page_up(heap.shared + page_size() + max_heap()) : 0; }

uintptr_t heap_canary_broken(uintptr_t from, uintptr_t to) { return canary_broken((const char *)from, (const char *)to); }

uintptr_t heap_sbrk_violation(void) { return heap.violation; }

size_t heap_mprotect_ranges(uintptr_t lo[3], size_t len[3])
{
    lo[0] = (uintptr_t)&heap, len[0] = STATE_BYTES;
    lo[1] = (uintptr_t)&kept, len[1] = STATE_BYTES;
    if (!heap.shared)
        return 2;
    lo[2] = (uintptr_t)heap.shared, len[2] = heap.mapped;
    return 3;
}

void heap_restart(bool checked)
{
    state_open();
    heap.checked = checked;
    heap.violation = 0;
    heap.brk = heap.lo;
    set_open_end(checked ? heap.lo : page_up(heap_end()));
    heap.high_water = heap.lo;
    state_close();
    if (!checked)
        scrub();
}

void heap_keep_mark(size_t high_water, uintptr_t lo, uintptr_t end)
{
    protect(&kept, &kept.sealed, false);
    kept.high_water = high_water;
    if (lo) {
        kept.lo = (char *)lo;
        kept.end = (char *)end;
        kept.shared = true;
    }
    protect(&kept, &kept.sealed, true);
}

void heap_keep_high_water(void) { heap_keep_mark(heap_high_water(), 0, 0); }

size_t heap_kept_high_water(void) { return kept.high_water; }

static inline char *bump(char *new)
{
    char *old = heap.brk;
    heap.brk = new;
    if (new > heap.high_water)
        heap.high_water = new;
    return old;
}

/* Checked mode: the canary and the page guard follow the break, and the state
 * is opened for the write and sealed again.  Kept out of line, so that fast
 * mode's mem_sbrk stays a few instructions. */
static __attribute__((noinline)) char *sbrk_checked(char *new)
{
    char *old = heap.brk;
    if (new == old)  /* nothing changes: no need to open the state */
        return old;
    state_open();
    /* Bytes handed over now were past the break until now: still the canary? */
    char *seen_end = new < heap.open_end ? new : heap.open_end;
    uintptr_t bad = canary_broken(old, seen_end);
    if (bad && !heap.violation)
        heap.violation = bad;
    if (new > heap.open_end) {
        char *end = page_up(new);
        set_open_end(end);
        memset(new, CANARY, end - new);
    }
    bump(new);
    state_close();
    return old;
}

/* A negative increment is always a mistake, and its crash comes much later, where the
 * allocator takes the break for lowered: said once a trace, in the output -v shows. */
static __attribute__((noinline)) void tell_shrink(intptr_t incr)
{
    if (heap.shrink_told)
        return;
    state_open();
    heap.shrink_told = true;
    state_close();
    printf("memlib: mem_sbrk(%" PRIdPTR ") refused: the heap never shrinks; it returned (void *)-1 and "
           "changed nothing\n", incr);
    fflush(stdout);
}

void *mem_sbrk(intptr_t incr)
{
    if (incr < 0 || (size_t)incr > (size_t)(heap_end() - heap.brk)) {
        if (incr < 0 && heap.checked)
            tell_shrink(incr);
        errno = ENOMEM;
        return (void *)-1;
    }
    char *new = heap.brk + incr;
    return heap.checked ? sbrk_checked(new) : bump(new);
}

void *mem_heap_lo(void) { return heap.lo; }
void *mem_heap_hi(void) { return heap.brk - 1; }
size_t mem_heapsize(void) { return (size_t)(heap.brk - heap.lo); }
size_t mem_pagesize(void) { return page_size(); }

size_t heap_high_water(void) { return (size_t)(heap.high_water - heap.lo); }
uintptr_t heap_lo(void) { return (uintptr_t)heap.lo; }
size_t heap_max(void) { return max_heap(); }

size_t heap_state_fields(uintptr_t lo[2], size_t len[2])
{
    lo[0] = (uintptr_t)&heap, len[0] = offsetof(struct heap, rest);
    lo[1] = (uintptr_t)&kept, len[1] = offsetof(struct kept, rest);
    return 2;
}

bool heap_state_contains(uintptr_t p)
{
    uintptr_t h = (uintptr_t)&heap, k = (uintptr_t)&kept;
    return (p >= h && p - h < STATE_BYTES) || (p >= k && p - k < STATE_BYTES);
}

bool heap_contains(uintptr_t p, size_t len)
{
    uintptr_t lo = (uintptr_t)heap.lo, brk = (uintptr_t)heap.brk;
    return p >= lo && p <= brk && len <= brk - p;
}

uintptr_t heap_slack_violation(size_t limit)
{
    if (heap.violation || !heap.checked)
        return heap.violation;
    char *end = heap.open_end;
    if (limit && (size_t)(end - heap.brk) > limit)
        end = heap.brk + limit;
    return canary_broken(heap.brk, end);
}
