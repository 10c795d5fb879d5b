/* death.c - what the end of a trace's child means (see death.h). */
#define _GNU_SOURCE
#include "driver/death.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "driver/child.h"
#include "driver/heap.h"
#include "driver/pages.h"
#include "driver/progress.h"
#include "driver/sandbox.h"

/* A fault this far below the stack's limit is still taken for a stack overrun (a large local array). */
enum { STACK_OVERRUN_BYTES = 16 << 20 };

/* A fault this near address 0 is a NULL pointer, or a field of one (the kernel maps nothing there). */
static const uintptr_t NULL_PAGE_BYTES = 4096;

/* A sanitizer build (SANITIZE=1) ends the process with status 1 after ASan's or UBSan's
 * report, which the allocator's output holds: an exit the allocator never wrote. */
#if defined(__SANITIZE_ADDRESS__)
enum { SANITIZED = 1 };
#else
enum { SANITIZED = 0 };
#endif
enum { SANITIZER_EXIT = 1 };
static const char SANITIZER_HINT[] = "a sanitizer's report? -v shows what the process printed";

/* A death in the second checked run, after the first went through, is nearly always
 * state that mm_init did not reset. */
static const char RECHECK_HINT[] = " (the first pass went through; this one starts again from mm_init on an "
                                   "empty heap: does mm_init reset all the allocator's state?)";

void death_describe(const trace_t *t, const death_t *d, double limit, verdict_t *v)
{
    char here;  /* without a serving stack: in the stack the parent and the child share up to fork */
    int status = d->status;
    bool timed_out = d->timed_out;
    uintptr_t top = d->stack_lo ? d->stack_lo : (uintptr_t)&here;
    size_t reach = d->stack_lo ? d->guard_bytes : CHILD_STACK_BYTES;
    pass_t pass = (pass_t)progress->pass;
    int64_t at = progress->op;
    char where[160] = "";
    if (at >= 0 && (size_t)at < t->num_ops) {
        char op[48];
        op_describe(&t->ops[at], op, sizeof op);
        if (pass == PASS_CHECKHEAP)
            snprintf(where, sizeof where, "in mm_checkheap after op %" PRId64 " (%s)", at, op);
        else
            snprintf(where, sizeof where, "at op %" PRId64 " (%s) of the %s pass", at, op, pass_name(pass));
    } else if (pass == PASS_INIT) {
        snprintf(where, sizeof where, "in mm_init, before the first op of the correctness pass");
    } else if (pass == PASS_STATS) {
        snprintf(where, sizeof where, "in mm_stats (called after the checked runs, before the timed ones)");
    } else {
        snprintf(where, sizeof where, "in the %s pass", pass_name(pass));
    }
    int64_t op = at >= 0 ? at : -1;
    if (d->stop_signal) {
        const char *abbrev = sigabbrev_np(d->stop_signal);
        verdict_fail(v, OUTCOME_CRASHED, op, "stopped by SIG%s %s: the process was stopped, not slow (did the "
                     "allocator raise it?)", abbrev ? abbrev : "?", where);
    } else if (timed_out) {
        verdict_fail(v, OUTCOME_TIMEOUT, op, "did not finish within %.0f s; it was %s%s", limit, where,
                     pass == PASS_RECHECK ? RECHECK_HINT : "");
    } else if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        char fault[SANDBOX_DESCRIBE_BYTES] = "";
        uintptr_t addr = progress->fault_addr, lo = progress->heap_lo;
        if (progress->fault_signal == SIGSYS && sig == SIGSYS)
            sandbox_describe(progress->fault_syscall, fault, sizeof fault);
        /* "Floating point exception" sent a student whose allocator has no floats looking for them */
        if (progress->fault_signal == SIGFPE && sig == SIGFPE && progress->fault_code == FPE_INTDIV)
            snprintf(fault, sizeof fault, ": an integer division by zero (or %% by zero)");
        if (progress->fault_signal == sig && lo && (sig == SIGSEGV || sig == SIGBUS)) {
            /* A non-canonical address faults as a general protection fault: the kernel reports 0. */
            if (sig == SIGSEGV && progress->fault_code == SI_KERNEL)
                snprintf(fault, sizeof fault, ": it used a garbage pointer, an address no process may hold (the "
                         "CPU does not say which; e.g. a size or link read from a payload or a broken header)");
            else if (addr >= lo - 4096 && addr < lo)
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", %" PRIuPTR " bytes below the heap", addr, lo - addr);
            else if (heap_state_contains(addr))
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", in memlib's own state (the break and its "
                         "high-water mark), which is read-only while the allocator runs", addr);
            else if (addr >= lo && addr < lo + progress->heap_max + 4096)
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", in the heap's unallocated space past the break", addr);
            else if (addr < top && top - addr < reach + STACK_OVERRUN_BYTES)
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", past the end of the stack, which is limited to "
                         "%zu KiB in the trace's process (a large local array, or deep recursion?)", addr,
                         (size_t)CHILD_STACK_BYTES >> 10);
            else if (pages_contains(t->ops, addr))
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", where the parent keeps the trace's ops: "
                         "the trace's process has no copy of them", addr);
            else
                snprintf(fault, sizeof fault, ": it touched %#" PRIxPTR ", which is not in the heap%s", addr,
                         addr < NULL_PAGE_BYTES ? " (a NULL pointer dereferenced?)" : "");
        }
        const char *abbrev = sigabbrev_np(sig), *descr = sigdescr_np(sig);
        bool own_state = progress->fault_signal == sig && heap_state_contains(addr);
        verdict_fail(v, OUTCOME_CRASHED, op, "crashed with SIG%s (%s) %s%s%s", abbrev ? abbrev : "?",
                     descr ? descr : "unknown signal", where, fault,
                     sig == SIGABRT ? " (did the allocator call abort or fail an assert?)"
                     : pass == PASS_RECHECK && sig != SIGSYS && !own_state ? RECHECK_HINT : "");
    } else if (WIFEXITED(status)) {
        verdict_fail(v, OUTCOME_EXITED, op, "the process exited with status %d %s (%s)", WEXITSTATUS(status), where,
                     SANITIZED && WEXITSTATUS(status) == SANITIZER_EXIT ? SANITIZER_HINT
                     : pass == PASS_CHECKHEAP ? "does mm_checkheap exit when it finds the heap broken?"
                                              : "did the allocator call exit?");
    } else {
        verdict_fail(v, OUTCOME_CRASHED, op, "ended without a report %s", where);
    }
}
