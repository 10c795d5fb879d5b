/*
 * memlib.c - the simulated heap (contract in memlib.h, driver calls in driver/heap.h).
 *
 *   HEAP_BASE - page   HEAP_BASE              brk        page end          HEAP_BASE + max
 *   | guard (none)     | allocator's bytes    | canary ... | inaccessible ... | guard |
 *
 * Checked mode (correctness pass): pages wholly past the break are PROT_NONE, so
 * a stray write faults at once; the bytes between the break and the end of its
 * page hold CANARY and are checked by mem_sbrk and the driver.  Fast mode
 * (timing pass): the whole range is writable and mem_sbrk is a pointer bump.
 */
#define _GNU_SOURCE
#include "memlib.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "driver/heap.h"

enum { CANARY = 0xCB };

static struct heap {
    char *lo;            /* first byte of the heap (HEAP_BASE when the fixed map worked) */
    size_t max;          /* how far the break may rise above lo */
    size_t mapped;       /* bytes of the reservation, guards included */
    char *brk;           /* current break */
    char *open_end;      /* end of the writable pages */
    char *high_water;    /* highest break since heap_restart */
    uintptr_t violation; /* first overwritten canary byte found by mem_sbrk, or 0 */
    bool checked;
    size_t page;
} heap = {.max = MDRIVER_DEFAULT_MAX_HEAP};

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

static void fail(const char *what)
{
    fprintf(stderr, "mdriver: simulated heap: %s: %s\n", what, strerror(errno));
    exit(3);
}

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

void heap_configure(size_t max_heap)
{
    heap.max = max_heap;
}

void mem_init(void)
{
    size_t page = page_size();
    size_t span = (size_t)page_up((char *)heap.max);
    heap.mapped = span + 2 * page;
    char *want = (char *)HEAP_BASE - page;
    char *map = mmap(want, heap.mapped, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (map == MAP_FAILED)  /* the fixed address is taken: any address will do */
        map = mmap(NULL, heap.mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED)
        fail("cannot reserve the heap");
    heap.lo = heap.brk = heap.open_end = heap.high_water = map + page;
    heap.checked = true;
    heap.violation = 0;
}

void mem_deinit(void)
{
    if (heap.lo && munmap(heap.lo - page_size(), heap.mapped))
        fail("munmap");
    heap.lo = NULL;
}

void mem_reset_brk(void)
{
    heap.brk = heap.lo;
    if (heap.checked)
        set_open_end(heap.lo);
}

void heap_restart(bool checked)
{
    heap.checked = checked;
    heap.violation = 0;
    heap.brk = heap.lo;
    set_open_end(checked ? heap.lo : page_up(heap_end()));
    heap.high_water = heap.lo;
}

void *mem_sbrk(intptr_t incr)
{
    if (incr < 0 || (size_t)incr > (size_t)(heap_end() - heap.brk)) {
        errno = ENOMEM;
        return (void *)-1;
    }
    char *old = heap.brk, *new = old + incr;
    if (heap.checked) {
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
    }
    heap.brk = new;
    if (new > heap.high_water)
        heap.high_water = new;
    return old;
}

void *mem_heap_lo(void) { return heap.lo; }
void *mem_heap_hi(void) { return heap.brk - 1; }
size_t mem_heapsize(void) { return (size_t)(heap.brk - heap.lo); }
size_t mem_pagesize(void) { return page_size(); }

size_t heap_high_water(void) { return (size_t)(heap.high_water - heap.lo); }
uintptr_t heap_lo(void) { return (uintptr_t)heap.lo; }
size_t heap_max(void) { return heap.max; }

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
