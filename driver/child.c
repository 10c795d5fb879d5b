/*
 * child.c - one trace in child processes, judged by the parent (see child.h).
 *
 *   parent                                       allocator's child
 *   heap reserved MAP_SHARED (heap_share),
 *   timed arrays shared and empty, a stack
 *   shared for the child, then fork ----------> own process group, fds 0-2 to /dev/null
 *                                                and the output pipe, the channel's doorbells,
 *                                                onto the shared stack, sandboxed
 *   view of the heap made writable               waits for calls (channel_next)
 *   READY: a copy of the child's memory <------ its idle frame (audit.h)
 *   check.c: for each op, one call -----------> the allocator call (mm_checkheap after)
 *            the result checked here <---------- the block, the break
 *            at random ops, an audit of the
 *            child's memory outside the heap
 *   heap_touched after the first checked run
 *   measure.c: ops and tags into the shared arrays
 *            prepare, then a timed run -------> mm_init and the replay
 *            the child's CPU clock around it     placements and tags in the shared arrays
 *            the run judged here, the child's
 *            memory audited
 *   QUIT, or SIGKILL to the group at the deadline; wait4; a death becomes an
 *   outcome naming what the parent had asked for (progress.h)
 *
 * libc's child is the same without a heap or checked runs.  The child's side
 * is serve.c; the audit of its memory, audit.c.
 */
#define _GNU_SOURCE
#include "driver/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/audit.h"
#include "driver/channel.h"
#include "driver/clock.h"
#include "driver/cpus.h"
#include "driver/death.h"
#include "driver/heap.h"
#include "driver/hooks.h"
#include "driver/interrupt.h"
#include "driver/lifeline.h"
#include "driver/progress.h"
#include "driver/remote.h"
#include "driver/serve.h"
#include "memlib.h"

/* Inaccessible, below the child's serving stack: as the kernel leaves below a
 * process's own stack, so that a large local array faults instead of landing in
 * another mapping. */
enum { STACK_GUARD_BYTES = 1 << 20 };
/* Below the idle child's lowest driver frame: libc's system call wrappers. */
enum { IDLE_MARGIN = 1024 };
/* How often a wait for an answer looks whether the child was stopped (SIGSTOP):
 * a stopped child would otherwise be taken for a slow one until the deadline. */
static const double STOP_LOOK_SECONDS = 0.2;

progress_t *progress;

const char *pass_name(pass_t pass)
{
    static const char *names[PASS_COUNT] = {"start-up", "mm_init", "correctness", "second correctness",
                                            "timing", "libc timing", "mm_checkheap", "mm_stats"};
    return pass < PASS_COUNT ? names[pass] : "unknown";
}

/* ------------------------------------------------------------ in the parent */

struct remote {
    pid_t pid;
    channel_t ch;
    clockid_t cpu_clock;  /* the child's CPU clock */
    double deadline;
    bool gone, timed_out;
    bool interrupted;      /* stopped by the driver's interrupt (interrupt.h): no verdict */
    int stop_signal;       /* the signal that stopped the child (SIGSTOP, SIGTSTP...), or 0 */
    output_pump_t pump;
    cpus_t cpus;           /* where the child runs */
    int status;
    struct rusage ru;
    char *stack_map;       /* the child's serving stack, shared, a guard page at its bottom; NULL: none */
    size_t stack_map_len;
    uintptr_t idle_frame;  /* the child's frame while it waits for a call (READY) */
    audit_t *audit;        /* NULL: not audited (libc's child, sanitizer builds) */
    bool tampered;         /* an audit saw the child change memory outside the heap */
    int64_t tampered_op;
    char tampered_msg[320];
};

static inline uintptr_t stack_lo(const remote_t *c) { return (uintptr_t)c->stack_map + STACK_GUARD_BYTES; }
static inline uintptr_t stack_hi(const remote_t *c) { return (uintptr_t)c->stack_map + c->stack_map_len; }

/* The first MDRIVER_OUTPUT_KEEP bytes, then a window on the last MDRIVER_OUTPUT_TAIL past them. */
static bool drain(int fd, child_result_t *r)
{
    char chunk[8192];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0)
        return false;
    size_t keep = r->output_len < MDRIVER_OUTPUT_KEEP ? MDRIVER_OUTPUT_KEEP - r->output_len : 0;
    if (keep > (size_t)n)
        keep = (size_t)n;
    memcpy(r->output + r->output_len, chunk, keep);
    r->output_len += keep;
    r->output_total += (size_t)n;
    size_t rest = (size_t)n - keep, cap = sizeof r->output_tail;
    const char *from = chunk + keep;
    if (rest >= cap) {
        from += rest - cap;
        rest = cap;
        r->output_tail_len = 0;
    } else if (r->output_tail_len + rest > cap) {
        size_t drop = r->output_tail_len + rest - cap;
        memmove(r->output_tail, r->output_tail + drop, r->output_tail_len - drop);
        r->output_tail_len -= drop;
    }
    memcpy(r->output_tail + r->output_tail_len, from, rest);
    r->output_tail_len += rest;
    return true;
}

typedef struct {
    int fd;
    child_result_t *r;
} output_sink_t;

static bool drain_output(void *ctx)
{
    output_sink_t *o = ctx;
    return drain(o->fd, o->r);
}

static double child_cpu(const remote_t *c)
{
    struct timespec ts;
    if (clock_gettime(c->cpu_clock, &ts))
        return NAN;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The child's page faults so far, minor and major (/proc/PID/stat's fields 10
 * and 12), or -1 when they cannot be read. */
static long child_faults(const remote_t *c)
{
    char path[32], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)c->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0)
        return -1;
    line[n] = '\0';
    const char *fields = strrchr(line, ')');  /* after the command's name, which may hold anything */
    unsigned long minor, major;
    if (!fields || sscanf(fields + 1, " %*c %*d %*d %*d %*d %*d %*u %lu %*u %lu", &minor, &major) != 2)
        return -1;
    return (long)(minor + major);
}

static bool settle_wait(remote_t *c, wait_result_t w)
{
    if (w == WAIT_ANSWERED)
        return true;
    c->gone = true;
    c->timed_out = w == WAIT_TIMEOUT;
    c->interrupted = w == WAIT_INTERRUPTED;
    return false;
}

/* Before a call: an interrupt noted since the last one stops the trace here. */
static bool go_on(remote_t *c)
{
    if (!c->gone && interrupt_signal())
        c->gone = c->interrupted = true;
    return !c->gone;
}

/* channel_wait in slices, looking between two whether the child was stopped:
 * then it is gone at once (WAIT_GONE, c->stop_signal set). */
static wait_result_t wait_answer(remote_t *c, answer_t *a, bool yield)
{
    for (;;) {
        double until = monotonic_seconds() + STOP_LOOK_SECONDS;
        bool last = until >= c->deadline;
        wait_result_t w = channel_wait(&c->ch, a, last ? c->deadline : until, &c->pump, yield);
        if (w != WAIT_TIMEOUT || last)
            return w;
        siginfo_t si = {0};
        if (waitid(P_PID, (id_t)c->pid, &si, WSTOPPED | WNOHANG | WNOWAIT) == 0 && si.si_pid == c->pid &&
            si.si_code == CLD_STOPPED) {
            c->stop_signal = si.si_status;
            return WAIT_GONE;
        }
    }
}

/* Empty the child's serving stack below its idle frames (the child idle): an
 * allocator's dead frames, or anything it kept there, read as zeros. */
static void wipe_stack(const remote_t *c)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), floor = c->idle_frame - IDLE_MARGIN;
    if (!c->stack_map || floor <= stack_lo(c) || floor > stack_hi(c))
        return;
    uintptr_t whole = floor & ~(page - 1);
    if (whole > stack_lo(c))
        madvise((void *)stack_lo(c), whole - stack_lo(c), MADV_REMOVE);
    memset((void *)whole, 0, floor - whole);
}

/* After an answer: the audit, when one is due (audit.h).  False, with the child
 * killed and the verdict kept for reap, when the child changed memory outside
 * the heap. */
static bool audited(remote_t *c, bool due)
{
    if (!c->audit || !due)
        return true;
    wipe_stack(c);
    if (audit_check(c->audit, c->tampered_msg, sizeof c->tampered_msg))
        return true;
    c->tampered = true;
    c->tampered_op = progress->op;
    kill(c->pid, SIGKILL);
    c->gone = true;
    return false;
}

/* Calls after which an audit falls: one at random in each window of checked
 * calls, and after every call that runs the allocator through many ops. */
static bool audit_after(remote_t *c, uint32_t kind)
{
    switch ((call_kind_t)kind) {
    case CALL_MALLOC:
    case CALL_FREE:
    case CALL_REALLOC: return audit_due(c->audit);
    case CALL_STATS:
    case CALL_CHECKED_REPLAY:
    case CALL_TIMED_RUN: return true;
    default: return false;
    }
}

bool remote_payload(remote_t *c, size_t op, uint64_t live_bytes)
{
    return !c->gone && audited(c, audit_payload_due(c->audit, op, live_bytes));
}

bool remote_call(remote_t *c, const call_t *call, answer_t *a)
{
    if (!go_on(c))
        return false;
    if (call->kind == CALL_PREPARE_TIMED)
        wipe_stack(c);  /* a timed run starts with no dead frames of earlier runs */
    channel_call(&c->ch, call);
    bool answered = settle_wait(c, wait_answer(c, a, true));
    cpus_watch(&c->cpus, c->pid, &c->ch);
    return answered && audited(c, audit_after(c, call->kind));
}

/* Both sides sleep between calls, so every timed call costs the same wake-ups
 * (about 2 us here: a one-op trace's samples): they stay in the sample, the same
 * for libc and the allocator, rather than be estimated and taken out. */
bool remote_timed(remote_t *c, const call_t *call, double *seconds, long *faults, answer_t *a)
{
    if (!go_on(c))
        return false;
    cpus_join(&c->cpus, c->pid, &c->ch, false);  /* timed as libc's child is: on the parent's CPU */
    long faults_before = child_faults(c);
    double before = child_cpu(c);
    channel_call(&c->ch, call);
    if (!settle_wait(c, wait_answer(c, a, false)))
        return false;
    *seconds = child_cpu(c) - before;
    long faults_after = child_faults(c);
    *faults = faults_before >= 0 && faults_after >= faults_before ? faults_after - faults_before : -1;
    if (!isfinite(*seconds) || *seconds < 0) {
        c->gone = true;
        return false;
    }
    return audited(c, audit_after(c, call->kind));
}

static double now(void) { return monotonic_seconds(); }

/* The child's serving stack: shared, so that the parent can empty its dead
 * part (audit.h), above a guard.  None in AddressSanitizer builds, whose stack
 * bookkeeping a switch of stacks would confuse. */
static void map_stack(remote_t *c)
{
#ifndef __SANITIZE_ADDRESS__
    size_t len = STACK_GUARD_BYTES + CHILD_STACK_BYTES;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return;
    if (mprotect(m, STACK_GUARD_BYTES, PROT_NONE)) {
        munmap(m, len);
        return;
    }
    c->stack_map = m;
    c->stack_map_len = len;
#else
    (void)c;
#endif
}

/* Fork a child serving calls; false (with *v) when the system would not. */
static bool spawn(remote_t *c, const timed_arrays_t *ta, bool with_heap, double deadline, output_sink_t *sink,
                  verdict_t *v)
{
    memset(c, 0, sizeof *c);
    c->deadline = deadline;
    int op[2];
    if (!channel_open(&c->ch))
        return verdict_fail(v, OUTCOME_CRASHED, -1, "the driver could not set up a child: %s", strerror(errno));
    if (pipe2(op, O_CLOEXEC)) {
        channel_close(&c->ch);
        return verdict_fail(v, OUTCOME_CRASHED, -1, "the driver could not set up a child: %s", strerror(errno));
    }
    memset((void *)progress, 0, sizeof *progress);
    progress->op = -1;
    if (with_heap) {
        heap_share();
        progress->heap_lo = heap_shared_lo();
        progress->heap_max = heap_max();
    }
    map_stack(c);
    fflush(NULL);
    cpus_pin_parent(&c->cpus);
    pid_t parent = getpid();
    c->pid = fork();
    if (c->pid < 0) {
        perror("mdriver: fork");
        exit(3);
    }
    if (c->pid == 0) {
        lifeline_tie(parent);
        close(op[0]);
        channel_take_side(&c->ch, true);
        /* libc's child runs no allocator code */
        serve_calls(&c->ch, op[1], ta, with_heap, c->stack_map ? (void *)stack_lo(c) : NULL, CHILD_STACK_BYTES);
    }
    setpgid(c->pid, c->pid);
    close(op[1]);
    channel_take_side(&c->ch, false);
    cpus_place_child(&c->cpus, c->pid, &c->ch, with_heap);
    if (with_heap)
        heap_share_view();
    if (clock_getcpuclockid(c->pid, &c->cpu_clock))
        c->cpu_clock = -1;
    sink->fd = op[0];
    c->pump = (output_pump_t){.output_fd = op[0], .drain = drain_output, .ctx = sink};
    return true;
}

/* Reaps the child if it exits by the deadline, looking every millisecond: false at the
 * deadline or an interrupt.  Its output and doorbells at end of file do not mean it has
 * exited: an allocator can close them and spin, and a wait with no limit hung the driver. */
static bool exits_by(remote_t *c, double deadline)
{
    for (;;) {
        pid_t got = wait4(c->pid, &c->status, WNOHANG, &c->ru);
        if (got == c->pid || (got < 0 && errno != EINTR))
            return true;
        if (now() >= deadline || (interrupt_poll(NULL, 0, 1) < 0 && interrupt_signal()))
            return false;
    }
}

/* Let the child go (or kill it at the deadline), keep its last output, reap it;
 * false with *v saying how it died when it had not been asked to stop. */
static bool reap(remote_t *c, const trace_t *t, double limit, verdict_t *v)
{
    bool asked = false;
    if (!c->gone) {
        call_t quit = {.kind = CALL_QUIT, .op = -1};
        channel_call(&c->ch, &quit);
        asked = true;
    }
    if (c->stop_signal)
        kill(-c->pid, SIGKILL);  /* stopped, it would hold its output open until the deadline */
    /* Its output until end of file, within the deadline (asked to quit, it ends at once). */
    while (c->pump.output_fd >= 0 && !c->timed_out && !c->interrupted) {
        double left = c->deadline - now();
        if (left <= 0) {
            c->timed_out = true;
            break;
        }
        struct pollfd pfd = {.fd = c->pump.output_fd, .events = POLLIN};
        int n = interrupt_poll(&pfd, 1, (int)(left * 1000) + 1);
        if (n < 0 && errno == EINTR && interrupt_signal())
            c->interrupted = true;  /* a child that closed its doorbells may hold its output open until -T */
        else if (n < 0 && errno != EINTR)
            break;
        if (n > 0 && !drain_output(c->pump.ctx))
            c->pump.output_fd = -1;
    }
    bool stop = c->timed_out || c->interrupted, reaped = !stop && exits_by(c, c->deadline);
    if (!stop && !reaped) {  /* its ends closed, but alive: at the deadline, or an interrupt */
        c->interrupted = interrupt_signal() != 0;
        c->timed_out = !c->interrupted;
        stop = true;
    }
    if (stop)
        kill(-c->pid, SIGKILL);
    while (!reaped && wait4(c->pid, &c->status, 0, &c->ru) < 0 && errno == EINTR)
        ;
    if (stop)
        kill(-c->pid, SIGKILL);  /* anything it left behind in its group */
    /* A child in the terminal's group until its setpgid gets Ctrl-C too: its death
     * then is the interrupt's, not its allocator's.  One dying of another signal
     * (a fault) is still judged. */
    if (WIFSIGNALED(c->status) && interrupt_is_one(WTERMSIG(c->status)) && interrupt_signal())
        c->interrupted = true;
    close(((output_sink_t *)c->pump.ctx)->fd);
    channel_close(&c->ch);
    cpus_unpin_parent(&c->cpus);
    audit_close(c->audit);
    if (c->stack_map)
        munmap(c->stack_map, c->stack_map_len);
    bool clean = asked && !c->timed_out && WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0;
    if (c->interrupted)
        verdict_fail(v, OUTCOME_CRASHED, -1, "not completed: the driver was interrupted");
    else if (c->tampered)
        verdict_fail(v, OUTCOME_TAMPERED, c->tampered_op, "%s", c->tampered_msg);
    else if (!clean)
        death_describe(t, &(death_t){.status = c->status, .timed_out = c->timed_out, .stop_signal = c->stop_signal,
                                     .stack_lo = c->stack_map ? stack_lo(c) : 0, .guard_bytes = STACK_GUARD_BYTES},
                       limit, v);
    return clean && !c->tampered;
}

/* Before mm_init: the child's idle frame, and a copy of its memory for the
 * audits (audit.h).  False with *v when the child failed.  Where the system
 * will not let the parent read its child's memory (no /proc; ptrace denied by a
 * hardened kernel) the run goes on unaudited, and says so once. */
static bool start_audit(remote_t *c, const trace_t *t, verdict_t *v)
{
    call_t ready = {.kind = CALL_READY, .op = -1};
    answer_t a;
    if (!remote_call(c, &ready, &a))
        return verdict_fail(v, OUTCOME_CRASHED, -1, "the trace's process ended before its first call");
    c->idle_frame = (uintptr_t)a.result;
    if (!c->stack_map)
        return true;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const progress_t *p = progress;
    audit_child_t child = {
        .pid = c->pid,
        /* the progress page's unused tail, and the fault fields a living child leaves alone */
        .zero = {(const char *)p + sizeof *p, (const void *)&p->fault_addr, (const void *)&p->fault_signal},
        .zero_len = {(sizeof *p + page - 1) / page * page - sizeof *p, sizeof p->fault_addr,
                     sizeof p->fault_signal + sizeof p->fault_syscall + sizeof p->fault_code},
    };
    channel_gaps(&c->ch, child.zero + 3, child.zero_len + 3);  /* and the channel page's gaps */
    serve_mutable_spans(child.serving, child.serving_len);
    size_t peaks[AUDIT_PEAKS];
    size_t n_peaks = payload_peaks(t, AUDIT_PEAKS, peaks);
    char err[200];
    c->audit = audit_open(&child, t->num_ops, peaks, n_peaks, err, sizeof err);
    static bool warned;
    if (!c->audit && err[0] && !warned) {
        fprintf(stderr, "mdriver: warning: %s: memory an allocator keeps outside the heap goes unaudited in this run\n",
                err);
        warned = true;
    }
    return true;
}

/* The allocator's child: the checked runs, utilization, stats, its timing (at
 * least as many samples as libc took, libc_samples). */
static void run_allocator(const trace_t *t, const child_plan_t *plan, int libc_samples, double deadline,
                          child_result_t *r)
{
    child_report_t *rep = &r->report;
    verdict_t v = {.outcome = OUTCOME_OK, .op_index = -1};
    timed_arrays_t ta;
    placements_t pl = {.offset = placements_array(t->num_ops)};
    if (!pl.offset || !timed_arrays_open(&ta, t)) {
        placements_array_free(pl.offset, t->num_ops);
        verdict_fail(&rep->verdict, OUTCOME_CRASHED, -1, "the driver ran out of memory for %zu ops", t->num_ops);
        return;
    }
    remote_t c;
    output_sink_t sink = {.r = r};
    if (!spawn(&c, &ta, true, deadline, &sink, &rep->verdict)) {
        timed_arrays_close(&ta);
        placements_array_free(pl.offset, t->num_ops);
        return;
    }
    size_t high_water = 0;
    bool ok = start_audit(&c, t, &v) && check_pass(&c, t, plan->check_heap, &pl, &high_water, &v) && audited(&c, true);
    if (ok && !timed_arrays_untouched(&ta))
        ok = verdict_fail(&v, OUTCOME_TAMPERED, -1, "the first checked run touched the pages where the driver "
                          "will give the timed runs their ops: allocator metadata belongs in the heap");
    ok = ok && heap_guards_untouched(&v);
    if (ok) {
        /* Pages past the break are inaccessible in a checked run: none above the
         * mark's page can have been touched, unless memlib's state was changed. */
        size_t touched = heap_touched(), page = mem_pagesize();
        if ((high_water + page - 1) / page * page < touched)
            ok = verdict_fail(&v, OUTCOME_TAMPERED, -1, "the heap's break was reported at most %zu bytes above the "
                              "heap's start, but the first checked run touched heap pages up to %zu bytes above it "
                              "(was memlib's state changed?)", high_water, touched);
    }
    ok = ok && recheck_trace(&c, t, &pl, &ta, &v);
    if (ok && plan->util) {
        util_compute(t, high_water, &rep->util);
        rep->has_util = util_defined(&rep->util);
    }
    answer_t a;
    call_t stats = {.kind = CALL_STATS, .op = -1};
    if (ok && has_stats()) {
        progress_at(PASS_STATS, -1);  /* a death in it is the hook's, not the timing pass's */
        ok = remote_call(&c, &stats, &a);
        if (ok && a.has_stats) {
            rep->stats = a.stats;
            rep->has_stats = true;
        }
    }
    if (ok && plan->time_mm) {
        sampling_t want = {plan->min_samples > libc_samples ? plan->min_samples : libc_samples, MDRIVER_MAX_SAMPLES};
        ok = time_trace(&c, t, true, want, &pl, high_water, &ta, &rep->mm_time, &v);
    }
    verdict_t death;
    reap(&c, t, plan->time_limit, &death);
    r->interrupted = c.interrupted;
    rep->verdict = c.gone || c.interrupted ? death : v;
    /* What the checked runs measured stays (the outcome already scores it 0);
     * a timing cut short is no measurement. */
    if (c.gone)
        memset(&rep->mm_time, 0, sizeof rep->mm_time);
    heap_unshare();
    timed_arrays_close(&ta);
    placements_array_free(pl.offset, t->num_ops);
}

/* libc's child: libc's timing, before and apart from any allocator code.  It
 * stays, idle, while the allocator's child runs, and is timed again after it to
 * as many samples as the allocator took: the K-best estimate falls with the
 * number of samples, and each side stopping when its own fastest agreed gave
 * the two different counts, which favoured one or the other by a few percent
 * (README, "What happens to each trace"). */
typedef struct {
    remote_t c;
    timed_arrays_t ta;
    output_sink_t sink;
    bool open;  /* the child lives: between libc_start and libc_end */
} libc_side_t;

/* Let libc's child go.  Its death is the trace's verdict (in *v) in the first
 * pass; in a top-up only an interrupt counts. */
static void libc_end(libc_side_t *L, const trace_t *t, const child_plan_t *plan, child_result_t *r, verdict_t *v)
{
    verdict_t death;
    if (!reap(&L->c, t, plan->time_limit, &death) && (L->c.gone || L->c.interrupted) && v)
        *v = death;
    r->interrupted |= L->c.interrupted;
    timed_arrays_close(&L->ta);
    L->open = false;
}

/* A child left idle while the allocator's runs: the allocator's child, forked
 * later, must get none of its shared memory.  libc's child runs unsandboxed,
 * and an allocator that could write its serving stack could take it over. */
static void share_no_further(remote_t *c, timed_arrays_t *ta)
{
    timed_arrays_share_no_further(ta);
    channel_share_no_further(&c->ch);
    if (c->stack_map)
        madvise(c->stack_map, c->stack_map_len, MADV_DONTFORK);
}

/* libc's first pass: sampled until its K fastest agree, the child kept for a top-up. */
static void libc_start(libc_side_t *L, const trace_t *t, const child_plan_t *plan, double deadline,
                       child_result_t *r)
{
    child_report_t *rep = &r->report;
    L->open = false;
    if (!timed_arrays_open(&L->ta, t)) {
        verdict_fail(&rep->verdict, OUTCOME_CRASHED, -1, "the driver ran out of memory for %zu ops", t->num_ops);
        return;
    }
    L->sink = (output_sink_t){.r = r};
    verdict_t v = {.outcome = OUTCOME_OK, .op_index = -1};
    if (!spawn(&L->c, &L->ta, false, deadline, &L->sink, &v)) {
        timed_arrays_close(&L->ta);
        rep->verdict = v;
        return;
    }
    L->open = true;
    sampling_t want = {plan->min_samples, MDRIVER_MAX_SAMPLES};
    bool ok = time_trace(&L->c, t, false, want, NULL, 0, &L->ta, &rep->libc_time, &v);
    if (!ok || v.outcome != OUTCOME_OK || L->c.gone)
        libc_end(L, t, plan, r, &v);
    else {
        share_no_further(&L->c, &L->ta);
        cpus_unpin_parent(&L->c.cpus);  /* the allocator's child is placed afresh */
    }
    if (!ok || v.outcome != OUTCOME_OK)
        memset(&rep->libc_time, 0, sizeof rep->libc_time);
    rep->verdict = v;
}

/* libc timed again, on its CPU, to the allocator's number of samples.  Cut
 * short (the trace's time limit, a failure), libc keeps the samples it had. */
static void libc_top_up(libc_side_t *L, const trace_t *t, const child_plan_t *plan, child_result_t *r)
{
    child_report_t *rep = &r->report;
    int want = rep->mm_time.n;
    if (want <= rep->libc_time.n || r->interrupted)
        return;
    timing_t before = rep->libc_time;
    verdict_t v = {.outcome = OUTCOME_OK, .op_index = -1};
    cpus_repin_parent(&L->c.cpus);
    if (!time_trace(&L->c, t, false, (sampling_t){want, want}, NULL, 0, &L->ta, &rep->libc_time, &v) ||
        v.outcome != OUTCOME_OK) {
        rep->libc_time = before;
        libc_end(L, t, plan, r, NULL);
    }
}

void child_run(const trace_t *t, const child_plan_t *plan, child_result_t *r)
{
    memset(r, 0, sizeof *r);
    r->output = calloc(MDRIVER_OUTPUT_KEEP + 1, 1);
    if (!r->output) {
        perror("mdriver: calloc");
        exit(3);
    }
    if (!progress) {
        progress = mmap(NULL, sizeof *progress, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (progress == MAP_FAILED) {
            perror("mdriver: mmap");
            exit(3);
        }
    }
    double deadline = now() + plan->time_limit;
    r->report.verdict = (verdict_t){.outcome = OUTCOME_OK, .op_index = -1};
    libc_side_t libc = {.open = false};
    if (plan->time_libc)
        libc_start(&libc, t, plan, deadline, r);
    if (plan->run_allocator && r->report.verdict.outcome == OUTCOME_OK && !r->interrupted)
        run_allocator(t, plan, r->report.libc_time.n, deadline, r);
    if (libc.open)
        libc_top_up(&libc, t, plan, r);
    if (libc.open)
        libc_end(&libc, t, plan, r, NULL);
}

void child_result_free(child_result_t *r)
{
    free(r->output);
    r->output = NULL;
}
