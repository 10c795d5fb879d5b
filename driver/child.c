/*
 * child.c - one trace, one child process (see child.h).
 *
 *   parent                                     child
 *   nonce = 16 random bytes, put in a pipe
 *   heap reserved MAP_SHARED (heap_share)
 *   fork ------------------------------------> own process group, fds 0-2 to /dev/null
 *                                              and the output pipe, report and nonce pipes
 *                                              at random fd numbers, every other fd closed
 *   poll(report pipe, output pipe, deadline)   pass: check (and utilization)
 *   first byte: heap_touched, then sampled <-- write one byte, wait for progress->sampled
 *                                              passes: recheck, timing
 *   SIGKILL the group at the deadline          read the nonce, write(report), _exit(0)
 *   wait4: no report => crashed/exited/timeout, from the shared progress page;
 *   a report => exactly one, with the nonce, with values a real run can have,
 *   and a heap high-water mark no lower than the pages the checked run touched
 */
#define _GNU_SOURCE
#include "driver/child.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/heap.h"
#include "driver/hooks.h"
#include "driver/pages.h"
#include "driver/progress.h"
#include "driver/sealed.h"
#include "memlib.h"

enum { HIGH_FD = 64, LOWEST_CHANNEL_FD = 3, HIGHEST_CHANNEL_FD = 1023 };
/* A fault this far below the stack's limit is still taken for a stack overrun (a large local array). */
enum { STACK_OVERRUN_BYTES = 16 << 20 };

progress_t *progress;

const char *pass_name(pass_t pass)
{
    static const char *names[PASS_COUNT] = {"start-up", "mm_init", "correctness", "second correctness",
                                            "timing", "libc timing"};
    return pass < PASS_COUNT ? names[pass] : "unknown";
}

/* ------------------------------------------------------------ in the child */

static void on_fault(int sig, siginfo_t *info, void *context)
{
    (void)context;
    progress->fault_signal = sig;
    progress->fault_addr = (uintptr_t)info->si_addr;
    /* SA_RESETHAND restored the default action: returning re-runs the faulting
     * instruction, which now ends the process with this signal. */
}

static void catch_faults(void)
{
    static char alt_stack[1 << 16];
    stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack};
    sigaltstack(&ss, NULL);
    struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++)
        sigaction(faults[i], &sa, NULL);
}

/* Random bytes from the kernel; without them there is no nonce, so no run. */
static void random_bytes(void *buf, size_t len)
{
    size_t n = 0;
    while (n < len) {
        ssize_t got = getrandom((char *)buf + n, len - n, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            perror("mdriver: getrandom");
            exit(3);
        }
        n += (size_t)got;
    }
}

/* A random fd number below the fd limit, none of `avoid`: the channel is not
 * at a number an allocator could write to without looking for it first. */
static int random_fd(const int *avoid, size_t navoid)
{
    struct rlimit rl;
    unsigned limit = HIGHEST_CHANNEL_FD + 1;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < limit && rl.rlim_cur > HIGH_FD)
        limit = (unsigned)rl.rlim_cur;  /* below HIGH_FD the pipes could not have been made */
    for (;;) {
        unsigned r;
        random_bytes(&r, sizeof r);
        int fd = LOWEST_CHANNEL_FD + (int)(r % (limit - LOWEST_CHANNEL_FD));
        bool taken = false;
        for (size_t i = 0; i < navoid; i++)
            taken |= avoid[i] == fd;
        if (!taken)
            return fd;
    }
}

typedef struct {
    int report, nonce;
} channel_t;

static channel_t isolate_fds(int report_fd, int nonce_fd, int output_fd)
{
    setpgid(0, 0);
    int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    dup2(output_fd, 1);
    dup2(output_fd, 2);
    int avoid[4] = {report_fd, nonce_fd, output_fd, -1};
    channel_t ch;
    avoid[3] = ch.report = random_fd(avoid, 3);
    ch.nonce = random_fd(avoid, 4);
    dup2(report_fd, ch.report);
    dup2(nonce_fd, ch.nonce);
    int a = ch.report < ch.nonce ? ch.report : ch.nonce, b = ch.report ^ ch.nonce ^ a;
    if (a > 3)
        close_range(3, (unsigned)a - 1, 0);
    if (b > a + 1)
        close_range((unsigned)a + 1, (unsigned)b - 1, 0);
    close_range((unsigned)b + 1, ~0u, 0);
    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stderr, NULL, _IONBF, 0);
    return ch;
}

static void write_all(int fd, const void *buf, size_t len);

/* The first checked run is over: the parent looks at the heap pages it touched
 * (heap_touched, woken by one byte on the report channel) before a later run can
 * touch more.  Should the parent be gone, so is the reason to wait. */
static void let_parent_sample(int report_fd, pid_t parent)
{
    write_all(report_fd, "S", 1);
    struct timespec pause = {.tv_nsec = 20000};
    while (!progress->sampled && getppid() == parent)
        nanosleep(&pause, NULL);
}

/* What the child runs on and what it reports.  Made in the parent before fork;
 * in the child sealed (sealed.h) before any allocator code runs, and opened only
 * for the driver's own writes: each figure goes in as soon as it exists, so
 * nothing the parent is sent sits in memory the allocator can write between
 * being measured and being sent (the red team found the report in .bss). */
typedef struct {
    child_report_t rep;
    trace_t trace;      /* the child's copy of the parent's; its ops are read-only in the child too */
    child_plan_t plan;
} child_record_t;

static union __attribute__((aligned(SEALED_BYTES))) {
    child_record_t r;
    char pages[SEALED_BYTES];
} sealed;

_Static_assert(sizeof sealed == SEALED_BYTES, "the record fills its own pages");

static child_record_t *const record = &sealed.r;

static inline void put(void *dst, const void *src, size_t n) { sealed_put(&sealed, dst, src, n); }

/* A failed pass's verdict into the report.  Written only after the pass's last
 * allocator call; a passing one leaves the report's OK. */
static bool settle(bool ok, const verdict_t *v)
{
    if (!ok)
        put(&record->rep.verdict, v, sizeof *v);
    return ok;
}

static void run_passes(channel_t ch, pid_t parent)
{
    const trace_t *t = &record->trace;
    const child_plan_t *plan = &record->plan;
    child_report_t *rep = &record->rep;
    verdict_t v = {.outcome = OUTCOME_OK, .op_index = -1};
    put(&rep->verdict, &v, sizeof v);
    bool ok = true;
    placements_t pl = {.offset = placements_array(t->num_ops)};
    if (!pl.offset) {
        let_parent_sample(ch.report, parent);
        settle(verdict_fail(&v, OUTCOME_CRASHED, -1, "the driver ran out of memory for %zu ops", t->num_ops), &v);
        return;
    }
    /* libc first, before any allocator code has run in this process: glibc's
     * tunables are plain data that allocator code could change to slow libc down. */
    timing_t samples;
    if (plan->time_libc) {
        ok = settle(time_trace(t, false, plan->min_samples, &pl, &samples, &v), &v);
        put(&rep->libc_time, &samples, sizeof samples);
    }
    if (ok && plan->run_allocator) {
        progress_at(PASS_INIT, -1);
        mem_init();
        progress->heap_lo = heap_lo();
        progress->heap_max = heap_max();
        ok = settle(check_pass(t, PASS_CHECK, plan->check_heap, &pl, &v), &v);
        /* Utilization from the run whose every block was checked, not from an unchecked
         * one; memlib keeps its mark where allocator code cannot write it (child_main reads it). */
        heap_keep_high_water();
    }
    let_parent_sample(ch.report, parent);
    if (ok && plan->run_allocator) {
        ok = settle(check_pass(t, PASS_RECHECK, plan->check_heap, &pl, &v), &v);
        bool has_util = ok && plan->util;
        put(&rep->has_util, &has_util, sizeof has_util);
        if (ok && has_stats()) {
            /* The allocator's own figures, in its own struct: never a pointer into the report. */
            mm_stats_t stats = {0};
            mm_stats(&stats);
            put(&rep->stats, &stats, sizeof stats);
            put(&rep->has_stats, &(bool){true}, sizeof(bool));
        }
    }
    if (ok && plan->run_allocator && plan->time_mm) {
        /* Its samples sit here until time_trace returns: allocator code runs between
         * them (a hook per sample in measure.c would close that). */
        ok = settle(time_trace(t, true, plan->min_samples, &pl, &samples, &v), &v);
        put(&rep->mm_time, &samples, sizeof samples);
    }
    placements_array_free(pl.offset, t->num_ops);
}

static void write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        p += n;
        len -= (size_t)n;
    }
}

static size_t read_all(int fd, void *buf, size_t len)
{
    size_t n = 0;
    while (n < len) {
        ssize_t got = read(fd, (char *)buf + n, len - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    return n;
}

/* The stack is memory no check sees and the writable-data rule does not count:
 * room for a table of placements memorized in a checked run and replayed when
 * timed, or for block headers kept out of the heap (red team).  The driver and
 * the kit's allocators need far less than this (see CHILD_STACK_BYTES). */
static void limit_stack(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > CHILD_STACK_BYTES)) {
        rl.rlim_cur = CHILD_STACK_BYTES;
        if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > CHILD_STACK_BYTES)
            rl.rlim_max = CHILD_STACK_BYTES;
        setrlimit(RLIMIT_STACK, &rl);
    }
}

static void child_main(int report_fd, int nonce_fd, int output_fd, pid_t parent)
{
    channel_t ch = isolate_fds(report_fd, nonce_fd, output_fd);
    catch_faults();
    limit_stack();
    /* The trace the checks follow, and the plan, are the driver's: read-only from
     * here on (the allocator could still point the checker at a trace of its own). */
    const trace_t *t = &record->trace;
    pages_protect(t->ops, t->num_ops * sizeof *t->ops, PAGES_READ_ONLY);
    sealed_seal(&sealed, true);
    run_passes(ch, parent);
    child_report_t *rep = &record->rep;
    /* Read only now, after the allocator's last call: a copy made earlier would sit
     * in memory the allocator can write while the later passes run. */
    if (rep->has_util) {
        util_result_t util;
        util_compute(t, heap_kept_high_water(), &util);
        put(&rep->util, &util, sizeof util);
    }
    fflush(stdout);
    /* Read only now, after the allocator's last call: until here it sat in the pipe. */
    uint8_t nonce[CHILD_NONCE_BYTES];
    read_all(ch.nonce, nonce, sizeof nonce);
    put(rep->nonce, nonce, sizeof nonce);
    write_all(ch.report, rep, sizeof *rep);
    _exit(0);
}

/* ------------------------------------------------------------ in the parent */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int high_fd(int fd)
{
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);
    close(fd);
    return moved;
}

typedef struct {
    char *buf;
    size_t len, total;
} sink_t;

static bool drain(int fd, char *dst, size_t cap, size_t *len, size_t *total)
{
    char chunk[8192];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0)
        return false;
    size_t keep = *len < cap ? cap - *len : 0;
    if (keep > (size_t)n)
        keep = (size_t)n;
    memcpy(dst + *len, chunk, keep);
    *len += keep;
    *total += (size_t)n;
    return true;
}

static void describe_death(const trace_t *t, int status, bool timed_out, double limit, verdict_t *v)
{
    char here;  /* in the stack the parent and the child share up to fork; the child's frames lie below */
    pass_t pass = (pass_t)progress->pass;
    int64_t at = progress->op;
    char where[160] = "";
    if (at >= 0 && (size_t)at < t->num_ops) {
        char op[48];
        op_describe(&t->ops[at], op, sizeof op);
        snprintf(where, sizeof where, "at op %" PRId64 " (%s) of the %s pass", at, op, pass_name(pass));
    } else {
        snprintf(where, sizeof where, "in the %s pass", pass_name(pass));
    }
    int64_t op = at >= 0 ? at : -1;
    if (timed_out) {
        verdict_fail(v, OUTCOME_TIMEOUT, op, "did not finish within %.0f s; it was %s", limit, where);
    } else if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        char fault[160] = "";
        uintptr_t addr = progress->fault_addr, lo = progress->heap_lo;
        if (progress->fault_signal == sig && lo && (sig == SIGSEGV || sig == SIGBUS)) {
            if (addr >= lo - 4096 && addr < lo)
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", %" PRIuPTR " bytes below the heap", addr, lo - addr);
            else if (heap_state_contains(addr))
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", in memlib's own state (the break and its "
                         "high-water mark), which is read-only while the allocator runs", addr);
            else if (addr >= lo && addr < lo + progress->heap_max + 4096)
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", in the heap's unallocated space past the break", addr);
            else if (addr < (uintptr_t)&here && (uintptr_t)&here - addr < CHILD_STACK_BYTES + STACK_OVERRUN_BYTES)
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", past the end of the stack, which is limited to "
                         "%zu KiB in the trace's process (a large local array, or deep recursion?)", addr,
                         (size_t)CHILD_STACK_BYTES >> 10);
            else if (sealed_contains(&sealed, addr))
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", in the driver's report and its copy of the "
                         "trace, which are read-only while the allocator runs", addr);
            else if (pages_contains(t->ops, addr))
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", in the driver's copy of the trace's ops, "
                         "which is read-only while the allocator runs", addr);
            else
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", which is not in the heap", addr);
        }
        const char *abbrev = sigabbrev_np(sig), *descr = sigdescr_np(sig);
        verdict_fail(v, OUTCOME_CRASHED, op, "crashed with SIG%s (%s) %s%s%s", abbrev ? abbrev : "?",
                     descr ? descr : "unknown signal", where, fault,
                     sig == SIGABRT ? " (did the allocator call abort or fail an assert?)" : "");
    } else if (WIFEXITED(status)) {
        verdict_fail(v, OUTCOME_EXITED, op, "the process exited with status %d %s (did the allocator call exit?)",
                     WEXITSTATUS(status), where);
    } else {
        verdict_fail(v, OUTCOME_CRASHED, op, "ended without a report %s", where);
    }
}

static double cpu_seconds(const struct rusage *ru)
{
    return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) +
           (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1e-6;
}

/* Samples a real timing pass can have produced: at most MDRIVER_MAX_SAMPLES,
 * each finite and not negative; their sum goes to *total.  The estimate is
 * recomputed here rather than taken from the report. */
static bool timing_sound(timing_t *tm, bool asked, double *total)
{
    if (tm->n < 0 || tm->n > MDRIVER_MAX_SAMPLES || (tm->n && !asked))
        return false;
    for (int i = 0; i < tm->n; i++) {
        if (!isfinite(tm->samples[i]) || tm->samples[i] < 0)
            return false;
        *total += tm->samples[i];
    }
    bool unused;
    tm->seconds = tm->n ? kbest_estimate(tm->samples, tm->n, &unused) : 0;
    return true;
}

/* The fastest time a replay of one op can take.  Each op of the timed loop is at
 * least a call and a return into the allocator, a load of the op and a store of
 * where its block landed: a bump allocator (mem_sbrk and nothing else) measured
 * 2.0 ns an op at best on the kit's 2.6 GHz test machine, about 5 cycles.  Three
 * taken branches an op cannot retire in fewer than ~1.5 cycles on any current
 * core, 0.25 ns at 6 GHz.  The red team's replay of a rewritten one-op trace
 * claimed 0.004 ns an op of the real trace. */
static const double MIN_SECONDS_PER_OP = 0.25e-9;

/* True (and the sample in *fastest) when a sample of tm is below the floor for n ops. */
static bool too_fast(const timing_t *tm, size_t n, double *fastest)
{
    for (int i = 0; i < tm->n; i++)
        if (tm->samples[i] < MIN_SECONDS_PER_OP * (double)n) {
            *fastest = tm->samples[i];
            return true;
        }
    return false;
}

/* Is this the report the driver's child wrote?  False with *v saying why.  touched:
 * how far the heap pages the first checked run touched reach (heap_touched). */
static bool report_sound(const trace_t *t, const child_plan_t *plan, const uint8_t *nonce, size_t bytes,
                         const struct rusage *ru, size_t touched, child_report_t *rep, verdict_t *v)
{
    if (bytes != sizeof *rep)
        return verdict_fail(v, OUTCOME_TAMPERED, -1,
                            "the driver's report channel carried %zu bytes instead of one %zu-byte report: code "
                            "in the trace's process (the allocator) wrote into it", bytes, sizeof *rep);
    if (memcmp(rep->nonce, nonce, CHILD_NONCE_BYTES))
        return verdict_fail(v, OUTCOME_TAMPERED, -1,
                            "the report did not carry the random nonce the driver gave this run: it was not "
                            "written by the driver (a forged or replayed report)");
    const verdict_t *rv = &rep->verdict;
    if (rv->outcome >= OUTCOME_COUNT || rv->outcome == OUTCOME_BAD_TRACE || rv->op_index < -1 ||
        (rv->op_index >= 0 && (uint64_t)rv->op_index >= t->num_ops) || (rep->has_util && !plan->util))
        return verdict_fail(v, OUTCOME_TAMPERED, -1, "the report holds values no run of this trace can give");
    rep->verdict.message[sizeof rep->verdict.message - 1] = '\0';
    double timed = 0;
    if (!timing_sound(&rep->mm_time, plan->run_allocator && plan->time_mm, &timed) ||
        !timing_sound(&rep->libc_time, plan->time_libc, &timed))
        return verdict_fail(v, OUTCOME_TAMPERED, -1, "the report holds timing samples no timing pass can give");
    if (rep->has_util) {
        /* Disjoint blocks inside the heap: the break rose at least as high as the peak payload. */
        uint64_t high_water = rep->util.heap_high_water;
        util_compute(t, (size_t)high_water, &rep->util);
        if (high_water > heap_max() || high_water < rep->util.peak_payload)
            return verdict_fail(v, OUTCOME_TAMPERED, -1, "the report claims a heap high-water mark of %" PRIu64
                                " bytes, which no checked run of this trace can reach", high_water);
        /* Pages past the break are inaccessible in a checked run: none above the mark's page was touched. */
        uint64_t page = mem_pagesize();
        if ((high_water + page - 1) / page * page < touched)
            return verdict_fail(v, OUTCOME_TAMPERED, -1, "the report claims a heap high-water mark of %" PRIu64
                                " bytes, but the first checked run touched heap pages up to %zu bytes above the heap's "
                                "start", high_water, touched);
    }
    /* No real replay is that fast (MIN_SECONDS_PER_OP), counted in the parent's ops, not the child's. */
    double fastest;
    if (too_fast(&rep->mm_time, t->num_ops, &fastest) || too_fast(&rep->libc_time, t->num_ops, &fastest))
        return verdict_fail(v, OUTCOME_TAMPERED, -1, "the report claims a timed replay of the trace's %zu ops in %.3g s, "
                            "%.3f ns an op: no allocator is that fast (was what the driver timed changed?)",
                            t->num_ops, fastest, fastest / (double)t->num_ops * 1e9);
    /* Each sample is a stretch of the child's CPU time: together they cannot exceed all of it. */
    double cpu = cpu_seconds(ru);
    if (timed > cpu * 1.02 + 0.005)
        return verdict_fail(v, OUTCOME_TAMPERED, -1,
                            "the report claims %.3f s of timed replays, but the trace's process used only %.3f s "
                            "of CPU time", timed, cpu);
    return true;
}

void child_run(const trace_t *t, const child_plan_t *plan, child_result_t *r)
{
    memset(r, 0, sizeof *r);
    r->output = calloc(MDRIVER_OUTPUT_KEEP + 1, 1);
    if (!progress) {
        progress = mmap(NULL, sizeof *progress, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (progress == MAP_FAILED) {
            perror("mdriver: mmap");
            exit(3);
        }
    }
    memset((void *)progress, 0, sizeof *progress);
    progress->op = -1;
    uint8_t nonce[CHILD_NONCE_BYTES];
    random_bytes(nonce, sizeof nonce);
    int rp[2], op[2], np[2];
    if (pipe(rp) || pipe(op) || pipe(np)) {
        perror("mdriver: pipe");
        exit(3);
    }
    /* The nonce waits in the pipe's buffer, not in the child's memory, until the child reads it. */
    if (write(np[1], nonce, sizeof nonce) != (ssize_t)sizeof nonce) {
        perror("mdriver: write");
        exit(3);
    }
    close(np[1]);
    rp[0] = high_fd(rp[0]), rp[1] = high_fd(rp[1]), op[0] = high_fd(op[0]), op[1] = high_fd(op[1]);
    np[0] = high_fd(np[0]);
    if (plan->run_allocator)
        heap_share();
    memset(&sealed, 0, sizeof sealed);
    record->trace = *t;
    record->plan = *plan;
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        perror("mdriver: fork");
        exit(3);
    }
    if (pid == 0)
        child_main(rp[1], np[0], op[1], parent);
    setpgid(pid, pid);
    close(rp[1]);
    close(op[1]);
    close(np[0]);

    size_t got = 0, report_bytes = 0, touched = 0;
    double deadline = now() + plan->time_limit;
    bool timed_out = false, sampled = false;
    struct pollfd fds[2] = {{.fd = rp[0], .events = POLLIN}, {.fd = op[0], .events = POLLIN}};
    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        double left = deadline - now();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        int n = poll(fds, 2, (int)(left * 1000) + 1);
        if (n < 0 && errno != EINTR)
            break;
        if (n <= 0)
            continue;
        if (fds[0].fd >= 0 && fds[0].revents && !sampled) {
            /* The channel's first byte: the first checked run is over (let_parent_sample). */
            char mark;
            ssize_t got_mark = read(rp[0], &mark, 1);
            if (got_mark == 0 || (got_mark < 0 && errno != EINTR && errno != EAGAIN))
                fds[0].fd = -1;
            if (got_mark == 1) {
                sampled = true;
                touched = heap_touched();
                heap_unshare();
                progress->sampled = 1;
            }
        } else if (fds[0].fd >= 0 && fds[0].revents) {
            if (!drain(rp[0], (char *)&r->report, sizeof r->report, &got, &report_bytes))
                fds[0].fd = -1;
        }
        if (fds[1].fd >= 0 && fds[1].revents &&
            !drain(op[0], r->output, MDRIVER_OUTPUT_KEEP, &r->output_len, &r->output_total))
            fds[1].fd = -1;
    }
    if (timed_out)
        kill(-pid, SIGKILL);
    int status = 0;
    struct rusage ru = {0};
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    if (timed_out)
        kill(-pid, SIGKILL);  /* anything it left behind in its group */
    close(rp[0]);
    close(op[0]);
    heap_unshare();
    bool exited_clean = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!exited_clean || report_bytes == 0) {
        memset(&r->report, 0, sizeof r->report);
        describe_death(t, status, timed_out, plan->time_limit, &r->report.verdict);
    } else {
        verdict_t why = {0};
        if (!report_sound(t, plan, nonce, report_bytes, &ru, touched, &r->report, &why)) {
            memset(&r->report, 0, sizeof r->report);
            r->report.verdict = why;
        }
    }
}

void child_result_free(child_result_t *r)
{
    free(r->output);
    r->output = NULL;
}
