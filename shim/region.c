/*
 * region.c - memlib.h for a real process: the variant's heap is one large
 * reservation (PROT_NONE, MAP_NORESERVE, so it costs address space only) whose
 * pages become readable and writable in COMMIT_STEP (64 KiB) pieces as the
 * break rises, so VmData follows the heap closely.
 *
 * Capacity: MMSHIM_REGION_MB (default 2048 MiB, at most 4095 MiB so a variant
 * keeping 32-bit offsets stays valid).  Past it mem_sbrk fails with ENOMEM like
 * the simulated heap, and the shim serves the request from mmap (bigmap.c).
 * A mutex orders the break's moves: thread-safe variants call mem_sbrk
 * concurrently.  Readers take no lock (a free from any thread asks whether its
 * block is in the region), so the break and the high-water mark are read and
 * written atomically.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "block.h"
#include "memlib.h"
#include "shim.h"

enum { COMMIT_STEP = 64 << 10, DEFAULT_REGION_MB = 2048, MAX_REGION_MB = 4095 };

static struct {
    pthread_mutex_t lock;
    char *lo, *brk, *committed, *end;
    char *high_water;
    size_t page;
} rg = {.lock = PTHREAD_MUTEX_INITIALIZER};

static inline char *break_now(void) { return __atomic_load_n(&rg.brk, __ATOMIC_ACQUIRE); }
static inline void break_set(char *to) { __atomic_store_n(&rg.brk, to, __ATOMIC_RELEASE); }

/* At most `most` bytes of s appended to buf (n used of cap); the new length. */
static inline size_t append(char *buf, size_t n, size_t cap, const char *s, size_t most)
{
    for (size_t i = 0; s[i] && i < most && n < cap; i++)
        buf[n++] = s[i];
    return n;
}

/* One line on stderr about a value not taken, built by hand and written with
 * write(2): this runs inside the first malloc, where stdio could call malloc. */
static void say_not_taken(const char *value)
{
    char line[200];
    size_t n = append(line, 0, sizeof line, "mmshim: MMSHIM_REGION_MB=", SIZE_MAX);
    n = append(line, n, sizeof line, value, 60);
    n = append(line, n, sizeof line, ": not a whole number of MiB from 1 to 4095; using the default 2048\n", SIZE_MAX);
    ssize_t ignored = write(2, line, n);
    (void)ignored;
}

/* The MiB in s if it is digits only (no sign, no blanks, which strtol would take on
 * the left but not on the right) and in range; 0 if not. */
static inline long region_mb(const char *s)
{
    long mb = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || (mb = mb * 10 + (*s - '0')) > MAX_REGION_MB)
            return 0;
    }
    return mb;
}

static size_t wanted_capacity(void)
{
    const char *env = getenv("MMSHIM_REGION_MB");
    if (!env || !*env)
        return (size_t)DEFAULT_REGION_MB << 20;
    long mb = region_mb(env);
    if (mb < 1) {
        /* the shim runs inside arbitrary programs: say so, and go on with the default */
        say_not_taken(env);
        mb = DEFAULT_REGION_MB;
    }
    return (size_t)mb << 20;
}

/* Called once by core.c before mm_init; an empty region if the reservation fails. */
void mem_init(void)
{
    rg.page = (size_t)sysconf(_SC_PAGESIZE);
    size_t cap = wanted_capacity();
    char *map = mmap(NULL, cap, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED)
        cap = 0, map = NULL;
    rg.lo = rg.brk = rg.committed = rg.high_water = map;
    rg.end = map + cap;
}

void mem_deinit(void) {}

/* Make [committed, want) writable; false when the kernel refuses. */
static bool commit_to(char *want)
{
    char *to = (char *)align_up((uintptr_t)want, COMMIT_STEP);
    if (to > rg.end)
        to = rg.end;
    if (mprotect(rg.committed, (size_t)(to - rg.committed), PROT_READ | PROT_WRITE))
        return false;
    rg.committed = to;
    return true;
}

void *mem_sbrk(intptr_t incr)
{
    void *old = (void *)-1;
    pthread_mutex_lock(&rg.lock);
    if (incr >= 0 && (size_t)incr <= (size_t)(rg.end - rg.brk)) {
        char *new = rg.brk + incr;
        if (new <= rg.committed || commit_to(new)) {
            old = rg.brk;
            break_set(new);
            if (new > rg.high_water)
                __atomic_store_n(&rg.high_water, new, __ATOMIC_RELAXED);
        }
    }
    pthread_mutex_unlock(&rg.lock);
    if (old == (void *)-1)
        errno = ENOMEM;
    return old;
}

/* Only the simulated heap's driver resets the break; here it empties the region. */
void mem_reset_brk(void)
{
    pthread_mutex_lock(&rg.lock);
    break_set(rg.lo);
    pthread_mutex_unlock(&rg.lock);
}

void *mem_heap_lo(void) { return rg.lo; }
void *mem_heap_hi(void) { return break_now() - 1; }
size_t mem_heapsize(void) { return (size_t)(break_now() - rg.lo); }
size_t mem_pagesize(void) { return rg.page; }

size_t region_capacity(void) { return (size_t)(rg.end - rg.lo); }
size_t region_high_water(void) { return (size_t)(__atomic_load_n(&rg.high_water, __ATOMIC_RELAXED) - rg.lo); }
bool region_contains(const void *p) { return (const char *)p >= rg.lo && (const char *)p < break_now(); }

void region_fork_prepare(void) { pthread_mutex_lock(&rg.lock); }
void region_fork_parent(void) { pthread_mutex_unlock(&rg.lock); }
void region_fork_child(void) { pthread_mutex_init(&rg.lock, NULL); }
