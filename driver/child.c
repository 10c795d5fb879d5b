/*
 * child.c - one trace, one child process (see child.h).
 *
 *   parent                                     child
 *   fork ------------------------------------> own process group, fds 0-2 to /dev/null
 *                                              and the output pipe, every other fd closed
 *   poll(report pipe, output pipe, deadline)   passes: check, recheck, util, timing
 *   SIGKILL the group at the deadline          write(report) then _exit(0)
 *   waitpid: no report => crashed/exited/timeout, from the shared progress page
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
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/heap.h"
#include "driver/hooks.h"
#include "driver/progress.h"
#include "memlib.h"

enum { REPORT_FD = 3, HIGH_FD = 64 };

progress_t *progress;

const char *pass_name(pass_t pass)
{
    static const char *names[PASS_COUNT] = {"start-up", "mm_init", "correctness", "second correctness",
                                            "utilization", "timing", "libc timing"};
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

static void isolate_fds(int report_fd, int output_fd)
{
    setpgid(0, 0);
    int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    dup2(output_fd, 1);
    dup2(output_fd, 2);
    dup2(report_fd, REPORT_FD);
    close_range(REPORT_FD + 1, ~0u, 0);
    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stderr, NULL, _IONBF, 0);
}

static void run_passes(const trace_t *t, const child_plan_t *plan, child_report_t *rep)
{
    verdict_t *v = &rep->verdict;
    v->outcome = OUTCOME_OK;
    v->op_index = -1;
    bool ok = true;
    if (plan->run_allocator) {
        progress_at(PASS_INIT, -1);
        mem_init();
        progress->heap_lo = heap_lo();
        progress->heap_max = heap_max();
        ok = check_pass(t, PASS_CHECK, plan->check_heap, v) && check_pass(t, PASS_RECHECK, plan->check_heap, v);
        if (ok && plan->util)
            ok = rep->has_util = util_pass(t, &rep->util, v);
        if (ok && has_stats()) {
            mm_stats(&rep->stats);
            rep->has_stats = true;
        }
    }
    bool time_mm = ok && plan->run_allocator && plan->time_mm;
    if (time_mm || plan->time_libc)
        time_trace(t, time_mm, plan->time_libc, plan->min_samples, &rep->mm_time, &rep->libc_time,
                   ok ? v : &(verdict_t){0});
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

static void child_main(const trace_t *t, const child_plan_t *plan, int report_fd, int output_fd)
{
    isolate_fds(report_fd, output_fd);
    catch_faults();
    static child_report_t rep;
    run_passes(t, plan, &rep);
    fflush(stdout);
    write_all(REPORT_FD, &rep, sizeof rep);
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
            else if (addr >= lo && addr < lo + progress->heap_max + 4096)
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", in the heap's unallocated space past the break", addr);
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
    int rp[2], op[2];
    if (pipe(rp) || pipe(op)) {
        perror("mdriver: pipe");
        exit(3);
    }
    rp[0] = high_fd(rp[0]), rp[1] = high_fd(rp[1]), op[0] = high_fd(op[0]), op[1] = high_fd(op[1]);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("mdriver: fork");
        exit(3);
    }
    if (pid == 0)
        child_main(t, plan, rp[1], op[1]);
    setpgid(pid, pid);
    close(rp[1]);
    close(op[1]);

    size_t got = 0, unused_total = 0;
    double deadline = now() + plan->time_limit;
    bool timed_out = false;
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
        if (fds[0].fd >= 0 && fds[0].revents) {
            if (!drain(rp[0], (char *)&r->report, sizeof r->report, &got, &unused_total))
                fds[0].fd = -1;
        }
        if (fds[1].fd >= 0 && fds[1].revents &&
            !drain(op[0], r->output, MDRIVER_OUTPUT_KEEP, &r->output_len, &r->output_total))
            fds[1].fd = -1;
    }
    if (timed_out)
        kill(-pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (timed_out)
        kill(-pid, SIGKILL);  /* anything it left behind in its group */
    close(rp[0]);
    close(op[0]);
    bool finished = got == sizeof r->report && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!finished) {
        memset(&r->report, 0, sizeof r->report);
        describe_death(t, status, timed_out, plan->time_limit, &r->report.verdict);
    }
}

void child_result_free(child_result_t *r)
{
    free(r->output);
    r->output = NULL;
}
