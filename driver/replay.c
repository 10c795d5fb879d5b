/*
 * replay.c - one trace replayed in-process, in a child of its own (see replay.h).
 *
 * The child writes what it found into a page it shares with the parent: the op
 * it is at (so that a death can name it), and at the end its verdict and the
 * highest break.  The parent waits for the child's end of a pipe to close, up
 * to the time limit, then reaps it and turns a death into an outcome.
 */
#define _GNU_SOURCE
#include "driver/replay.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/clock.h"
#include "driver/heap.h"
#include "driver/hooks.h"
#include "driver/ledger.h"
#include "driver/lifeline.h"
#include "driver/pages.h"
#include "memlib.h"
#include "mm.h"

/* What the child tells the parent, in shared pages. */
typedef struct {
    volatile int64_t at;  /* the op being run; -1 before the first */
    size_t high_water;    /* the highest break after a call, bytes above the heap's low end */
    verdict_t verdict;
    bool done;            /* the child got to the end and wrote the above */
} shared_t;

/* ------------------------------------------------------------ in the child */

typedef struct {
    const trace_t *t;
    shared_t *sh;
    ledger_t live;
    uintptr_t lo;
    size_t brk;  /* the break after the last call, bytes above lo */
} replayer_t;

/* After every call (at op `at`; -1: mm_init): the break, its highest so far, and
 * (as mdriver's checker does) no live block left past a break that fell.  False
 * with the verdict written when one is. */
static bool after_call(replayer_t *r, int64_t at, heap_span_t *h)
{
    size_t before = r->brk;
    r->brk = mem_heapsize();
    if (r->brk > r->sh->high_water)
        r->sh->high_water = r->brk;
    *h = (heap_span_t){.lo = r->lo, .brk = r->brk, .max = heap_max()};
    return r->brk >= before || ledger_check_break(&r->live, *h, r->t, at, &r->sh->verdict);
}

/* Op i's new block p, checked and entered into the ledger. */
static bool take_block(replayer_t *r, size_t i, const op_t *op, void *p, int64_t born)
{
    heap_span_t h;
    if (!after_call(r, (int64_t)i, &h) ||
        !ledger_check_block(&r->live, h, r->t, (int64_t)i, (uintptr_t)p, op->size, &r->sh->verdict))
        return false;
    ledger_add(&r->live, op->id, (uintptr_t)p, op->size, 0, born);
    return true;
}

/* The calls mdriver's checker makes for op i (check.c), in the same order, so
 * that the allocator builds the same heap. */
static bool run_op(replayer_t *r, size_t i)
{
    const op_t *op = &r->t->ops[i];
    ledger_entry_t old = r->live.entry[op->id];
    heap_span_t h;
    switch (op->kind) {
    case OP_ALLOC:
        return take_block(r, i, op, mm_malloc(op->size), (int64_t)i);
    case OP_REALLOC_NULL:
        return take_block(r, i, op, mm_realloc(NULL, op->size), (int64_t)i);
    case OP_FREE:
        ledger_drop(&r->live, op->id);
        mm_free((void *)old.p);
        return after_call(r, (int64_t)i, &h);
    default:
        ledger_drop(&r->live, op->id);
        void *p = mm_realloc((void *)old.p, op->size);
        if (op->size)
            return take_block(r, i, op, p, old.born);
        /* realloc(p, 0) frees; a block returned anyway is checked as malloc(0)'s and given back */
        if (!after_call(r, (int64_t)i, &h))
            return false;
        if (p && !ledger_check_block(&r->live, h, r->t, (int64_t)i, (uintptr_t)p, 0, &r->sh->verdict))
            return false;
        if (p) {
            mm_free(p);
            return after_call(r, (int64_t)i, &h);
        }
        return true;
    }
}

static void replay_child(const trace_t *t, shared_t *sh)
{
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  /* a crash is reported, not dumped */
    dup2(STDERR_FILENO, STDOUT_FILENO);  /* the allocator's output stays out of the table and the JSON */
    /* Unbuffered, as mdriver's child (serve.c): a buffer for a file or pipe would take what was
     * printed just before a crash or an exit down with the child. */
    setvbuf(stdout, NULL, _IONBF, 0);
    replayer_t r = {.t = t, .sh = sh};
    sh->verdict = (verdict_t){.outcome = OUTCOME_OK, .op_index = -1};
    if (!ledger_open(&r.live, t->num_ids)) {
        verdict_fail(&sh->verdict, OUTCOME_CRASHED, -1, "mmreplay ran out of memory for %u ids", t->num_ids);
        sh->done = true;
        return;
    }
    mem_init();
    r.lo = (uintptr_t)mem_heap_lo();
    int status = run_init();
    heap_span_t h;
    after_call(&r, -1, &h);  /* nothing is live yet */
    char said[80];
    if (status != 0)
        verdict_fail(&sh->verdict, OUTCOME_INIT_FAILED, -1, "mm_init returned %s before the first op",
                     init_failure(status, said, sizeof said));
    for (size_t i = 0; status == 0 && i < t->num_ops; i++) {
        sh->at = (int64_t)i;
        if (!run_op(&r, i))
            break;
    }
    sh->at = -1;
    sh->done = true;
}

/* ------------------------------------------------------------ in the parent */

static double now(void) { return monotonic_seconds(); }

/* Until the child's end of the pipe closes (it ended) or the deadline: false at the deadline. */
static bool wait_for_end(int fd, double deadline)
{
    for (;;) {
        double left = deadline - now();
        if (left <= 0)
            return false;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int n = poll(&p, 1, left > 3600 ? 3600 * 1000 : (int)(left * 1000) + 1);
        if (n < 0 && errno != EINTR)
            return true;  /* cannot wait: let waitpid do it */
        if (n > 0)
            return true;  /* end of file: nothing else is ever written */
    }
}

/* Reaps the child if it exits by the deadline, looking every millisecond.  Its pipe at end of
 * file does not mean it has exited: an allocator can close it and spin, and a wait with no
 * limit hung mmreplay. */
static bool exits_by(pid_t pid, double deadline, int *status)
{
    for (;;) {
        pid_t got = waitpid(pid, status, WNOHANG);
        if (got == pid || (got < 0 && errno != EINTR))
            return true;
        if (now() >= deadline)
            return false;
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
}

/* A death, or a child that stopped before the end, as mdriver names it. */
static void describe_end(const trace_t *t, const shared_t *sh, int status, bool timed_out, double limit,
                         verdict_t *v)
{
    int64_t at = sh->at;
    char where[160] = "before the first op", op[48];
    if (at >= 0 && (size_t)at < t->num_ops) {
        op_describe(&t->ops[at], op, sizeof op);
        snprintf(where, sizeof where, "at op %" PRId64 " (%s)", at, op);
    }
    if (timed_out) {
        verdict_fail(v, OUTCOME_TIMEOUT, at, "did not finish within %.0f s; it was %s", limit, where);
    } else if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *abbrev = sigabbrev_np(sig), *descr = sigdescr_np(sig);
        verdict_fail(v, OUTCOME_CRASHED, at, "crashed with SIG%s (%s) %s%s", abbrev ? abbrev : "?",
                     descr ? descr : "unknown signal", where,
                     sig == SIGABRT ? " (did the allocator call abort or fail an assert?)" : "");
    } else if (WIFEXITED(status) && !sh->done) {
        verdict_fail(v, OUTCOME_EXITED, at, "the process exited with status %d %s (did the allocator call exit?)",
                     WEXITSTATUS(status), where);
    } else {
        *v = sh->verdict;
    }
}

void replay_trace(const trace_t *t, double time_limit, child_report_t *rep)
{
    memset(rep, 0, sizeof *rep);
    /* The trace's pages are not inherited by a child (pages.h): it gets a shared copy. */
    shared_t *sh = pages_alloc_shared(sizeof *sh);
    op_t *ops = pages_alloc_shared((t->num_ops ? t->num_ops : 1) * sizeof *ops);
    int fds[2] = {-1, -1};
    if (!sh || !ops || pipe(fds)) {
        pages_free(sh);
        pages_free(ops);
        verdict_fail(&rep->verdict, OUTCOME_CRASHED, -1, "mmreplay ran out of memory or pipes for %zu ops", t->num_ops);
        return;
    }
    memcpy(ops, t->ops, t->num_ops * sizeof *ops);
    *sh = (shared_t){.at = -1};
    fflush(NULL);
    double deadline = now() + time_limit;
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        lifeline_tie(parent);
        close(fds[0]);
        trace_t copy = *t;
        copy.ops = ops;
        replay_child(&copy, sh);
        _exit(0);
    }
    close(fds[1]);
    int status = 0;
    bool timed_out = pid > 0 && !(wait_for_end(fds[0], deadline) && exits_by(pid, deadline, &status));
    if (timed_out)
        kill(pid, SIGKILL);
    while (pid > 0 && timed_out && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    if (pid < 0)
        verdict_fail(&rep->verdict, OUTCOME_CRASHED, -1, "mmreplay could not fork: %s", strerror(errno));
    else
        describe_end(t, sh, status, timed_out, time_limit, &rep->verdict);
    if (rep->verdict.outcome == OUTCOME_OK && trace_scores_util(t)) {
        util_compute(t, sh->high_water, &rep->util);
        rep->has_util = util_defined(&rep->util);
    }
    pages_free(sh);
    pages_free(ops);
}
