/* audit.c - the child's memory outside the heap, watched by the parent (see audit.h). */
#define _GNU_SOURCE
#include "driver/audit.h"

#include <errno.h>
#include <link.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/rseq.h>
#include <sys/uio.h>
#include <unistd.h>

#include "driver/heap.h"
#include "driver/options.h"
#include "driver/pages.h"

enum { MAX_REGIONS = 64, MAX_SKIPS = 24, NAME_BYTES = 64 };

typedef struct {
    uintptr_t lo, hi;
    size_t at;                 /* offset in the copy */
    char name[NAME_BYTES];     /* from the memory map: a path, [heap], [stack] or empty */
} region_t;

typedef struct {
    uintptr_t lo, hi;
} span_t;

struct audit {
    audit_child_t child;
    region_t region[MAX_REGIONS];
    size_t n_regions;
    span_t skip[MAX_SKIPS];    /* never compared: bytes the serving child or the allocator may change */
    size_t n_skips;
    unsigned char *copy, *now;
    size_t bytes;
    uint64_t calls, due_at;    /* checked calls so far; the window's audit */
    uint64_t window;
    uint64_t next_live;        /* the payload mark of the next payload audit */
    size_t peak[AUDIT_PEAKS];  /* the ops of the peak audits, ascending */
    size_t n_peaks, next_peak;
    uint64_t rng;
};

/* MDRIVER_AUDIT_WINDOW's ops, from 1 to AUDIT_WINDOW (no run's window is shorter,
 * so it never audits less often); 0 when unset, empty or out of that range. */
static long window_setting(void)
{
    const char *s = options_env("MDRIVER_AUDIT_WINDOW");
    long n;
    return s && options_int(s, 1, AUDIT_WINDOW, &n) ? n : 0;
}

const char *audit_window_unknown_setting(void)
{
    const char *s = options_env("MDRIVER_AUDIT_WINDOW");
    return s && !window_setting() ? s : NULL;
}

extern char mm_globals_data_first, mm_globals_data_last, mm_globals_bss_first, mm_globals_bss_last;

#ifdef __SANITIZE_ADDRESS__
audit_t *audit_open(const audit_child_t *child, size_t ops, const size_t *peaks, size_t n_peaks, char *err,
                    size_t err_len)
{
    (void)child, (void)ops, (void)peaks, (void)n_peaks;
    if (err_len)
        err[0] = '\0';
    return NULL;
}
void audit_close(audit_t *a) { (void)a; }
bool audit_available(void) { return false; }
bool audit_due(audit_t *a) { (void)a; return false; }
bool audit_payload_due(audit_t *a, size_t op, uint64_t live_bytes)
{
    (void)a, (void)op, (void)live_bytes;
    return false;
}
bool audit_check(audit_t *a, char *msg, size_t msg_len) { (void)a, (void)msg, (void)msg_len; return true; }
#else

static uint64_t next_random(audit_t *a)
{
    a->rng ^= a->rng << 13, a->rng ^= a->rng >> 7, a->rng ^= a->rng << 17;
    return a->rng;
}

/* The audit of the window after the one holding call a->calls (windows are
 * calls 1 to W, W + 1 to 2W, ...). */
static void next_window(audit_t *a)
{
    uint64_t start = a->calls ? ((a->calls - 1) / a->window + 1) * a->window : 0;
    a->due_at = start + 1 + next_random(a) % a->window;
}

/* AUDIT_WINDOW ops, or a share of a longer run; MDRIVER_AUDIT_WINDOW, for tests,
 * audits more often, never less. */
static uint64_t window_size(size_t ops)
{
    long set = window_setting();
    if (set)
        return (uint64_t)set;
    return ops / AUDITS_PER_RUN > AUDIT_WINDOW ? ops / AUDITS_PER_RUN : AUDIT_WINDOW;
}

static void add_skip(audit_t *a, uintptr_t lo, size_t len)
{
    if (len && a->n_skips < MAX_SKIPS)
        a->skip[a->n_skips++] = (span_t){lo, lo + len};
}

static int find_program_tls(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_TLS) {
            size_t align = info->dlpi_phdr[i].p_align ? info->dlpi_phdr[i].p_align : 1;
            *(size_t *)out = (info->dlpi_phdr[i].p_memsz + align - 1) / align * align;
        }
    return 1;  /* the program comes first; the libraries' blocks lie further down */
}

/* The size of the program's own static TLS block. */
static size_t program_tls_bytes(void)
{
    size_t bytes = 0;
    dl_iterate_phdr(find_program_tls, &bytes);
    return bytes;
}

/* What the serving child may change outside the allocator's own data. */
static void skip_mutable(audit_t *a)
{
    add_skip(a, (uintptr_t)&mm_globals_data_first, (size_t)(&mm_globals_data_last - &mm_globals_data_first) + 1);
    add_skip(a, (uintptr_t)&mm_globals_bss_first, (size_t)(&mm_globals_bss_last - &mm_globals_bss_first) + 1);
    for (size_t i = 0; i < AUDIT_SPANS; i++)
        add_skip(a, (uintptr_t)a->child.serving[i], a->child.serving_len[i]);
    /* memlib's fields, not the whole of its state pages: their unused rest, which
     * an allocator may open with mprotect, held 2 x 64 KiB of sizes (red team) */
    uintptr_t lo[3];
    size_t len[3], n = heap_state_fields(lo, len);
    for (size_t i = 0; i < n; i++)
        add_skip(a, lo[i], len[i]);
    n = heap_mprotect_ranges(lo, len);
    for (size_t i = 2; i < n; i++)  /* the shared heap's reservation */
        add_skip(a, lo[i], len[i]);
    /* what printing on the unbuffered stdio streams changes (an allocator may
     * print): the flags, the one-byte buffer, the orientation, the offset */
    FILE *streams[] = {stdout, stderr};
    for (size_t i = 0; i < 2; i++) {
        uintptr_t f = (uintptr_t)streams[i];
        add_skip(a, f + offsetof(FILE, _flags), sizeof streams[i]->_flags);
        add_skip(a, f + offsetof(FILE, _shortbuf), sizeof streams[i]->_shortbuf);
        add_skip(a, f + offsetof(FILE, _offset), sizeof streams[i]->_offset);
        add_skip(a, f + offsetof(FILE, _mode), sizeof streams[i]->_mode);
    }
    add_skip(a, (uintptr_t)&errno, sizeof errno);
    /* the allocator's own thread-local variables: the program's static TLS block,
     * just below the thread pointer (the driver has none; the grader counts them
     * with the globals) */
    uintptr_t tp = (uintptr_t)__builtin_thread_pointer();
    size_t tls = program_tls_bytes();
    add_skip(a, tp - tls, tls);
    /* the kernel writes the thread's rseq area (the CPU it runs on) */
    if (__rseq_size)
        add_skip(a, tp + (uintptr_t)__rseq_offset, __rseq_size);
}

/* Does /proc number processes as this process does?  Not when it belongs to
 * another pid namespace (a sandbox that did not mount its own): its entry for
 * the child's pid would be another process. */
static bool proc_is_ours(void)
{
    char self[32];
    ssize_t n = readlink("/proc/self", self, sizeof self - 1);
    if (n <= 0)
        return false;
    self[n] = '\0';
    return atoi(self) == (int)getpid();
}

/* Yama's ptrace_scope: 0 where there is no Yama. */
static int ptrace_scope(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = 0;
    if (f) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = 0;
        fclose(f);
    }
    return scope;
}

bool audit_available(void) { return proc_is_ours() && ptrace_scope() < 2; }

/* The child's private writable mappings, from its memory map. */
static bool read_map(audit_t *a, char *err, size_t err_len)
{
    char path[64];
    if (!proc_is_ours()) {
        snprintf(err, err_len, "/proc here belongs to another pid namespace");
        return false;
    }
    snprintf(path, sizeof path, "/proc/%d/maps", (int)a->child.pid);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_len, "could not read %s (%s)", path, strerror(errno));
        return false;
    }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8] = "", name[NAME_BYTES] = "";
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %63[^\n]", &lo, &hi, perms, name) < 3)
            continue;
        if (perms[1] != 'w' || perms[3] != 'p')
            continue;  /* read-only (cannot hold anything) or shared (checked apart) */
        if (a->n_regions == MAX_REGIONS) {
            fclose(f);
            snprintf(err, err_len, "the trace's process has more than %d writable mappings", MAX_REGIONS);
            return false;
        }
        region_t *r = &a->region[a->n_regions++];
        *r = (region_t){.lo = lo, .hi = hi, .at = a->bytes};
        /* an object's .bss past its file-backed data is an anonymous mapping right after it */
        bool bss = !name[0] && a->n_regions > 1 && r[-1].hi == lo;
        snprintf(r->name, sizeof r->name, "%s", bss ? r[-1].name : name);
        a->bytes += hi - lo;
    }
    fclose(f);
    return true;
}

/* The child's private memory into buf; false (with errno) when it could not be read. */
static bool read_child(audit_t *a, unsigned char *buf)
{
    enum { BATCH = 16 };
    for (size_t i = 0; i < a->n_regions; i += BATCH) {
        struct iovec here[BATCH], there[BATCH];
        size_t n = a->n_regions - i < BATCH ? a->n_regions - i : BATCH, want = 0;
        for (size_t k = 0; k < n; k++) {
            const region_t *r = &a->region[i + k];
            here[k] = (struct iovec){buf + r->at, r->hi - r->lo};
            there[k] = (struct iovec){(void *)r->lo, r->hi - r->lo};
            want += r->hi - r->lo;
        }
        ssize_t got = process_vm_readv(a->child.pid, here, n, there, n, 0);
        if (got != (ssize_t)want) {
            if (got >= 0)
                errno = EFAULT;
            return false;
        }
    }
    return true;
}

audit_t *audit_open(const audit_child_t *child, size_t ops, const size_t *peaks, size_t n_peaks, char *err,
                    size_t err_len)
{
    err[0] = '\0';
    audit_t *a = pages_alloc(sizeof *a);
    if (!a) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    memset(a, 0, sizeof *a);
    a->child = *child;
    if (getrandom(&a->rng, sizeof a->rng, 0) != (ssize_t)sizeof a->rng || !a->rng)
        a->rng = (uint64_t)child->pid * 0x9E3779B97F4A7C15u | 1;
    a->window = window_size(ops);
    a->next_live = PAYLOAD_FLOOR;
    a->n_peaks = n_peaks < AUDIT_PEAKS ? n_peaks : AUDIT_PEAKS;
    memcpy(a->peak, peaks, a->n_peaks * sizeof *peaks);
    skip_mutable(a);
    if (!read_map(a, err, err_len))
        return audit_close(a), NULL;
    a->copy = pages_alloc(a->bytes ? a->bytes : 1);
    a->now = pages_alloc(a->bytes ? a->bytes : 1);
    if (!a->copy || !a->now) {
        snprintf(err, err_len, "out of memory for a copy of %zu bytes", a->bytes);
        return audit_close(a), NULL;
    }
    if (!read_child(a, a->copy)) {
        snprintf(err, err_len, "could not read the trace's process's memory (%s)", strerror(errno));
        return audit_close(a), NULL;
    }
    next_window(a);
    return a;
}

bool audit_payload_due(audit_t *a, size_t op, uint64_t live_bytes)
{
    if (!a)
        return false;
    bool peak = a->next_peak < a->n_peaks && a->peak[a->next_peak] == op;
    a->next_peak += peak;
    if (live_bytes < a->next_live)
        return peak;
    uint64_t step = live_bytes / PAYLOAD_STEP_DIV + 1;
    a->next_live = live_bytes + step + next_random(a) % step;
    return true;
}

void audit_close(audit_t *a)
{
    if (!a)
        return;
    pages_free(a->copy);
    pages_free(a->now);
    pages_free(a);
}

bool audit_due(audit_t *a)
{
    if (!a)
        return false;
    if (++a->calls < a->due_at)
        return false;
    next_window(a);
    return true;
}

/* The skipped spans of region r as they were in the copy, so that only other changes count. */
static void mask_skipped(audit_t *a, const region_t *r)
{
    for (size_t i = 0; i < a->n_skips; i++) {
        uintptr_t lo = a->skip[i].lo > r->lo ? a->skip[i].lo : r->lo;
        uintptr_t hi = a->skip[i].hi < r->hi ? a->skip[i].hi : r->hi;
        if (lo < hi)
            memcpy(a->now + r->at + (lo - r->lo), a->copy + r->at + (lo - r->lo), hi - lo);
    }
}

/* The first changed byte of region r outside the skipped spans, or 0; *changed counts them. */
static uintptr_t first_change(audit_t *a, const region_t *r, size_t *changed)
{
    mask_skipped(a, r);
    const unsigned char *was = a->copy + r->at, *is = a->now + r->at;
    size_t len = r->hi - r->lo;
    if (!memcmp(was, is, len))
        return 0;
    uintptr_t first = 0;
    *changed = 0;
    for (size_t i = 0; i < len; i++)
        if (was[i] != is[i]) {
            first = first ? first : r->lo + i;
            ++*changed;
        }
    return first;
}

/* What region r is, for a reader: by the name the memory map gives it, or
 * memlib's state when the first change `at` is there. */
static void describe(const region_t *r, uintptr_t at, char *out, size_t len)
{
    char exe[256];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *base = strrchr(r->name, '/');
    base = base ? base + 1 : r->name;
    uintptr_t tp = (uintptr_t)__builtin_thread_pointer();
    if (heap_state_contains(at))
        snprintf(out, len, "the unused rest of memlib's state pages");
    else if (tp >= r->lo && tp < r->hi)
        snprintf(out, len, "the thread's control block and thread-local data (glibc's)");
    else if (!strcmp(r->name, "[heap]"))
        snprintf(out, len, "libc's heap (did the allocator call malloc, calloc or realloc?)");
    else if (!strcmp(r->name, "[stack]"))
        snprintf(out, len, "the process's start-up stack");
    else if (!r->name[0])
        snprintf(out, len, "an anonymous mapping of the driver's or libc's");
    else if (n > 0 && !strcmp(r->name, exe))
        snprintf(out, len, "the driver's own data");
    else if (!strncmp(base, "libc.so", 7))
        snprintf(out, len, "libc's data (its malloc's settings among them)");
    else
        snprintf(out, len, "the data of %s", base);
}

static bool all_zero(const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        if (b[i])
            return false;
    return true;
}

bool audit_check(audit_t *a, char *msg, size_t msg_len)
{
    if (!a)
        return true;
    for (size_t i = 0; i < AUDIT_SPANS; i++)
        if (a->child.zero[i] && !all_zero(a->child.zero[i], a->child.zero_len[i])) {
            snprintf(msg, msg_len, "it wrote into bytes of a page the driver shares with the trace's process that "
                     "only the driver may write (at %p): allocator metadata belongs in the heap", a->child.zero[i]);
            return false;
        }
    if (!read_child(a, a->now)) {
        if (errno == ESRCH)
            return true;  /* it died after answering: the wait for its next answer says how */
        snprintf(msg, msg_len, "the driver could no longer read the trace's process's memory (%s)", strerror(errno));
        return false;
    }
    for (size_t i = 0; i < a->n_regions; i++) {
        size_t changed = 0;
        uintptr_t at = first_change(a, &a->region[i], &changed);
        if (at) {
            char what[160];
            describe(&a->region[i], at, what, sizeof what);
            snprintf(msg, msg_len, "it changed %zu bytes of memory outside the heap, in %s (the first at %#" PRIxPTR
                     "); allocator metadata belongs in the heap, or in mm.c's own globals", changed, what, at);
            return false;
        }
    }
    return true;
}

#endif
