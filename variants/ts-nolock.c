/*
 * ts-nolock.c - a thread-safe allocator without a lock on the fast path:
 * one arena per thread, found through thread-local storage.
 *
 * Card
 *   arenas       each thread takes an arena at its first malloc; an arena owns
 *                chunks of heap and segregated free lists no other thread reads
 *   free lists   per arena, LIFO: exact 16-byte classes below 1 KiB, then
 *                four classes per power of two (not ts-lock's seglist.h)
 *   fit          an exact class's head; above, best fit within the class
 *   coalescing   immediate, boundary tags, never across chunks
 *   split        remainder >= MIN_BLOCK (32 bytes)
 *   realloc      owner: shrink, absorb the next free block, grow at the heap's
 *                end; anyone else (or no room): allocate-copy-free
 *   min block    32 bytes (header, two links, footer)
 *   locks        one mutex, `grow`, taken only to move the break, to create an
 *                arena, and to hand arenas between threads
 *   state        in the heap, not in globals (the lab allows 128 bytes of
 *                those): mm_init carves the shared state at the heap's bottom,
 *                and arenas and pages of the arena table are carved as needed
 *
 * Frees from another thread (the policy), a ladder:
 *   1. a small block (exact class, < 1 KiB) is kept by the freeing thread, up to
 *      BORROW_MAX bytes, in per-class stacks it reuses whole for a request of
 *      the same class.  Its header still names the owner, which gets it back
 *      when the block is freed by the owner itself or returned (rung 2).
 *      Without this, a thread that frees many of another's blocks while that
 *      one sleeps must grow its own heap while the freed memory idles
 *      ("blowup"); keeping them bounds the heap near a single heap's.
 *   2. otherwise it goes back to its owner: the freeing thread pushes it onto
 *      the owner's `remote` stack with a compare-and-swap (lock-free, push only),
 *      and the owner takes the whole stack with one atomic exchange at its next
 *      malloc and frees each block locally.  Push-many/take-all has no ABA problem.
 *
 * Thread exit (no leaks): a pthread key destructor returns every kept block to
 * its owner and the arena to a pool; the next new thread adopts it, with its
 * free blocks and any remote frees that arrived meanwhile.  Memory is never
 * lost, only parked until a thread reuses it.  The main thread's arena stays:
 * the process ends with it.
 *
 * Block (sizes are multiples of 16, payloads 16-aligned); the arena id sits in
 * the header's top 16 bits, so any thread can find a block's owner:
 *
 *     hdr                                       payload ...        ftr
 *   | arena:16 | size:44 | 000a |  (free: next, prev)  ...  | same as hdr |
 *
 * Chunk: | next chunk | prologue hdr | prologue ftr | blocks ... | epilogue |
 * A chunk grows in place while its arena was the last to move the break.
 *
 * Heap: | shared state | table page | arena | chunk ... | arena | chunk ... |
 * The arena table maps an id to its arena.  Its pages double in size (8, 8,
 * 16, ... 2048 ids), so one thread pays for 8 slots, not 4096; a page and its
 * slots are written once under `grow` and never move, so a thread freeing
 * another's block reads them without the lock (release stores, acquire loads).
 *
 * Invariants (mm_checkheap checks each; it must run with no other thread busy,
 * while mm_stats may run at any time: it reads counters the owners keep):
 *   1. payloads aligned; sizes multiples of 16, >= MIN_BLOCK; header == footer
 *   2. every block of a chunk carries the chunk's arena id
 *   3. no two free blocks are adjacent within a chunk
 *   4. a block is in a free list iff it is free, in its arena's list of its class
 *   5. blocks waiting in a remote stack are allocated and belong to that arena;
 *      blocks an arena keeps are allocated, another arena's, in their class
 *   6. free blocks found by walking the chunks and the lists agree in number,
 *      and with the count mm_stats reports
 *   7. the table names each arena under its own id
 */
#define _GNU_SOURCE  /* gettid */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memlib.h"
#include "mm.h"
#include "stats.h"

_Static_assert(MM_ALIGNMENT <= 16, "ts-nolock aligns payloads to 16 bytes");

enum {
    WORD = 8,
    ALIGN = 16,
    MIN_BLOCK = 32,
    EXACT_LIMIT = 1024,
    NCLASS = EXACT_LIMIT / ALIGN + 4 * 34,
    MAP_WORDS = (NCLASS + 63) / 64,
    MAX_ARENAS = 4096,
    CHUNK_HEAD = 3 * WORD,              /* next-chunk link, prologue header and footer */
    CHUNK_MIN = 16 << 10,               /* new chunks once several arenas grow */
    ID_SHIFT = 48,
    CACHE_LINE = 64,
    BORROW_MAX = 64 << 10,              /* bytes of other arenas' blocks a thread may keep */
    FIRST_PAGE = 8,                     /* arena-table slots in pages 0 and 1; page p > 1 has 8 << (p - 1) */
    LOG_FIRST_PAGE = 3,
    NPAGES = 10,
};

_Static_assert(FIRST_PAGE == 1 << LOG_FIRST_PAGE && FIRST_PAGE << (NPAGES - 1) == MAX_ARENAS,
               "the table's last page ends at MAX_ARENAS");

static const uint64_t SIZE_MASK = ((uint64_t)1 << ID_SHIFT) - ALIGN;

/* Tells the shim (shim/) that this allocator is safe to call from many threads. */
const int mm_thread_safe = 1;

typedef struct links {
    struct links *next, *prev;
} links_t;

/* The owner's fields, then `remote` on a cache line of its own: other threads
 * write it, and must not invalidate the line the owner updates on every call. */
typedef struct arena {
    links_t *class_head[NCLASS];
    uint64_t nonempty[MAP_WORDS];
    struct arena *pool_next;            /* link in the pool of unowned arenas */
    uint64_t id;
    links_t *borrowed[EXACT_LIMIT / ALIGN];   /* kept blocks of other arenas, by class */
    size_t nborrowed;                   /* their bytes */
    mm_stats_t stats;
    size_t checked_free;                /* free blocks mm_checkheap found in its chunks */
    _Alignas(CACHE_LINE) _Atomic(links_t *) remote;   /* blocks freed by other threads */
    char pad[CACHE_LINE - sizeof(void *)];
} arena_t;

typedef _Atomic(arena_t *) slot_t;

/* Shared state, in the heap: written under `grow`, except the table's pages and
 * slots, which are written once (under `grow`) and read by anyone.  memlib is
 * not thread-safe: it is called under `grow` alone. */
typedef struct heap {
    pthread_mutex_t grow;
    unsigned narenas;
    arena_t *pool;
    _Atomic(arena_t *) last_grower;     /* its last chunk ends at the break; its own realloc
                                           reads it unlocked, as a hint (relaxed) */
    char *chunks;                       /* every chunk, newest first */
    uint64_t peak_heap;
    _Atomic(slot_t *) table[NPAGES];    /* page p holds the ids from page_base(p) */
} heap_t;

/* The only globals: both written by mm_init alone, with no other thread active. */
static heap_t *g;
static unsigned generation;             /* bumped by mm_init: thread-local arenas go stale */

static __thread struct {
    arena_t *arena;
    unsigned generation;
} mine __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* ------------------------------------------------------------ block layout */

static inline uint64_t *hdr(void *bp) { return (uint64_t *)((char *)bp - WORD); }
static inline size_t size_of_word(uint64_t w) { return w & SIZE_MASK; }
static inline size_t bsize(void *bp) { return size_of_word(*hdr(bp)); }
static inline bool is_alloc(void *bp) { return *hdr(bp) & 1; }
static inline unsigned owner_of(void *bp) { return (unsigned)(*hdr(bp) >> ID_SHIFT); }
static inline uint64_t *ftr(void *bp) { return (uint64_t *)((char *)bp + bsize(bp) - 2 * WORD); }
static inline void *next_blk(void *bp) { return (char *)bp + bsize(bp); }
static inline uint64_t prev_word(void *bp) { return *(uint64_t *)((char *)bp - 2 * WORD); }
static inline void *prev_blk(void *bp) { return (char *)bp - size_of_word(prev_word(bp)); }

static inline void set_block(arena_t *a, void *bp, size_t size, bool alloc)
{
    uint64_t w = a->id << ID_SHIFT | size | alloc;
    *hdr(bp) = w;
    *ftr(bp) = w;
}

/* Only the arena's owner writes its counters, but mm_stats may read them while
 * it runs: relaxed atomics, plain moves on x86. */
static inline void count(uint64_t *counter, uint64_t n)
{
    if (MM_STATS)
        __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

static inline size_t adjust(size_t size)
{
    if (size > SIZE_MASK / 2)
        return 0;
    size_t a = (size + 2 * WORD + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    return a < MIN_BLOCK ? MIN_BLOCK : a;
}

static inline size_t round_up(size_t n) { return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

/* Chunk layout helpers: the first block's payload, and the chunk's link. */
static inline char *chunk_first(char *chunk) { return chunk + CHUNK_HEAD + WORD; }
static inline char **chunk_link(char *chunk) { return (char **)chunk; }

/* ------------------------------------------------------------ size classes */

static inline int class_of(size_t size)
{
    if (size < EXACT_LIMIT)
        return (int)(size / ALIGN);
    int e = 63 - __builtin_clzl(size);
    int c = EXACT_LIMIT / ALIGN + (e - 10) * 4 + (int)((size >> (e - 2)) & 3);
    return c < NCLASS ? c : NCLASS - 1;
}

static inline void mark(arena_t *a, int c, bool on)
{
    uint64_t bit = (uint64_t)1 << (c % 64);
    if (on)
        a->nonempty[c / 64] |= bit;
    else
        a->nonempty[c / 64] &= ~bit;
}

static int next_class(arena_t *a, int c)
{
    for (int w = c / 64; w < MAP_WORDS; w++) {
        uint64_t bits = a->nonempty[w];
        if (w == c / 64)
            bits &= ~(uint64_t)0 << (c % 64);
        if (bits)
            return w * 64 + __builtin_ctzl(bits);
    }
    return -1;
}

static void list_insert(arena_t *a, void *bp)
{
    int c = class_of(bsize(bp));
    links_t *l = bp;
    l->prev = NULL;
    l->next = a->class_head[c];
    if (l->next)
        l->next->prev = l;
    a->class_head[c] = l;
    mark(a, c, true);
    count(&a->stats.free_blocks, 1);
}

static void list_remove(arena_t *a, void *bp)
{
    int c = class_of(bsize(bp));
    links_t *l = bp;
    if (l->prev)
        l->prev->next = l->next;
    else
        a->class_head[c] = l->next;
    if (l->next)
        l->next->prev = l->prev;
    if (!a->class_head[c])
        mark(a, c, false);
    count(&a->stats.free_blocks, UINT64_MAX);           /* one fewer */
}

/* ------------------------------------------------------------ the arena table */

static inline unsigned page_of(unsigned id)
{
    return id < FIRST_PAGE ? 0 : 32 - (unsigned)__builtin_clz(id) - LOG_FIRST_PAGE;
}

static inline unsigned page_base(unsigned page) { return page ? FIRST_PAGE << (page - 1) : 0; }
static inline unsigned page_slots(unsigned page) { return page ? FIRST_PAGE << (page - 1) : FIRST_PAGE; }

/* The arena with this id, which was handed out (a block's owner); no lock needed. */
static inline arena_t *arena_at(unsigned id)
{
    unsigned p = page_of(id);
    slot_t *page = atomic_load_explicit(&g->table[p], memory_order_acquire);
    return atomic_load_explicit(&page[id - page_base(p)], memory_order_acquire);
}

static void note_heap(void)
{
    if (mem_heapsize() > g->peak_heap)
        g->peak_heap = mem_heapsize();
}

/* Zeroed new heap for the allocator's own state (`grow` held); NULL when full. */
static void *carve(size_t bytes)
{
    char *at = mem_sbrk((intptr_t)round_up(bytes));
    if (at == (void *)-1)
        return NULL;
    /* The break moved past every chunk. */
    atomic_store_explicit(&g->last_grower, NULL, memory_order_relaxed);
    note_heap();
    return memset(at, 0, bytes);
}

/* The slot for id, carving its page on first use (`grow` held); NULL when full. */
static slot_t *table_slot(unsigned id)
{
    unsigned p = page_of(id);
    slot_t *page = atomic_load_explicit(&g->table[p], memory_order_relaxed);
    if (!page) {
        if (!(page = carve(page_slots(p) * sizeof *page)))
            return NULL;
        atomic_store_explicit(&g->table[p], page, memory_order_release);
    }
    return &page[id - page_base(p)];
}

/* ------------------------------------------------------------ arenas */

static void return_to_owner(void *bp);

static void release_arena(void *value)
{
    arena_t *a = value;
    if (mine.generation == generation && mine.arena == a) {   /* else mm_init dropped its heap */
        for (int c = 0; c < EXACT_LIMIT / ALIGN; c++)      /* give back what we kept */
            while (a->borrowed[c]) {
                links_t *l = a->borrowed[c];
                a->borrowed[c] = l->next;
                return_to_owner(l);
            }
        a->nborrowed = 0;
        pthread_mutex_lock(&g->grow);
        a->pool_next = g->pool;
        g->pool = a;
        pthread_mutex_unlock(&g->grow);
    }
    mine.arena = NULL;
}

static void make_exit_key(void)
{
    pthread_key_create(&exit_key, release_arena);
}

/* A pooled arena, or a new one carved from the heap; NULL when out of memory. */
static arena_t *acquire_arena(void)
{
    pthread_mutex_lock(&g->grow);
    arena_t *a = g->pool;
    if (a) {
        g->pool = a->pool_next;
    } else if (g->narenas < MAX_ARENAS) {         /* past it, fail: NULL from malloc */
        slot_t *slot = table_slot(g->narenas);
        char *at = slot ? carve(sizeof(arena_t) + CACHE_LINE) : NULL;
        a = at ? (arena_t *)(((uintptr_t)at + CACHE_LINE - 1) & ~(uintptr_t)(CACHE_LINE - 1)) : NULL;
        if (a) {
            a->id = g->narenas++;
            atomic_store_explicit(slot, a, memory_order_release);
        }
    }
    pthread_mutex_unlock(&g->grow);
    if (a) {
        mine.arena = a;
        mine.generation = generation;
        /* The main thread's arena is never handed back: when main returns, the
         * process ends.  (So a single-threaded program never writes libc's
         * thread state, which the driver's audit compares.) */
        if (gettid() != getpid()) {
            pthread_once(&exit_key_once, make_exit_key);
            pthread_setspecific(exit_key, a);
        }
    }
    return a;
}

/* This thread's arena of the current heap, or NULL: none is made (a free needs none). */
static inline arena_t *current_arena(void)
{
    return mine.generation == generation ? mine.arena : NULL;
}

static inline arena_t *my_arena(void)
{
    arena_t *a = current_arena();
    return __builtin_expect(a != NULL, 1) ? a : acquire_arena();
}

/* ------------------------------------------------------------ the arena core */

static void *coalesce(arena_t *a, void *bp)
{
    size_t size = bsize(bp);
    void *next = next_blk(bp);
    if (!is_alloc(next)) {
        list_remove(a, next);
        size += bsize(next);
        count(&a->stats.coalesces, 1);
    }
    if (!(prev_word(bp) & 1)) {
        bp = prev_blk(bp);
        list_remove(a, bp);
        size += bsize(bp);
        count(&a->stats.coalesces, 1);
    }
    set_block(a, bp, size, false);
    list_insert(a, bp);
    return bp;
}

/* a's own block back to its lists; the caller counts the call (a free, or a realloc's move) */
static void release(arena_t *a, void *bp)
{
    set_block(a, bp, bsize(bp), false);
    coalesce(a, bp);
}

static void local_free(arena_t *a, void *bp)
{
    count(&a->stats.frees, 1);
    release(a, bp);
}

/* Free the blocks other threads handed back. */
static void drain_remote(arena_t *a)
{
    links_t *l = atomic_exchange_explicit(&a->remote, NULL, memory_order_acquire);
    while (l) {
        links_t *next = l->next;
        local_free(a, l);
        l = next;
    }
}

/* Start a chunk of `bytes` (header and epilogue included) at `at`; returns its free block. */
static void *start_chunk(arena_t *a, char *at, size_t bytes)
{
    uint64_t *w = (uint64_t *)at;
    *chunk_link(at) = g->chunks;
    g->chunks = at;
    w[1] = a->id << ID_SHIFT | 2 * WORD | 1;          /* prologue */
    w[2] = w[1];
    void *bp = chunk_first(at);
    set_block(a, bp, bytes - CHUNK_HEAD - WORD, false);   /* the rest: epilogue */
    *hdr(next_blk(bp)) = a->id << ID_SHIFT | 1;       /* epilogue */
    list_insert(a, bp);
    return bp;
}

/* Give arena a a free block of at least asize from new heap (lock taken here).
 * top, when not NULL, is where a's chunk must end for the block to follow it
 * (realloc's rung 3): if the break is not there, nothing grows. */
static void *grow(arena_t *a, size_t asize, char *top)
{
    void *bp = NULL;
    if (asize < MIN_BLOCK)
        asize = MIN_BLOCK;
    pthread_mutex_lock(&g->grow);
    size_t floor = g->narenas > 1 ? CHUNK_MIN : 0;
    char *end = (char *)mem_heap_hi() + 1;
    bool extends = atomic_load_explicit(&g->last_grower, memory_order_relaxed) == a;
    if (extends && (!top || top == end)) {
        /* The break is right after our chunk: extend it, minus its free tail. */
        size_t tail = (prev_word(end) & 1) ? 0 : size_of_word(prev_word(end));
        size_t need = asize - (tail < asize ? tail : 0);
        if (need < floor)
            need = floor;
        char *old = mem_sbrk((intptr_t)need);
        if (old != (void *)-1) {
            bp = old;                                  /* old epilogue becomes its header */
            set_block(a, bp, need, false);
            *hdr(next_blk(bp)) = a->id << ID_SHIFT | 1;
            bp = coalesce(a, bp);
        }
    } else if (!top) {
        size_t bytes = CHUNK_HEAD + WORD + (asize > floor ? asize : floor);
        char *at = mem_sbrk((intptr_t)bytes);
        if (at != (void *)-1) {
            bp = start_chunk(a, at, bytes);
            atomic_store_explicit(&g->last_grower, a, memory_order_relaxed);
        }
    }
    if (bp) {
        count(&a->stats.extensions, 1);
        note_heap();
    }
    pthread_mutex_unlock(&g->grow);
    return bp;
}

static void *find_fit(arena_t *a, size_t asize)
{
    for (int c = next_class(a, class_of(asize)); c >= 0; c = next_class(a, c + 1)) {
        if (c < EXACT_LIMIT / ALIGN)
            return a->class_head[c];
        void *best = NULL;
        for (links_t *l = a->class_head[c]; l; l = l->next) {
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

static void split(arena_t *a, void *bp, size_t asize)
{
    size_t size = bsize(bp);
    if (size - asize < MIN_BLOCK) {
        set_block(a, bp, size, true);
        return;
    }
    set_block(a, bp, asize, true);
    void *rest = next_blk(bp);
    set_block(a, rest, size - asize, false);
    count(&a->stats.splits, 1);
    coalesce(a, rest);
}

/* A block for size from a; the caller counts the call (a malloc, or a realloc's move). */
static void *arena_take(arena_t *a, size_t size)
{
    size_t asize = adjust(size);
    if (!asize)
        return NULL;
    int c = class_of(asize);
    if (c < EXACT_LIMIT / ALIGN && a->borrowed[c]) {  /* a kept block of this very size */
        links_t *l = a->borrowed[c];
        a->borrowed[c] = l->next;
        a->nborrowed -= asize;
        count(&a->stats.reuses, 1);
        return l;
    }
    if (atomic_load_explicit(&a->remote, memory_order_relaxed))
        drain_remote(a);
    void *bp = find_fit(a, asize);
    if (bp)
        count(&a->stats.reuses, 1);
    else if (!(bp = grow(a, asize, NULL)))
        return NULL;
    list_remove(a, bp);
    split(a, bp, asize);
    return bp;
}

static void *arena_malloc(arena_t *a, size_t size)
{
    void *bp = arena_take(a, size);
    if (bp) {
        count(&a->stats.mallocs, 1);
        count(&a->stats.bytes_requested, size);
    }
    return bp;
}

/* Owner's realloc ladder; NULL when the block must move. */
static void *resize_in_place(arena_t *a, void *bp, size_t asize)
{
    size_t size = bsize(bp);
    if (asize <= size) {                               /* 1. shrink */
        split(a, bp, asize);
        return bp;
    }
    void *next = next_blk(bp);
    size_t room = size + (is_alloc(next) ? 0 : bsize(next));
    void *after = is_alloc(next) ? next : next_blk(next);
    if (room < asize && bsize(after) == 0                   /* 3. grow the heap under it */
        && atomic_load_explicit(&g->last_grower, memory_order_relaxed) == a) {
        /* grow() sees under the lock whether the break is at `after`; it counts the free tail */
        if (!grow(a, asize - size, after))
            return NULL;
        next = next_blk(bp);
        room = size + (is_alloc(next) ? 0 : bsize(next));
    }
    if (room < asize)
        return NULL;
    if (room > size) {                                 /* 2. absorb the next block */
        list_remove(a, next);
        set_block(a, bp, room, true);
        count(&a->stats.coalesces, 1);   /* a merge, as ts-lock's core counts it */
    }
    split(a, bp, asize);
    return bp;
}

/* ------------------------------------------------------------ the API */

/* Runs with no other thread active (mm.h): the old state went with the old heap. */
int mm_init(void)
{
    generation++;
    mine.arena = NULL;
    heap_t *h = mem_sbrk((intptr_t)round_up(sizeof *h));      /* keeps chunks 16-aligned */
    if (h == (void *)-1) {
        g = NULL;
        return -1;
    }
    memset(h, 0, sizeof *h);
    pthread_mutex_init(&h->grow, NULL);
    h->peak_heap = mem_heapsize();
    g = h;
    return 0;
}

void *mm_malloc(size_t size)
{
    arena_t *a = my_arena();
    return a ? arena_malloc(a, size) : NULL;
}

void mm_free(void *ptr)
{
    if (!ptr)
        return;
    arena_t *a = current_arena();
    if (a && owner_of(ptr) == a->id) {
        local_free(a, ptr);
        return;
    }
    /* Another arena's block: keep it (small, room left) or send it home. */
    int c = class_of(bsize(ptr));
    if (a && c < EXACT_LIMIT / ALIGN && a->nborrowed + bsize(ptr) <= BORROW_MAX) {
        links_t *l = ptr;
        l->next = a->borrowed[c];
        a->borrowed[c] = l;
        a->nborrowed += bsize(ptr);
        return;
    }
    return_to_owner(ptr);
}

static void return_to_owner(void *bp)
{
    arena_t *owner = arena_at(owner_of(bp));
    links_t *l = bp;
    l->next = atomic_load_explicit(&owner->remote, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&owner->remote, &l->next, l,
                                                  memory_order_release, memory_order_relaxed))
        ;
}

/* Counted as the other variants count (mm_stats.h): every call is a realloc,
 * realloc(NULL, n) a malloc too and realloc(p, 0) a free too, and a move is
 * neither a malloc nor a free. */
void *mm_realloc(void *ptr, size_t size)
{
    if (!size && ptr) {          /* a free: no arena is made for it */
        arena_t *a = current_arena();
        if (a)
            count(&a->stats.reallocs, 1);
        mm_free(ptr);
        return NULL;
    }
    arena_t *a = my_arena();
    if (!a)
        return NULL;
    count(&a->stats.reallocs, 1);
    if (!ptr)
        return arena_malloc(a, size);
    size_t asize = adjust(size);
    if (!asize)
        return NULL;
    count(&a->stats.bytes_requested, size);
    if (owner_of(ptr) == a->id && resize_in_place(a, ptr, asize)) {
        count(&a->stats.reallocs_in_place, 1);
        return ptr;
    }
    void *moved = arena_take(a, size);                 /* 4. allocate, copy, free */
    if (moved) {
        size_t keep = bsize(ptr) - 2 * WORD;
        memcpy(moved, ptr, keep < size ? keep : size);
        if (owner_of(ptr) == a->id)
            release(a, ptr);
        else
            mm_free(ptr);        /* another arena's block: it counts a free when its owner takes it back */
    }
    return moved;
}

/* Fork: the child keeps only the forking thread; other arenas stay parked. */
void mm_atfork_prepare(void) { if (g) pthread_mutex_lock(&g->grow); }
void mm_atfork_parent(void) { if (g) pthread_mutex_unlock(&g->grow); }
void mm_atfork_child(void) { if (g) pthread_mutex_init(&g->grow, NULL); }

/* ------------------------------------------------------------ statistics (checker: ts-nolock-check.h) */

/* Safe while other threads allocate: every counter, free_blocks included, is
 * one the owner keeps as it goes (count()), read here atomically. */
void mm_stats(mm_stats_t *out)
{
    memset(out, 0, sizeof *out);
    if (!g)
        return;
    pthread_mutex_lock(&g->grow);
    for (unsigned i = 0; i < g->narenas; i++) {
        mm_stats_t *s = &arena_at(i)->stats;
#define ADD_FIELD(name, what) out->name += __atomic_load_n(&s->name, __ATOMIC_RELAXED);
        MM_STATS_FIELDS(ADD_FIELD)
#undef ADD_FIELD
    }
    out->peak_heap = g->peak_heap;
    pthread_mutex_unlock(&g->grow);
}

#include "ts-nolock-check.h"
