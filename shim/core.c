/*
 * core.c - lazy start, the lock, and where each request goes.
 *
 * The first call to any malloc-family function reserves the region and runs
 * mm_init once.  A call made while that start is under way (by the same thread:
 * the start holds the lock) is served from mmap instead of deadlocking.
 *
 * Routing ladder for a request of n bytes with alignment a:
 *   1. the variant is not ready, or n > half the region  -> mmap (bigmap.c)
 *   2. mm_malloc(n + max(a, 16)) and stamp the header      -> the variant
 *   3. the variant returned NULL (region full)              -> mmap
 *
 * Locking: a variant that defines `const int mm_thread_safe = 1` (ts-lock,
 * ts-nolock) is called as is; any other variant is called with `lock` held.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <unistd.h>

#include "block.h"
#include "memlib.h"
#include "mm.h"
#include "shim.h"

extern const int mm_thread_safe __attribute__((weak));
void mm_atfork_prepare(void) __attribute__((weak));
void mm_atfork_parent(void) __attribute__((weak));
void mm_atfork_child(void) __attribute__((weak));

enum { UNSTARTED, STARTING, READY, FAILED };

shim_counters_t shim_count;
bool shim_counting;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int state = UNSTARTED;
static bool locking;                /* the variant needs `lock` around it */
static size_t heap_limit;           /* largest request passed to the variant */
static __thread bool starting __attribute__((tls_model("initial-exec")));

/* Lock only when there is someone to exclude: glibc clears __libc_single_threaded
 * when the process starts its first thread, before that thread exists (glibc's
 * own malloc makes the same test).  Returns whether it locked, for leave(). */
static inline bool enter(void)
{
    bool locked = locking && !__libc_single_threaded;
    if (locked)
        pthread_mutex_lock(&lock);
    return locked;
}

static inline void leave(bool locked)
{
    if (locked)
        pthread_mutex_unlock(&lock);
}

static void start(void)
{
    pthread_mutex_lock(&lock);
    if (state == UNSTARTED) {
        starting = true;
        state = STARTING;
        mem_init();
        heap_limit = region_capacity() / 2;
        locking = !(&mm_thread_safe && mm_thread_safe);
        state = region_capacity() && mm_init() == 0 ? READY : FAILED;
        starting = false;
    }
    pthread_mutex_unlock(&lock);
}

/* True when the variant can take a request of n bytes (starting it if need be). */
static inline bool variant_takes(size_t n)
{
    if (__builtin_expect(state != READY, 0)) {
        if (starting)
            return false;
        start();
        if (state != READY)
            return false;
    }
    return n <= heap_limit;
}

static __attribute__((noreturn)) void die(const char *what)
{
    static const char prefix[] = "mmshim: ";
    ssize_t ignored = write(2, prefix, sizeof prefix - 1);
    ignored = write(2, what, strlen(what));
    ignored = write(2, "\n", 1);
    (void)ignored;
    abort();
}

void *core_alloc(size_t size, size_t alignment)
{
    size_t extra = alignment > HDR ? alignment : HDR;
    if (size > SIZE_MAX - extra)
        return NULL;
    if (variant_takes(size + extra)) {
        bool locked = enter();
        void *base = mm_malloc(size + extra);
        leave(locked);
        if (base)
            return stamp(base, size, alignment, TAG_HEAP);
        shim_tally(&shim_count.fallbacks);
    }
    return big_alloc(size, alignment);
}

/* Can the header in front of payload be read?  Always inside the region; outside it
 * the block was an mmap of its own, whose header went with it when it was freed, so
 * one mincore call (a big free makes a munmap call anyway) turns a second free of it
 * into the message instead of a SIGSEGV. */
static inline bool header_mapped(const void *payload)
{
    if (region_contains(payload))
        return true;
    uintptr_t page = (uintptr_t)hdr_of(payload) & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
    unsigned char resident;
    return mincore((void *)page, 1, &resident) == 0;
}

void core_free(void *payload)
{
    if (!header_mapped(payload))
        die("free(): invalid pointer or double free");
    shim_hdr_t *h = hdr_of(payload);
    switch (tag_of(h)) {
    case TAG_MAP:
        big_free(payload);
        return;
    case TAG_HEAP: {
        void *base = base_of(payload);
        h->meta = 0;                     /* a second free of it then fails the tag test */
        bool locked = enter();
        mm_free(base);
        leave(locked);
        return;
    }
    default:
        die("free(): invalid pointer or double free");
    }
}

static void *move(void *payload, size_t size)
{
    void *fresh = core_alloc(size, HDR);
    if (fresh) {
        size_t old = hdr_of(payload)->size;
        memcpy(fresh, payload, old < size ? old : size);
        core_free(payload);
    }
    return fresh;
}

/* realloc ladder: variant in place, mremap in place, else move. */
void *core_realloc(void *payload, size_t size)
{
    if (!header_mapped(payload))
        die("realloc(): invalid pointer");
    shim_hdr_t *h = hdr_of(payload);
    unsigned tag = tag_of(h);
    if (tag != TAG_HEAP && tag != TAG_MAP)
        die("realloc(): invalid pointer");
    if (offset_of(h) == 0 && tag == TAG_HEAP && size <= SIZE_MAX - HDR && variant_takes(size + HDR)) {
        bool locked = enter();
        void *base = mm_realloc(base_of(payload), size + HDR);
        leave(locked);
        if (base)
            return stamp(base, size, HDR, TAG_HEAP);
    }
    if (offset_of(h) == 0 && tag == TAG_MAP && size > heap_limit) {
        void *moved = big_realloc(payload, size);
        if (moved)
            return moved;
    }
    return move(payload, size);
}

size_t core_usable(const void *payload)
{
    return hdr_of(payload)->size;
}

/* ------------------------------------------------------------ fork */

static void fork_prepare(void)
{
    if (locking)
        pthread_mutex_lock(&lock);
    if (mm_atfork_prepare)
        mm_atfork_prepare();
    region_fork_prepare();
}

static void fork_parent(void)
{
    region_fork_parent();
    if (mm_atfork_parent)
        mm_atfork_parent();
    if (locking)
        pthread_mutex_unlock(&lock);
}

static void fork_child(void)
{
    region_fork_child();
    if (mm_atfork_child)
        mm_atfork_child();
    if (locking)
        pthread_mutex_init(&lock, NULL);
}

/* Runs after libc has started, so getenv works; the loader's few earlier calls
 * are served but not counted. */
__attribute__((constructor)) static void shim_setup(void)
{
    shim_counting = getenv("MMSHIM_STATS") != NULL;
    if (state == UNSTARTED)
        start();
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

__attribute__((destructor)) static void shim_teardown(void)
{
    if (shim_counting)
        report_at_exit();
}
