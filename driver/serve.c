/* serve.c - the trace's child, answering the parent's calls (see serve.h). */
#define _GNU_SOURCE
#include "driver/serve.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "driver/child.h"
#include "driver/heap.h"
#include "driver/interrupt.h"
#include "driver/hooks.h"
#include "driver/progress.h"
#include "driver/sandbox.h"
#include "driver/scrub.h"
#include "memlib.h"

/* The child's fds: 0-2, the output on 1 and 2, then the channel's doorbells. */
enum { CHILD_BELL_IN = 3, CHILD_BELL_OUT = 4 };

/* Everything the serving child changes outside the heap and the allocator's own
 * data, in one place the audit skips (audit.h). */
static struct {
    channel_t ch;
    const timed_arrays_t *ta;
    bool allocator;     /* serves an allocator (not libc): sandboxed */
    bool heap_mapped;
} serving;

static void on_fault(int sig, siginfo_t *info, void *context)
{
    (void)context;
    /* Sent (raise, kill), not a fault: there is no instruction to re-run, and returning
     * would let the allocator go on.  Sent again, it meets the default action. */
    if (info->si_code <= 0) {
        raise(sig);
        return;
    }
    progress->fault_signal = sig;
    progress->fault_addr = (uintptr_t)info->si_addr;
    progress->fault_code = info->si_code;
    /* SA_RESETHAND restored the default action: returning re-runs the faulting
     * instruction, which now ends the process with this signal.  A refused
     * system call is not re-run (it returned ENOSYS): raise it again. */
    if (sig == SIGSYS) {
        progress->fault_syscall = info->si_syscall;
        raise(SIGSYS);
    }
}

static void catch_faults(void)
{
    static char alt_stack[1 << 16];
    stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack};
    sigaltstack(&ss, NULL);
    struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS};
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++)
        sigaction(faults[i], &sa, NULL);
}

/* stdin from /dev/null, stdout and stderr to the output pipe, the doorbells at
 * fixed numbers, every other fd closed. */
static void isolate_fds(channel_t *ch, int output_fd)
{
    setpgid(0, 0);
    int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    dup2(output_fd, 1);
    dup2(output_fd, 2);
    /* Moved out of the way first: either may sit at 3 or 4 already. */
    int in = fcntl(ch->bell_in, F_DUPFD, 64), out = fcntl(ch->bell_out, F_DUPFD, 64);
    dup2(in, CHILD_BELL_IN);
    dup2(out, CHILD_BELL_OUT);
    ch->bell_in = CHILD_BELL_IN;
    ch->bell_out = CHILD_BELL_OUT;
    close_range(CHILD_BELL_OUT + 1, ~0u, 0);
    /* Unbuffered: glibc would malloc a buffer at the first printf (a call the
     * sandbox may refuse), and a buffer of the driver's would be memory outside
     * the heap that the allocator's printing changes (audit.h).  Each printf is
     * one write. */
    setvbuf(stdout, NULL, _IONBF, 0);
    setvbuf(stderr, NULL, _IONBF, 0);
}

/* From here on, only the system calls the driver needs (sandbox.h): mprotect
 * only where memlib makes it.  False when the child runs unsandboxed. */
static bool enter_sandbox(void)
{
    uintptr_t lo[3];
    size_t len[3], n = heap_mprotect_ranges(lo, len);
    sandbox_range_t ranges[3];
    for (size_t i = 0; i < n; i++)
        ranges[i] = (sandbox_range_t){lo[i], len[i]};
    /* False in AddressSanitizer and DRIVER_SECCOMP=off builds, or without seccomp: the child
     * then runs unsandboxed (--describe says which). */
    return sandbox_enter(ranges, n);
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

/* One call: what the allocator (or libc) answered, and the heap after it.  The
 * answer is written over zeros once the allocator's code has returned: bytes a
 * call wrote into the serving loop's frame (where the answer lies) would else
 * reach the shared page in the fields this call leaves unset, and the next call
 * could read them back there (red team). */
static void perform(const call_t *call, const timed_arrays_t *ta, answer_t *a)
{
    uintptr_t result = 0;
    bool stats_given = false, checker_ok = false;
    mm_stats_t stats;
    switch ((call_kind_t)call->kind) {
    case CALL_READY: result = serving.ch.idle_frame; break;
    case CALL_INIT:
        if (!serving.heap_mapped)
            mem_init();
        serving.heap_mapped = true;
        heap_restart(true);
        result = (uintptr_t)(intptr_t)run_init();
        break;
    case CALL_MALLOC: result = (uintptr_t)mm_malloc(call->size); break;
    case CALL_FREE: mm_free((void *)call->ptr); break;
    case CALL_REALLOC: result = (uintptr_t)mm_realloc((void *)call->ptr, call->size); break;
    case CALL_STATS:
        if ((stats_given = has_stats()))
            mm_stats(&stats);
        break;
    case CALL_CHECKHEAP: checker_ok = has_checkheap() && run_checkheap((int)call->op); break;
    case CALL_CHECKED_REPLAY:
        heap_restart(true);
        result = (uintptr_t)(intptr_t)checked_run_mm(ta);
        break;
    case CALL_PREPARE_TIMED: timed_prepare(call); break;
    case CALL_TIMED_RUN: result = (uintptr_t)(intptr_t)timed_run_mm(ta); break;
    case CALL_LIBC_RUN: timed_run_libc(ta); break;
    case CALL_LIBC_RELEASE: libc_release(ta); break;
    case CALL_QUIT:
        fflush(stdout);
        _exit(0);
    }
    memset(a, 0, sizeof *a);
    a->result = result;
    a->checker_ok = checker_ok;
    a->has_stats = stats_given;
    if (stats_given)
        a->stats = stats;
    if (serving.heap_mapped) {
        a->brk = mem_heapsize();
        a->high_water = heap_high_water();
        a->violation = heap_sbrk_violation();
    }
}

/* Calls around which the parent reads this process's CPU clock (the untimed
 * ones just before a sample, so that their time is accounted before it). */
static inline bool timed_kind(uint32_t kind)
{
    return kind == CALL_PREPARE_TIMED || kind == CALL_TIMED_RUN || kind == CALL_LIBC_RUN || kind == CALL_LIBC_RELEASE;
}

/* Bring this process's CPU time up to date for the parent.  Linux updates a
 * running task's total only at ticks and scheduler events, and another process
 * reading it gets that total; reading it here updates it.  The value is not
 * used: the parent's reading is the one believed. */
static inline void account_cpu_time(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
}

/* What a call leaves outside the heap that the audit would not see (red team):
 * the dead frames just below the serving loop, which the parent's wipe spares
 * (they lie within its margin below the idle frames), and the processor and
 * process state scrub.h lists. */
enum { NEAR_FRAMES_BYTES = 2048 };

static __attribute__((noinline)) void forget_call(void)
{
    char near[NEAR_FRAMES_BYTES];
    memset(near, 0, sizeof near);
    __asm__ volatile("" : : "r"(near) : "memory");
    scrub_after_call();
}

static _Noreturn void serve(void)
{
    bool timed = true;
    for (;;) {
        call_t call;
        /* Around timed calls the child sleeps: a turn it took would count in the
         * next sample. */
        channel_next(&serving.ch, &call, !timed);
        answer_t a;
        perform(&call, serving.ta, &a);
        forget_call();
        scrub_general_registers();
        timed = timed_kind(call.kind);
        if (timed)
            account_cpu_time();
        channel_answer(&serving.ch, &a);
    }
}

static _Noreturn void sandboxed_serve(void)
{
    if (serving.allocator && enter_sandbox())
        scrub_mask_kept();
    serve();
}

/* Serve on the stack the parent mapped shared (it empties the dead part below
 * the idle frames, audit.h); without one (AddressSanitizer builds), here.
 * setcontext's system calls come before the sandbox. */
static _Noreturn void serve_on(void *stack_lo, size_t stack_len)
{
    static ucontext_t on_stack;
    if (stack_lo && getcontext(&on_stack) == 0) {
        on_stack.uc_stack = (stack_t){.ss_sp = stack_lo, .ss_size = stack_len};
        on_stack.uc_link = NULL;
        makecontext(&on_stack, sandboxed_serve, 0);
        setcontext(&on_stack);
    }
    sandboxed_serve();
}

_Noreturn void serve_calls(const channel_t *ch, int output_fd, const timed_arrays_t *ta, bool allocator, void *stack_lo,
                           size_t stack_len)
{
    serving.ch = *ch;
    serving.ta = ta;
    serving.allocator = allocator;
    isolate_fds(&serving.ch, output_fd);
    interrupt_reset();  /* the parent's handlers would let the allocator's own raise(SIGINT) pass */
    catch_faults();
    limit_stack();
    scrub_record();
    if (!allocator)
        timed_libc_keep_memory();
    serve_on(stack_lo, stack_len);
}

size_t serve_mutable_spans(const void *lo[], size_t len[])
{
    lo[0] = &serving.ch.taken, len[0] = sizeof serving.ch.taken;
    lo[1] = &serving.ch.idle_frame, len[1] = sizeof serving.ch.idle_frame;
    lo[2] = &serving.heap_mapped, len[2] = sizeof serving.heap_mapped;
    return 3;
}
