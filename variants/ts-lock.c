/*
 * ts-lock.c - a thread-safe allocator: one global mutex around the segregated
 * boundary-tag core (seglist.h, tags-core.h), with best fit.
 *
 *   free list     one LIFO list per power-of-two size class (seglist.h)
 *   fit           bounded best fit: the smallest fitting block among the first
 *                 8 of the request's class, else among the first 8 of the next
 *                 non-empty larger class; an exact fit ends the search
 *   coalescing    immediate; footers only on free blocks, BLK_PREV_ALLOC in
 *                 each header says whether the block below is free
 *   split         when the rest is at least 32 bytes
 *   realloc       the ladder in tags-core.h: shrink in place, absorb a free
 *                 block above, grow the heap when the block is at its top, else
 *                 allocate, copy, free, with the copy made outside the lock
 *   min block     32 bytes
 *   threads       every public call takes `lock` and leaves by one exit (a
 *                 realloc that moves takes it twice, copying in between); the
 *                 shim sees `mm_thread_safe` and adds no lock of its own.  While
 *                 the process has one thread malloc, free and realloc skip the
 *                 lock, as glibc's malloc does: glibc clears
 *                 __libc_single_threaded before a second thread exists, so no
 *                 call can be mid-way then.
 *
 * The block layout and its invariants are drawn in block.h; mm_checkheap is
 * the core's layered checker, run under the lock.
 */
#include <pthread.h>
#include <stdbool.h>
#include <sys/single_threaded.h>

#define CORE_WRAPPED     /* the mm_* entry points below wrap the core's in the lock */
#define SEGLIST_OWN_FIT  /* find_fit is best fit, below */
#include "seglist.h"

/* Tells the shim (shim/) that this allocator locks for itself. */
const int mm_thread_safe = 1;

/* Outside the core's state on purpose: mm_init replaces that, and a lock must
 * never be reset.  A global, so it counts towards the 128 bytes (it is 40). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------ best fit */

/* The smallest block that holds asize among the first CLASS_PROBES of class k
 * (seglist.h says why the walk is bounded), or NULL; an exact fit ends it. */
static void *best_in_class(unsigned k, size_t asize)
{
    fl_node_t *best = NULL;
    unsigned probes = 0;
    for (fl_node_t *n = core->head[k]; n && probes < CLASS_PROBES; n = n->next, probes++) {
        size_t size = blk_size(n);
        if (size >= asize && (!best || size < blk_size(best))) {
            best = n;
            if (size == asize)
                break;
        }
    }
    return best;
}

static void *find_fit(size_t asize)
{
    for (uint32_t left = classes_from(class_of(asize)); left; left &= left - 1) {
        void *bp = best_in_class((unsigned)__builtin_ctz(left), asize);
        if (bp)
            return bp;
    }
    return NULL;
}

/* ------------------------------------------------------------ the API: lock, call, unlock */

/* Lock only when another thread can exist; returns whether it locked, for leave(). */
static inline bool enter(void)
{
    bool locked = !__libc_single_threaded;
    if (locked)
        pthread_mutex_lock(&lock);
    return locked;
}

static inline void leave(bool locked)
{
    if (locked)
        pthread_mutex_unlock(&lock);
}

int mm_init(void)
{
    pthread_mutex_lock(&lock);
    int rc = core_init();
    pthread_mutex_unlock(&lock);
    return rc;
}

void *mm_malloc(size_t size)
{
    bool locked = enter();
    void *bp = core_malloc(size);
    leave(locked);
    return bp;
}

void mm_free(void *bp)
{
    if (!bp)                         /* free(NULL) is common: no lock for it */
        return;
    bool locked = enter();
    core_free(bp);
    leave(locked);
}

/* The last rung of realloc, after the new block is taken under the lock: the
 * copy runs outside it, since no other thread may touch either block (the old
 * one is the caller's until it is freed, the new one is not yet handed out). */
static void *copy_then_free(void *moved, void *ptr, size_t keep)
{
    memcpy(moved, ptr, keep);
    bool locked = enter();
    free_block(ptr);
    leave(locked);
    return moved;
}

void *mm_realloc(void *ptr, size_t size)
{
    void *result, *moved = NULL;
    size_t keep = 0;
    bool locked = enter();
    if (!realloc_edge(ptr, size, &result) && !(result = resize_in_place(ptr, size))
        && (moved = alloc_block(size)))
        keep = payload_size(ptr) < size ? payload_size(ptr) : size;
    leave(locked);
    return moved ? copy_then_free(moved, ptr, keep) : result;
}

/* The shim's fork handlers call these so a child never inherits a held lock. */
void mm_atfork_prepare(void) { pthread_mutex_lock(&lock); }
void mm_atfork_parent(void) { pthread_mutex_unlock(&lock); }
void mm_atfork_child(void) { pthread_mutex_init(&lock, NULL); }

void mm_stats(mm_stats_t *out)
{
    pthread_mutex_lock(&lock);
    core_stats(out);
    pthread_mutex_unlock(&lock);
}

bool mm_checkheap(int lineno)
{
    pthread_mutex_lock(&lock);
    bool ok = core_checkheap(lineno);
    pthread_mutex_unlock(&lock);
    return ok;
}
