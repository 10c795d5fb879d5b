/*
 * recorder.c - an LD_PRELOAD library that logs every malloc-family call of a
 * program so that `mmtrace record` can turn the log into a .rep trace.
 *
 *   MMTRACE_OUT=/tmp/run/raw LD_PRELOAD=build/mmtrace/recorder.so  prog args
 *
 * writes one file per process, /tmp/run/raw.<pid>, of fixed 32-byte records
 * (raw.<pid>.<n> for the n-th program the process exec'd, each with a log of its own):
 *
 *   record 0        header: magic "MMTRAW01", pid, parent pid, flags (LOG_CUT)
 *   record 1...     event:  kind, thread id, result, size, argument
 *   first kind 0    end of the log (the file is grown in zero-filled windows)
 *
 * Design choices, each for a reason:
 *   - The real allocator is reached through glibc's exported __libc_* entry
 *     points, never dlsym, so there is no bootstrap recursion (dlsym itself
 *     calls calloc) and no static bootstrap arena to get wrong.
 *   - The recorder never allocates: the log is the file itself, mapped
 *     MAP_SHARED one window at a time.  A program that crashes keeps every
 *     event written before the crash, because the kernel owns those pages.
 *   - One mutex is held around the real call *and* the append, so the log's
 *     order is an order in which addresses were really handed out and taken
 *     back: thread A's free(p) is always logged before thread B's malloc that
 *     returns the same p.
 *   - A thread-local flag lets calls made while the recorder itself is busy
 *     pass straight through, unlogged, instead of deadlocking on the mutex.
 *   - fork() is bracketed by pthread_atfork handlers: the child never inherits
 *     a held lock, and it opens a log of its own instead of writing into its
 *     parent's window.
 *   - The log's disk space is reserved (posix_fallocate) ahead of the records
 *     written, 4 KiB first and twice as much each time up to 256 KiB: a page of
 *     a sparse file that a full disk cannot hold is SIGBUS in the program.  Not
 *     a whole window at once: a build's thousands of short processes would each
 *     hold 4 MiB.  When the log cannot grow, the header says so (LOG_CUT) and
 *     the program runs on unrecorded.
 *   - No descriptor is kept: the log is opened by its path for each window and
 *     closed once mapped.  A program may close every descriptor it did not open
 *     (daemons do) and get the same number for a file of its own, which a kept
 *     one would then grow and write into.
 *   - The programs a process starts are watched by launch.c: one started out of
 *     the recorder's reach is reported, not lost unseen.
 *   - A log stops at MMTRACE_MAX_EVENTS events (the header says so: LOG_FULL), which
 *     `record` sets past what a trace can use, so a program that runs for hours does
 *     not fill the disk under the logs at 32 bytes a call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder.h"

/* glibc's own allocator, exported for exactly this use. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t nmemb, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

/* Event kinds; mmtrace/rawlog.py keeps the same numbers. */
enum {
    EV_END = 0,
    EV_MALLOC = 1,
    EV_CALLOC = 2,
    EV_REALLOC = 3,
    EV_FREE = 4,
    EV_MEMALIGN = 5,
    EV_POSIX_MEMALIGN = 6,
    EV_ALIGNED_ALLOC = 7,
    EV_VALLOC = 8,
    EV_PVALLOC = 9,
};

typedef struct {
    uint32_t kind;
    uint32_t tid;
    uint64_t result; /* the pointer returned (0 when the call failed) */
    uint64_t size;   /* bytes requested (calloc: nmemb * size, saturated; pvalloc: whole pages) */
    uint64_t arg;    /* realloc: the old pointer; free: the pointer; aligned: alignment */
} event_t;

_Static_assert(sizeof(event_t) == 32, "the log's record size is part of its format");

static const size_t WINDOW_BYTES = 4u << 20;  /* one mapped window of the log */
static const size_t RESERVE_FIRST = 4u << 10;  /* disk space reserved at a time: at first, */
static const size_t RESERVE_MOST = 256u << 10; /* and at most */
static const char MAGIC[8] = {'M', 'M', 'T', 'R', 'A', 'W', '0', '1'};

enum { REC_UNINIT = 0, REC_READY = 1, REC_OFF = -1 };

/* The header's flags (its arg field); mmtrace/rawlog.py keeps the same numbers. */
enum {
    LOG_CUT = 1,  /* the log could not grow: events after the last one are missing */
    LOG_FULL = 2, /* the log reached MMTRACE_MAX_EVENTS: the later events were not logged */
};

/* All mutable state of the recorder, guarded by lock. */
static struct {
    pthread_mutex_t lock;
    int state;
    event_t *head;       /* the log's header, mapped for as long as the log is kept */
    event_t *window;     /* the mapped window, or NULL */
    size_t window_no;    /* which window of the file is mapped */
    size_t used;         /* records used in the current window */
    size_t reserved;     /* records of the current window whose disk space is reserved */
    size_t step;         /* bytes the next reservation asks for */
    size_t logged;       /* events in the log */
    size_t most;         /* events the log may hold (MMTRACE_MAX_EVENTS; 0: no limit) */
    char path[4096];     /* the log's file */
} rec = {PTHREAD_MUTEX_INITIALIZER, REC_UNINIT, NULL, NULL, 0, 0, 0, 0, 0, 0, ""};

static __thread int busy __attribute__((tls_model("initial-exec")));
static __thread uint32_t cached_tid __attribute__((tls_model("initial-exec")));

static inline size_t records_per_window(void) { return WINDOW_BYTES / sizeof(event_t); }

static uint32_t current_tid(void)
{
    if (cached_tid == 0)
        cached_tid = (uint32_t)syscall(SYS_gettid);
    return cached_tid;
}

int put_number(char *buf, size_t cap, size_t *n, long value)
{
    char digits[24];
    int d = 0;
    do {
        digits[d++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    if (*n + 1 + (size_t)d + 1 > cap)
        return -1;
    buf[(*n)++] = '.';
    while (d > 0)
        buf[(*n)++] = digits[--d];
    buf[*n] = '\0';
    return 0;
}

/* Write "prefix.<pid>", or "prefix.<pid>.<gen>" past gen 0, into buf without snprintf
 * (which may allocate). */
static int log_path(char *buf, size_t cap, const char *prefix, long pid, long gen)
{
    size_t n = strlen(prefix);
    if (n + 1 > cap)
        return -1;
    memcpy(buf, prefix, n);
    if (put_number(buf, cap, &n, pid) != 0)
        return -1;
    return gen > 0 ? put_number(buf, cap, &n, gen) : 0;
}

/* Create this process's log, a new file: a program exec'd by the process loads the recorder
 * again under the same pid, and must not truncate the log of the program before it. */
static int create_log(const char *prefix)
{
    for (long gen = 0; gen < 10000; gen++) {
        if (log_path(rec.path, sizeof rec.path, prefix, getpid(), gen) != 0)
            return -1;
        int fd = open(rec.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* Map window number w of the log (the file grown sparse to hold it: see reserve_more). */
static int map_window(size_t w)
{
    if (rec.window != NULL)
        munmap(rec.window, WINDOW_BYTES);
    rec.window = NULL;
    int fd = open(rec.path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    void *m = MAP_FAILED;
    if (ftruncate(fd, (off_t)((w + 1) * WINDOW_BYTES)) == 0)
        m = mmap(NULL, WINDOW_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                 (off_t)(w * WINDOW_BYTES));
    close(fd);
    if (m == MAP_FAILED)
        return -1;
    rec.window = m;
    rec.window_no = w;
    rec.used = 0;
    rec.reserved = 0;
    return 0;
}

/* Reserve the disk space of the current window's next rec.step bytes (or its rest). */
static int reserve_more(void)
{
    size_t done = rec.reserved * sizeof(event_t);
    size_t len = rec.step < WINDOW_BYTES - done ? rec.step : WINDOW_BYTES - done;
    int fd = open(rec.path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int err = posix_fallocate(fd, (off_t)(rec.window_no * WINDOW_BYTES + done), (off_t)len);
    close(fd);
    if (err != 0)
        return -1;
    rec.reserved += len / sizeof(event_t);
    if (rec.step < RESERVE_MOST)
        rec.step *= 2;
    return 0;
}

/* Log no more; FLAG (LOG_CUT, LOG_FULL) says why events are lost from here. */
static void turn_off(uint64_t flag)
{
    if (rec.window != NULL)
        munmap(rec.window, WINDOW_BYTES);
    if (rec.head != NULL) {
        rec.head->arg |= flag;
        munmap(rec.head, sizeof(event_t));
    }
    rec.window = NULL;
    rec.head = NULL;
    rec.state = REC_OFF;
}

/* First use in this process: open the log named by MMTRACE_OUT.  Lock held. */
static void start_log(void)
{
    const char *prefix = getenv("MMTRACE_OUT"), *most = getenv("MMTRACE_MAX_EVENTS");
    rec.state = REC_OFF;
    if (prefix == NULL || *prefix == '\0')
        return;
    rec.logged = 0;
    rec.most = most != NULL ? (size_t)strtoull(most, NULL, 10) : 0;
    int fd = create_log(prefix);
    if (fd < 0)
        return;
    void *h = MAP_FAILED;
    if (posix_fallocate(fd, 0, sizeof(event_t)) == 0)
        h = mmap(NULL, sizeof(event_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (h == MAP_FAILED)
        return;
    rec.head = h;
    memcpy(rec.head, MAGIC, sizeof MAGIC);
    rec.head->result = (uint64_t)getpid();
    rec.head->size = (uint64_t)getppid();
    rec.head->arg = 0;
    if (map_window(0) != 0) {
        turn_off(LOG_CUT);
        return;
    }
    rec.used = 1; /* record 0 is the header */
    rec.step = RESERVE_FIRST;
    rec.state = REC_READY;
}

/* Append one event.  Lock held. */
static void append(uint32_t kind, const void *result, uint64_t size, uint64_t arg)
{
    if (rec.state == REC_UNINIT)
        start_log();
    if (rec.state != REC_READY)
        return;
    if (rec.most != 0 && rec.logged == rec.most) {
        turn_off(LOG_FULL);
        return;
    }
    if (rec.used == records_per_window() && map_window(rec.window_no + 1) != 0) {
        turn_off(LOG_CUT);
        return;
    }
    if (rec.used >= rec.reserved && reserve_more() != 0) {
        turn_off(LOG_CUT);
        return;
    }
    rec.logged++;
    event_t *e = &rec.window[rec.used++];
    e->tid = current_tid();
    e->result = (uint64_t)(uintptr_t)result;
    e->size = size;
    e->arg = arg;
    /* The kind goes last: a reader treats kind 0 as the end of the log. */
    __atomic_store_n(&e->kind, kind, __ATOMIC_RELEASE);
}

/* Enter/leave a hook.  enter() returns 0 when the call must pass through. */
static inline int enter(void)
{
    if (busy)
        return 0;
    busy = 1;
    pthread_mutex_lock(&rec.lock);
    return 1;
}

static inline void leave(void)
{
    pthread_mutex_unlock(&rec.lock);
    busy = 0;
}

/* The hooks.  Each keeps errno as the real call left it. */

void *malloc(size_t size)
{
    if (!enter())
        return __libc_malloc(size);
    void *p = __libc_malloc(size);
    int saved = errno;
    append(EV_MALLOC, p, size, 0);
    leave();
    errno = saved;
    return p;
}

void *calloc(size_t nmemb, size_t size)
{
    if (!enter())
        return __libc_calloc(nmemb, size);
    void *p = __libc_calloc(nmemb, size);
    int saved = errno;
    size_t total;
    if (__builtin_mul_overflow(nmemb, size, &total))
        total = SIZE_MAX;
    append(EV_CALLOC, p, total, 0);
    leave();
    errno = saved;
    return p;
}

void *realloc(void *ptr, size_t size)
{
    if (!enter())
        return __libc_realloc(ptr, size);
    void *p = __libc_realloc(ptr, size);
    int saved = errno;
    append(EV_REALLOC, p, size, (uint64_t)(uintptr_t)ptr);
    leave();
    errno = saved;
    return p;
}

void *reallocarray(void *ptr, size_t nmemb, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(nmemb, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(ptr, total);
}

void free(void *ptr)
{
    if (ptr == NULL)
        return;
    if (!enter()) {
        __libc_free(ptr);
        return;
    }
    /* Logged before the real free so that no other thread can be handed ptr first;
     * the lock makes the two one step anyway. */
    int saved = errno;
    append(EV_FREE, NULL, 0, (uint64_t)(uintptr_t)ptr);
    __libc_free(ptr);
    leave();
    errno = saved;
}

static void *aligned(uint32_t kind, size_t alignment, size_t size)
{
    if (!enter())
        return __libc_memalign(alignment, size);
    void *p = __libc_memalign(alignment, size);
    int saved = errno;
    append(kind, p, size, alignment);
    leave();
    errno = saved;
    return p;
}

static inline int power_of_two(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

/* memalign rounds an alignment that is no power of two up to one, and fails (EINVAL) past
 * SIZE_MAX / 2 + 1, in every glibc: __libc_memalign does both. */
void *memalign(size_t alignment, size_t size) { return aligned(EV_MEMALIGN, alignment, size); }

/* An alignment that is no power of two (0 too) is not valid, and aligned_alloc fails with
 * EINVAL (C17 7.22.3.1; glibc 2.38 on).  glibc before 2.38 made aligned_alloc memalign, which
 * rounds 24 up to 32: checked here, the program gets, and the log holds, the same on every
 * glibc.  Like posix_memalign's EINVAL, nothing is allocated, so nothing is logged. */
void *aligned_alloc(size_t alignment, size_t size)
{
    if (!power_of_two(alignment)) {
        errno = EINVAL;
        return NULL;
    }
    return aligned(EV_ALIGNED_ALLOC, alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
    /* The checks posix_memalign makes before it allocates anything. */
    if (alignment % sizeof(void *) != 0 || !power_of_two(alignment))
        return EINVAL;
    int saved = errno;
    void *p = aligned(EV_POSIX_MEMALIGN, alignment, size);
    errno = saved;
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}

/* valloc and pvalloc: page-aligned, recorded with the page size as their alignment and with the
 * size the program may use, which a replay must ask for: valloc(n) gives n bytes ("allocates
 * size bytes", valloc(3)), as memalign, aligned_alloc and posix_memalign give the size asked
 * for; pvalloc(n) gives n rounded up to a whole page ("rounds the size of the allocation up to
 * the next multiple of the system page size", pvalloc(3); glibc's __libc_pvalloc passes that
 * ALIGN_UP to _mid_memalign).  pvalloc(0) rounds to 0: glibc gives it no page (its tst-pvalloc
 * asks only for a pointer; 2.36 hands out a minimum chunk), so it is recorded as a size 0. */
static inline size_t page_rounded(size_t size, size_t page)
{
    size_t up;
    if (__builtin_add_overflow(size, page - 1, &up))
        return size; /* pvalloc fails: nothing to replay */
    return up & ~(page - 1);
}

static void *page_aligned(uint32_t kind, void *(*real)(size_t), size_t size)
{
    if (!enter())
        return real(size);
    void *p = real(size);
    int saved = errno;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    append(kind, p, kind == EV_PVALLOC ? page_rounded(size, page) : size, page);
    leave();
    errno = saved;
    return p;
}

void *valloc(size_t size) { return page_aligned(EV_VALLOC, __libc_valloc, size); }
void *pvalloc(size_t size) { return page_aligned(EV_PVALLOC, __libc_pvalloc, size); }

/* fork(): hold the lock across it so the child never inherits it held. */
static void before_fork(void)
{
    busy = 1;
    pthread_mutex_lock(&rec.lock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&rec.lock);
    busy = 0;
}

static void after_fork_child(void)
{
    /* The inherited window is the parent's file: drop it and start our own log. */
    if (rec.window != NULL)
        munmap(rec.window, WINDOW_BYTES);
    if (rec.head != NULL)
        munmap(rec.head, sizeof(event_t));
    rec.window = NULL;
    rec.head = NULL;
    rec.state = REC_UNINIT;
    cached_tid = 0;
    pthread_mutex_init(&rec.lock, NULL);
    busy = 0;
}

__attribute__((constructor)) static void recorder_init(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    busy = 1;                /* what dlsym allocates in launch_init is not the program's */
    launch_init();
    busy = 0;
}
