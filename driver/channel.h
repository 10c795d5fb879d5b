/*
 * channel.h - calls from the driver's parent to a trace's child, and answers.
 *
 * The allocator runs only in the child, and nothing the child computes is
 * believed: the parent holds the trace, asks for one allocator call at a time
 * and judges each answer itself on the heap it shares with the child.  The
 * child never sees an op before it is asked to perform it.
 *
 * One call is in flight at a time, in a page both processes map.  Between
 * checked calls a waiting side first spins, when the two run on different CPUs
 * (apart), then yields the CPU (sched_yield; the child, 64 turns, then it
 * sleeps); around timed calls it sleeps on a pipe, its doorbell, which the
 * other side rings when it sees the waiter asleep, so that no turn of the
 * waiter lands in a sample.  Which pays depends on the host (cpus.h decides):
 * on an AMD EPYC VM a round trip took 0.24 us spinning apart and 3.1 us
 * yielding on one CPU; on an Intel Xeon VM a cache line took 0.5 us to cross
 * between cores.  A child that dies closes its end of the parent's doorbell, so
 * the parent's wait ends at once; a parent that dies ends the child.
 */
#ifndef DRIVER_CHANNEL_H
#define DRIVER_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mm_stats.h"

typedef enum {
    CALL_READY,         /* no allocator code: the child's frame while idle (audit.h) */
    CALL_INIT,          /* a checked run begins: empty the heap (checked mode), then mm_init */
    CALL_MALLOC,
    CALL_FREE,
    CALL_REALLOC,
    CALL_STATS,         /* mm_stats, when the allocator has it */
    CALL_CHECKHEAP,     /* mm_checkheap after op `op`: a call of its own, so that what it does is not the op's */
    CALL_CHECKED_REPLAY,/* the second checked run: the shared ops replayed from mm_init, untimed */
    CALL_PREPARE_TIMED, /* a timed run's clean start (heap, stack), untimed */
    CALL_TIMED_RUN,     /* one timed replay of the shared ops, mm_init included */
    CALL_LIBC_RUN,      /* one timed replay through libc */
    CALL_LIBC_RELEASE,  /* the blocks libc's replay left live given back, untimed */
    CALL_QUIT,
} call_kind_t;

/* No padding, as in answer_t. */
typedef struct {
    uint32_t kind;        /* call_kind_t */
    uint32_t unused;      /* zero: op stays 8-aligned without padding */
    int64_t op;           /* the op's index (mm_checkheap's argument) */
    uintptr_t ptr;        /* free, realloc */
    size_t size;          /* malloc, realloc */
    uint64_t kept_high_water;  /* prepare: the first checked run's mark (the scrub keeps the heap below it) */
    uint64_t heap_lo, heap_end;  /* prepare: the heap's range, as the parent has it (0: the child's own) */
} call_t;

/* No padding: every byte of an answer is one the child writes (serve.c). */
typedef struct {
    uintptr_t result;     /* the block returned; mm_init's status */
    uint64_t brk;         /* the break after the call, as memlib has it: bytes above the heap's low end */
    uint64_t high_water;  /* memlib's high-water mark of the break, the same way: growth a call undid counts */
    uintptr_t violation;  /* the first canary byte mem_sbrk found overwritten, or 0 */
    uint32_t checker_ok;  /* CALL_CHECKHEAP: mm_checkheap's verdict, 0 or 1 */
    uint32_t has_stats;   /* 0 or 1 */
    mm_stats_t stats;
} answer_t;

/* The page both processes map: the parent writes calls, the child answers.
 * Each side's counter and flag share a cache line apart from the other's. */
typedef struct channel_shared {
    _Alignas(64) uint64_t calls;
    uint32_t child_asleep;
    uint32_t apart;       /* the two run on different CPUs: a waiter spins before it yields (cpus.h) */
    call_t call;
    _Alignas(64) uint64_t answers;
    uint32_t parent_asleep;
    answer_t answer;
} channel_shared_t;

typedef struct {
    channel_shared_t *shared;
    int bell_in;   /* this side's doorbell, rung by the other side */
    int bell_out;  /* the other side's doorbell */
    int other_in, other_out;  /* the other side's ends, closed after fork */
    uint64_t taken;           /* the child: calls taken so far */
    unsigned spins, misses;   /* the parent: spinning waits in this window, and those that ran out */
    unsigned bad_windows;     /* the parent: windows in a row with too many run out */
    bool woke_child;          /* the parent: its last call rang the sleeping child's doorbell */
    uintptr_t idle_frame;     /* the child: its frame while waiting for a call (audit.h) */
} channel_t;

/* Before fork: the shared page and both doorbells.  False when out of memory or fds. */
bool channel_open(channel_t *ch);
/* After fork, in each process: keep this side's ends (is_child says which). */
void channel_take_side(channel_t *ch, bool is_child);
void channel_close(channel_t *ch);
/* In the parent: a child forked later gets no copy of the shared page. */
void channel_share_no_further(channel_t *ch);
/* The bytes of the shared page no one writes (between its fields, after
 * them), which must stay zero: their number, at most 4. */
size_t channel_gaps(const channel_t *ch, const void *lo[], size_t len[]);

/* ---- the parent */

void channel_call(channel_t *ch, const call_t *call);

/* Can a waiter here spin (x86-64: it counts time-stamp ticks)? */
bool channel_can_spin(void);
/* Tell both sides whether the two run on different CPUs: then a waiter spins,
 * watching the other side's count, for some 20 us before it yields. */
void channel_set_apart(channel_t *ch, bool apart);
/* Apart, have too many of the parent's spins run out lately (the other CPU busy
 * with another process, or calls too slow to wait for)? */
bool channel_spins_failing(channel_t *ch);

/* WAIT_INTERRUPTED: the driver received an interrupt (interrupt.h) while waiting. */
typedef enum { WAIT_ANSWERED, WAIT_GONE, WAIT_TIMEOUT, WAIT_INTERRUPTED } wait_result_t;

/* While waiting the parent keeps the child's output flowing (a child blocked on
 * a full stdout pipe would never answer): when output_fd is readable, drain(ctx)
 * is called; it returns false at end of file, and output_fd is then left alone. */
typedef struct {
    int output_fd;
    bool (*drain)(void *ctx);
    void *ctx;
} output_pump_t;

/* Wait for the answer to the last call, until `deadline` (CLOCK_MONOTONIC seconds)
 * or an interrupt.
 * `yield`: spin first when apart, then give the CPU to the child (sched_yield)
 * instead of sleeping on the doorbell: with the two on one CPU (cpus.h) the
 * child runs at once, and a checked call costs neither the parent's poll and
 * read nor the child's ring.  Timed calls sleep, so that the parent's turns
 * cannot land inside the child's sample. */
wait_result_t channel_wait(channel_t *ch, answer_t *out, double deadline, output_pump_t *pump, bool yield);

/* ---- the child */

/* The next call; the child exits when the parent is gone.  `yield`: give the CPU
 * to the parent while waiting (after a checked call, when the next one follows
 * at once), instead of sleeping on the doorbell. */
void channel_next(channel_t *ch, call_t *call, bool yield);
void channel_answer(channel_t *ch, const answer_t *answer);

#endif
