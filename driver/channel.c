/*
 * channel.c - the parent's calls and the child's answers (see channel.h).
 *
 * Each side counts what it has posted (calls, answers).  A waiter marks itself
 * asleep, looks at the other side's count and, when it has not moved, blocks on
 * its doorbell.  The poster bumps its count, then rings if the waiter is marked
 * asleep.  Both pairs of accesses are sequentially consistent, so either the
 * waiter sees the new count or the poster sees the mark: no lost wake-up.
 * A ring the waiter did not need leaves a byte in the pipe; the next sleep
 * consumes it, finds nothing new and sleeps again.
 */
#define _GNU_SOURCE
#include "driver/channel.h"
#include "driver/clock.h"
#include "driver/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Yields between two looks at the clock, the output and the doorbell: a look is a
 * poll and a clock read, and a checked call takes a few microseconds. */
enum { YIELDS_BETWEEN_LOOKS = 64 };
/* Turns the child gives the parent before it sleeps instead.  (It may not poll:
 * the sandbox allows it read and write on its doorbells, not poll.) */
enum { YIELDS_BEFORE_SLEEP = 64 };

/* Apart: a waiter watches the other side's count for this many time-stamp
 * ticks (15-25 us at 2-3.5 GHz) before it yields, and the parent judges its
 * spins in windows of SPIN_WINDOW waits (channel_spins_failing): failing when
 * more than SPIN_MISSES_ALLOWED ran out in each of SPIN_BAD_WINDOWS windows in a
 * row.  One bad window alone was seen on an idle machine (9 misses of 64, once
 * in 15,000 windows). */
enum { SPIN_TICKS = 50000, SPIN_WINDOW = 64, SPIN_MISSES_ALLOWED = SPIN_WINDOW / 8, SPIN_BAD_WINDOWS = 2 };

static inline uint64_t load(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
static inline uint32_t load_flag(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

/* Spin until *count reaches want, at most SPIN_TICKS: false when it did not.
 * No call and no stack: the parent may empty the child's stack below its idle
 * frame meanwhile (audit.h). */
static inline bool spin_until(const uint64_t *count, uint64_t want)
{
#ifdef __x86_64__
    uint64_t end = __builtin_ia32_rdtsc() + SPIN_TICKS;
    do {
        if (load(count) >= want)
            return true;
        __builtin_ia32_pause();
    } while (__builtin_ia32_rdtsc() < end);
#else
    (void)count, (void)want;
#endif
    return false;
}

bool channel_open(channel_t *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->shared = mmap(NULL, sizeof *ch->shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (ch->shared == MAP_FAILED)
        return false;
    int to_child[2], to_parent[2];
    if (pipe2(to_child, O_CLOEXEC))
        return munmap(ch->shared, sizeof *ch->shared), false;
    if (pipe2(to_parent, O_CLOEXEC)) {
        close(to_child[0]), close(to_child[1]);
        return munmap(ch->shared, sizeof *ch->shared), false;
    }
    /* Seen from the parent; channel_take_side swaps them in the child. */
    ch->bell_in = to_parent[0];
    ch->other_out = to_parent[1];
    ch->bell_out = to_child[1];
    ch->other_in = to_child[0];
    return true;
}

void channel_take_side(channel_t *ch, bool is_child)
{
    if (is_child) {
        int in = ch->other_in, out = ch->other_out;
        close(ch->bell_in);
        close(ch->bell_out);
        ch->bell_in = in;
        ch->bell_out = out;
    } else {
        close(ch->other_in);
        close(ch->other_out);
    }
    ch->other_in = ch->other_out = -1;
}

void channel_share_no_further(channel_t *ch) { madvise(ch->shared, sizeof *ch->shared, MADV_DONTFORK); }

void channel_close(channel_t *ch)
{
    if (!ch->shared)
        return;
    int fds[] = {ch->bell_in, ch->bell_out, ch->other_in, ch->other_out};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    munmap(ch->shared, sizeof *ch->shared);
    memset(ch, 0, sizeof *ch);
}

size_t channel_gaps(const channel_t *ch, const void *lo[], size_t len[])
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const struct {
        size_t from, to;
    } gaps[] = {
        {offsetof(channel_shared_t, apart) + sizeof ch->shared->apart, offsetof(channel_shared_t, call)},
        {offsetof(channel_shared_t, call) + sizeof ch->shared->call, offsetof(channel_shared_t, answers)},
        {offsetof(channel_shared_t, parent_asleep) + sizeof ch->shared->parent_asleep,
         offsetof(channel_shared_t, answer)},
        {offsetof(channel_shared_t, answer) + sizeof ch->shared->answer,
         (sizeof *ch->shared + page - 1) / page * page},
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof gaps / sizeof *gaps; i++)
        if (gaps[i].to > gaps[i].from) {
            lo[n] = (const char *)ch->shared + gaps[i].from;
            len[n++] = gaps[i].to - gaps[i].from;
        }
    return n;
}

static void ring(int fd)
{
    ssize_t n;
    do
        n = write(fd, "!", 1);
    while (n < 0 && errno == EINTR);
}

/* Post: the count after the payload, then the bell if the other side sleeps.
 * True when it rang. */
static bool post(uint64_t *count, const uint32_t *asleep, int bell)
{
    __atomic_store_n(count, *count + 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(asleep, __ATOMIC_SEQ_CST))
        return false;
    ring(bell);
    return true;
}

void channel_call(channel_t *ch, const call_t *call)
{
    channel_shared_t *s = ch->shared;
    memcpy(&s->call, call, sizeof *call);   /* every byte: none the last call wrote here stays */
    ch->woke_child = post(&s->calls, &s->child_asleep, ch->bell_out);
}

bool channel_can_spin(void)
{
#ifdef __x86_64__
    return true;
#else
    return false;
#endif
}

void channel_set_apart(channel_t *ch, bool apart)
{
    __atomic_store_n(&ch->shared->apart, apart, __ATOMIC_SEQ_CST);
    ch->spins = ch->misses = ch->bad_windows = 0;
}

bool channel_spins_failing(channel_t *ch)
{
    if (ch->spins < SPIN_WINDOW)
        return false;
    ch->bad_windows = ch->misses > SPIN_MISSES_ALLOWED ? ch->bad_windows + 1 : 0;
    ch->spins = ch->misses = 0;
    return ch->bad_windows >= SPIN_BAD_WINDOWS;
}

void channel_answer(channel_t *ch, const answer_t *answer)
{
    channel_shared_t *s = ch->shared;
    memcpy(&s->answer, answer, sizeof *answer);   /* every byte, so none of an earlier answer stays */
    post(&s->answers, &s->parent_asleep, ch->bell_out);
}

/* One look at the child's doorbell and output, waiting up to timeout_ms: keeps
 * the output flowing (a child blocked on a full stdout pipe would never answer)
 * and consumes rings.  False when the child is gone: its end of the doorbell
 * closed before it answered. */
static bool look(channel_t *ch, uint64_t want, output_pump_t *pump, int timeout_ms)
{
    struct pollfd fds[2] = {{.fd = ch->bell_in, .events = POLLIN},
                            {.fd = pump && pump->output_fd >= 0 ? pump->output_fd : -1, .events = POLLIN}};
    int n = interrupt_poll(fds, 2, timeout_ms);
    if (n <= 0)
        return n == 0 || errno == EINTR;
    if (fds[1].revents && !pump->drain(pump->ctx))
        pump->output_fd = -1;
    char bytes[64];
    return !(fds[0].revents && read(ch->bell_in, bytes, sizeof bytes) == 0 && load(&ch->shared->answers) < want);
}

wait_result_t channel_wait(channel_t *ch, answer_t *out, double deadline, output_pump_t *pump, bool yield)
{
    channel_shared_t *s = ch->shared;
    uint64_t want = s->calls;
    wait_result_t w = WAIT_ANSWERED;
    if (yield && s->apart) {
        /* A child woken from its sleep (after an audit, say) answers late on any
         * CPU: such a wait says nothing of the other CPU being free. */
        ch->spins += !ch->woke_child;
        if (spin_until(&s->answers, want)) {
            *out = s->answer;
            return w;
        }
        ch->misses += !ch->woke_child;
    }
    for (unsigned round = 1;; round++) {
        if (!yield)
            __atomic_store_n(&s->parent_asleep, 1, __ATOMIC_SEQ_CST);
        if (load(&s->answers) >= want)
            break;
        /* Yielding, the child never sees the parent asleep and rings no bell: look
         * at the clock and the output only every so often. */
        if (yield && round % YIELDS_BETWEEN_LOOKS) {
            sched_yield();
            continue;
        }
        double left = deadline - monotonic_seconds();
        if (left <= 0) {
            w = WAIT_TIMEOUT;
            break;
        }
        if (!look(ch, want, pump, yield ? 0 : (int)(left * 1000) + 1)) {
            w = WAIT_GONE;
            break;
        }
        if (interrupt_signal() && load(&s->answers) < want) {
            w = WAIT_INTERRUPTED;
            break;
        }
    }
    __atomic_store_n(&s->parent_asleep, 0, __ATOMIC_SEQ_CST);
    if (w == WAIT_ANSWERED)
        *out = s->answer;
    return w;
}

void channel_next(channel_t *ch, call_t *call, bool yield)
{
    channel_shared_t *s = ch->shared;
    uint64_t want = ch->taken + 1;
    ch->idle_frame = (uintptr_t)__builtin_frame_address(0);
    if (yield && load_flag(&s->apart) && spin_until(&s->calls, want))
        goto taken;
    /* A parent that has not called back after so many turns is busy (an audit,
     * another process on its CPU) or gone: sleep on the doorbell, which it rings,
     * or closes by dying. */
    for (unsigned round = 0; yield && round < YIELDS_BEFORE_SLEEP; round++) {
        if (load(&s->calls) >= want)
            goto taken;
        sched_yield();
    }
    for (;;) {
        __atomic_store_n(&s->child_asleep, 1, __ATOMIC_SEQ_CST);
        if (load(&s->calls) >= want)
            break;
        char bytes[64];
        ssize_t got = read(ch->bell_in, bytes, sizeof bytes);
        if (got == 0)
            _exit(0);  /* the parent is gone */
    }
    __atomic_store_n(&s->child_asleep, 0, __ATOMIC_SEQ_CST);
taken:
    ch->taken = want;
    memcpy(call, &s->call, sizeof *call);
}
