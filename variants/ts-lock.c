/*
 * ts-lock.c - a thread-safe allocator: one global mutex around a best-fit core.
 *
 * Card
 *   free lists   segregated, doubly linked, LIFO insert: one exact class per
 *                16-byte size below 1 KiB, then four classes per power of two
 *   fit          best fit: the smallest fitting block of the first class that
 *                has one (exact classes need no search); a bitmap finds classes
 *   coalescing   immediate, with boundary tags (footer on every block)
 *   split        when the remainder is at least MIN_BLOCK (32 bytes)
 *   realloc      shrink in place, absorb the next free block, grow at the heap's
 *                end, else allocate-copy-free
 *   threads      every public call takes `lock` once and leaves by one exit;
 *                the shim sees `mm_thread_safe` and adds no lock of its own.
 *                While the process has one thread the lock is skipped, as
 *                glibc's malloc does: glibc clears __libc_single_threaded before
 *                a second thread exists, so no call can be mid-way then
 *
 * Block (sizes are multiples of 16; payloads are 16-aligned):
 *
 *     hdr            payload (free: next, prev)                ftr
 *   | size|a  | ........................................... | size|a |
 *   ^ 8 mod 16  ^ 0 mod 16
 *
 * Heap: | pad 8 | prologue hdr | prologue ftr | blocks ... | epilogue hdr (0|a) |
 *
 * Invariants (mm_checkheap checks each):
 *   1. every payload is aligned; every size is a multiple of 16 and >= MIN_BLOCK
 *   2. header == footer for every block
 *   3. no two free blocks are adjacent (coalescing is immediate)
 *   4. a block is in a free list iff it is free, and in the class of its size
 *   5. the free blocks found by walking the heap and the lists agree in number
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/single_threaded.h>

#include "memlib.h"
#include "mm.h"

_Static_assert(MM_ALIGNMENT <= 16, "ts-lock aligns payloads to 16 bytes");

enum {
    WORD = 8,
    ALIGN = 16,
    MIN_BLOCK = 32,
    EXACT_LIMIT = 1024,                 /* below: one class per 16-byte size */
    NCLASS = EXACT_LIMIT / ALIGN + 4 * 40,
    MAP_WORDS = (NCLASS + 63) / 64,
};

/* Tells the shim (shim/) that this allocator locks for itself. */
const int mm_thread_safe = 1;

typedef struct free_links {
    struct free_links *next, *prev;
} links_t;

/* All mutable state; mm_init resets everything but the lock. */
static struct {
    pthread_mutex_t lock;
    char *first;                        /* payload of the first real block */
    links_t *class_head[NCLASS];
    uint64_t nonempty[MAP_WORDS];       /* bit c set iff class c has a block */
    mm_stats_t stats;
} st = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ------------------------------------------------------------ block layout */

static inline uint64_t *hdr(void *bp) { return (uint64_t *)((char *)bp - WORD); }
static inline size_t bsize(void *bp) { return *hdr(bp) & ~(uint64_t)0xF; }
static inline bool is_alloc(void *bp) { return *hdr(bp) & 1; }
static inline uint64_t *ftr(void *bp) { return (uint64_t *)((char *)bp + bsize(bp) - 2 * WORD); }
static inline void *next_blk(void *bp) { return (char *)bp + bsize(bp); }
static inline size_t prev_size(void *bp) { return *(uint64_t *)((char *)bp - 2 * WORD) & ~(uint64_t)0xF; }
static inline void *prev_blk(void *bp) { return (char *)bp - prev_size(bp); }
static inline bool prev_alloc(void *bp) { return *(uint64_t *)((char *)bp - 2 * WORD) & 1; }

static inline void set_block(void *bp, size_t size, bool alloc)
{
    *hdr(bp) = size | alloc;
    *ftr(bp) = size | alloc;
}

static inline void count(uint64_t *counter, uint64_t n)
{
    if (MM_STATS)
        *counter += n;
}

/* Block size for a request: header + footer + payload, rounded, at least MIN_BLOCK.
 * 0 when the request cannot be represented. */
static inline size_t adjust(size_t size)
{
    if (size > SIZE_MAX / 2)
        return 0;
    size_t a = (size + 2 * WORD + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    return a < MIN_BLOCK ? MIN_BLOCK : a;
}

/* ------------------------------------------------------------ size classes */

static inline int class_of(size_t size)
{
    if (size < EXACT_LIMIT)
        return (int)(size / ALIGN);
    int e = 63 - __builtin_clzl(size);          /* 2^e <= size < 2^(e+1), e >= 10 */
    int c = EXACT_LIMIT / ALIGN + (e - 10) * 4 + (int)((size >> (e - 2)) & 3);
    return c < NCLASS ? c : NCLASS - 1;
}

static inline void mark(int c, bool on)
{
    uint64_t bit = (uint64_t)1 << (c % 64);
    if (on)
        st.nonempty[c / 64] |= bit;
    else
        st.nonempty[c / 64] &= ~bit;
}

/* The first non-empty class >= c, or -1. */
static int next_class(int c)
{
    for (int w = c / 64; w < MAP_WORDS; w++) {
        uint64_t bits = st.nonempty[w];
        if (w == c / 64)
            bits &= ~(uint64_t)0 << (c % 64);
        if (bits)
            return w * 64 + __builtin_ctzl(bits);
    }
    return -1;
}

static void list_insert(void *bp)
{
    int c = class_of(bsize(bp));
    links_t *l = bp;
    l->prev = NULL;
    l->next = st.class_head[c];
    if (l->next)
        l->next->prev = l;
    st.class_head[c] = l;
    mark(c, true);
}

static void list_remove(void *bp)
{
    int c = class_of(bsize(bp));
    links_t *l = bp;
    if (l->prev)
        l->prev->next = l->next;
    else
        st.class_head[c] = l->next;
    if (l->next)
        l->next->prev = l->prev;
    if (!st.class_head[c])
        mark(c, false);
}

/* ------------------------------------------------------------ the core (lock held) */

/* Merge bp (free, not listed) with free neighbours; list and return the result. */
static void *coalesce(void *bp)
{
    size_t size = bsize(bp);
    void *next = next_blk(bp);
    if (!is_alloc(next)) {
        list_remove(next);
        size += bsize(next);
        count(&st.stats.coalesces, 1);
    }
    if (!prev_alloc(bp)) {
        bp = prev_blk(bp);
        list_remove(bp);
        size += bsize(bp);
        count(&st.stats.coalesces, 1);
    }
    set_block(bp, size, false);
    list_insert(bp);
    return bp;
}

/* Grow the heap by at least `need` bytes of new free block; returns it coalesced. */
static void *extend(size_t need)
{
    if (need < MIN_BLOCK)                /* a smaller block could not hold its links */
        need = MIN_BLOCK;
    char *old = mem_sbrk((intptr_t)need);
    if (old == (void *)-1)
        return NULL;
    count(&st.stats.extensions, 1);
    if (mem_heapsize() > st.stats.peak_heap)
        st.stats.peak_heap = mem_heapsize();
    void *bp = old;                      /* the old epilogue becomes bp's header */
    set_block(bp, need, false);
    *hdr(next_blk(bp)) = 1;              /* new epilogue */
    return coalesce(bp);
}

/* Best fit: exact classes hold one size, so their head is best; a range class is scanned. */
static void *find_fit(size_t asize)
{
    for (int c = next_class(class_of(asize)); c >= 0; c = next_class(c + 1)) {
        if (c < EXACT_LIMIT / ALIGN)
            return st.class_head[c];
        void *best = NULL;
        for (links_t *l = st.class_head[c]; l; l = l->next) {
            size_t s = bsize(l);
            if (s >= asize && (!best || s < bsize(best))) {
                best = l;
                if (s == asize)
                    break;
            }
        }
        if (best)
            return best;
    }
    return NULL;
}

/* Make bp (free, already out of its list) an allocated block of asize, splitting off the rest. */
static void place(void *bp, size_t asize)
{
    size_t size = bsize(bp);
    if (size - asize >= MIN_BLOCK) {
        set_block(bp, asize, true);
        void *rest = next_blk(bp);
        set_block(rest, size - asize, false);
        list_insert(rest);
        count(&st.stats.splits, 1);
    } else {
        set_block(bp, size, true);
    }
}

static void *core_malloc(size_t size)
{
    size_t asize = adjust(size);
    if (!asize)
        return NULL;
    void *bp = find_fit(asize);
    if (bp) {
        count(&st.stats.reuses, 1);
    } else {
        /* Grow only by what the free block at the end of the heap lacks. */
        void *last = (char *)mem_heap_hi() + 1;             /* the epilogue's "payload" */
        size_t tail = prev_alloc(last) ? 0 : prev_size(last);
        bp = extend(asize - tail);
        if (!bp)
            return NULL;
    }
    list_remove(bp);
    place(bp, asize);
    count(&st.stats.mallocs, 1);
    count(&st.stats.bytes_requested, size);
    return bp;
}

static void core_free(void *bp)
{
    count(&st.stats.frees, 1);
    set_block(bp, bsize(bp), false);
    coalesce(bp);
}

/* Split an allocated block down to asize, freeing the rest. */
static void shrink(void *bp, size_t asize)
{
    size_t size = bsize(bp);
    if (size - asize < MIN_BLOCK)
        return;
    set_block(bp, asize, true);
    void *rest = next_blk(bp);
    set_block(rest, size - asize, false);
    count(&st.stats.splits, 1);
    coalesce(rest);
}

/* The realloc ladder for a live block; NULL when it must move. */
static void *resize_in_place(void *bp, size_t asize)
{
    size_t size = bsize(bp);
    if (asize <= size) {                               /* 1. shrink */
        shrink(bp, asize);
        return bp;
    }
    void *next = next_blk(bp);
    size_t room = size + (is_alloc(next) ? 0 : bsize(next));
    bool at_end = bsize(is_alloc(next) ? next : next_blk(next)) == 0;
    if (room < asize && at_end) {                      /* 3. grow the heap under it */
        if (!extend(asize - room))
            return NULL;
        next = next_blk(bp);
        room = size + bsize(next);
    }
    if (room < asize)
        return NULL;
    if (room > size) {                                 /* 2. absorb the next block */
        list_remove(next);
        set_block(bp, room, true);
    }
    shrink(bp, asize);
    return bp;
}

static void *core_realloc(void *bp, size_t size)
{
    count(&st.stats.reallocs, 1);
    size_t asize = adjust(size);
    if (!asize)
        return NULL;
    void *kept = resize_in_place(bp, asize);
    if (kept) {
        count(&st.stats.reallocs_in_place, 1);
        count(&st.stats.bytes_requested, size);
        return kept;
    }
    void *moved = core_malloc(size);                   /* 4. allocate, copy, free */
    if (moved) {
        size_t keep = bsize(bp) - 2 * WORD;
        memcpy(moved, bp, keep < size ? keep : size);
        core_free(bp);
    }
    return moved;
}

/* ------------------------------------------------------------ the API: lock, call, unlock */

static inline bool enter(void)
{
    bool locked = !__libc_single_threaded;
    if (locked)
        pthread_mutex_lock(&st.lock);
    return locked;
}

static inline void leave(bool locked)
{
    if (locked)
        pthread_mutex_unlock(&st.lock);
}

int mm_init(void)
{
    pthread_mutex_lock(&st.lock);
    memset(st.class_head, 0, sizeof st.class_head);
    memset(st.nonempty, 0, sizeof st.nonempty);
    memset(&st.stats, 0, sizeof st.stats);
    int rc = 0;
    uint64_t *start = mem_sbrk(4 * WORD);
    if (start == (void *)-1) {
        rc = -1;
    } else {
        start[0] = 0;                    /* pad: payloads land on 16 */
        start[1] = 2 * WORD | 1;         /* prologue header */
        start[2] = 2 * WORD | 1;         /* prologue footer */
        start[3] = 1;                    /* epilogue */
        st.first = (char *)(start + 4);
        st.stats.peak_heap = mem_heapsize();
    }
    pthread_mutex_unlock(&st.lock);
    return rc;
}

void *mm_malloc(size_t size)
{
    bool locked = enter();
    void *p = core_malloc(size);
    leave(locked);
    return p;
}

void mm_free(void *ptr)
{
    if (!ptr)
        return;
    bool locked = enter();
    core_free(ptr);
    leave(locked);
}

void *mm_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return mm_malloc(size);
    if (!size) {
        mm_free(ptr);
        return NULL;
    }
    bool locked = enter();
    void *p = core_realloc(ptr, size);
    leave(locked);
    return p;
}

/* The shim's fork handlers call these so a child never inherits a held lock. */
void mm_atfork_prepare(void) { pthread_mutex_lock(&st.lock); }
void mm_atfork_parent(void) { pthread_mutex_unlock(&st.lock); }
void mm_atfork_child(void) { pthread_mutex_init(&st.lock, NULL); }

/* ------------------------------------------------------------ statistics and checker */

static size_t count_free_in_lists(void)
{
    size_t n = 0;
    for (int c = 0; c < NCLASS; c++)
        for (links_t *l = st.class_head[c]; l; l = l->next)
            n++;
    return n;
}

void mm_stats(mm_stats_t *out)
{
    pthread_mutex_lock(&st.lock);
    *out = st.stats;
    out->free_blocks = count_free_in_lists();
    pthread_mutex_unlock(&st.lock);
}

static bool complain(int line, const char *what, const void *bp)
{
    printf("ts-lock checkheap (line %d): %s at %p\n", line, what, bp);
    return false;
}

/* Layer 1: one block on its own (invariants 1 and 2). */
static bool check_block(int line, void *bp)
{
    if ((uintptr_t)bp % ALIGN)
        return complain(line, "misaligned payload", bp);
    if (bsize(bp) % ALIGN || bsize(bp) < MIN_BLOCK)
        return complain(line, "bad block size", bp);
    if ((char *)next_blk(bp) > (char *)mem_heap_hi() + 1)
        return complain(line, "block runs past the break", bp);
    if (*hdr(bp) != *ftr(bp))
        return complain(line, "header and footer differ", bp);
    return true;
}

/* Layer 2: walk the heap (invariant 3); counts its free blocks. */
static bool check_walk(int line, size_t *nfree)
{
    void *bp = st.first;
    if (*hdr((char *)bp - 2 * WORD) != (2 * WORD | 1))
        return complain(line, "prologue damaged", bp);
    bool prev_free = false;
    for (; bsize(bp) > 0; bp = next_blk(bp)) {
        if (!check_block(line, bp))
            return false;
        if (!is_alloc(bp) && prev_free)
            return complain(line, "two adjacent free blocks", bp);
        prev_free = !is_alloc(bp);
        *nfree += prev_free;
    }
    if (!is_alloc(bp) || (char *)bp != (char *)mem_heap_hi() + 1)
        return complain(line, "epilogue missing at the break", bp);
    return true;
}

/* Layer 3: the free lists (invariant 4); counts their blocks. */
static bool check_lists(int line, size_t *nlisted)
{
    char *lo = st.first, *hi = mem_heap_hi();
    for (int c = 0; c < NCLASS; c++) {
        bool bit = st.nonempty[c / 64] >> (c % 64) & 1;
        if (bit != (st.class_head[c] != NULL))
            return complain(line, "class bitmap disagrees with its list", st.class_head[c]);
        for (links_t *l = st.class_head[c], *prev = NULL; l; prev = l, l = l->next) {
            if ((char *)l < lo || (char *)l > hi)
                return complain(line, "free-list pointer outside the heap", l);
            if (is_alloc(l))
                return complain(line, "allocated block in a free list", l);
            if (class_of(bsize(l)) != c)
                return complain(line, "free block in the wrong class", l);
            if (l->prev != prev)
                return complain(line, "free-list prev link broken", l);
            (*nlisted)++;
        }
    }
    return true;
}

bool mm_checkheap(int lineno)
{
    pthread_mutex_lock(&st.lock);
    size_t nfree = 0, nlisted = 0;
    bool ok = check_walk(lineno, &nfree) && check_lists(lineno, &nlisted);
    if (ok && nfree != nlisted) {                      /* layer 4: invariant 5 */
        printf("ts-lock checkheap (line %d): %zu free blocks in the heap, %zu in the lists\n",
               lineno, nfree, nlisted);
        ok = false;
    }
    pthread_mutex_unlock(&st.lock);
    return ok;
}
