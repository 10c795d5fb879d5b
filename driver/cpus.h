/*
 * cpus.h - where a trace's child runs: on its parent's CPU, or beside it.
 *
 * The parent pins itself to the CPU it is on while a child lives (the child
 * inherits the mask at fork).  Each checked call wakes the other process:
 *   - together, the two share that CPU and yield to each other (channel.h): two
 *     context switches a call, about 2.4 us on an Intel Xeon VM, 3.1 us on an
 *     AMD EPYC VM, where a wake-up across CPUs cost the Intel VM about 45 us (the
 *     sleeping CPU must leave its halt);
 *   - apart, the child is on another CPU and each side spins a while, watching
 *     the other's count, before it yields: a round trip is a cache line's
 *     crossing, 0.24 us on the AMD VM.  It needs a CPU no one else wants.
 * Apart is tried first (x86-64, two CPUs allowed).  A child whose parent's spins
 * keep running out (another process on that CPU, or calls too slow to spin for)
 * is moved to the parent's CPU, and so are the next TOGETHER_CHILDREN children,
 * before apart is tried again.  MDRIVER_CPUS=together or apart fixes the choice
 * (tests, bench-driver).  Timed calls are made together, always: a child timed
 * apart, its sleeps between calls on an idle CPU, counted some 15 us more per
 * timed run (a 4-op trace's libc time rose from about 10 us to 25-35), so the
 * allocator's child joins the parent before its first timed run, and libc's
 * child, which makes no checked call, never leaves.
 */
#ifndef DRIVER_CPUS_H
#define DRIVER_CPUS_H

#include <sched.h>   /* cpu_set_t: the including file defines _GNU_SOURCE first */
#include <stdbool.h>
#include <sys/types.h>

#include "driver/channel.h"

typedef struct {
    bool pinned;           /* the parent pinned; `before` is its mask to give back */
    cpu_set_t before;
    int cpu;               /* the parent's CPU */
    bool apart;            /* the child on another CPU */
    bool stay_apart;       /* MDRIVER_CPUS=apart: never brought together */
} cpus_t;

/* Before fork: pin the parent where it is. */
void cpus_pin_parent(cpus_t *c);
/* After fork, in the parent: place the child, and tell the channel; apart only
 * for a child that will serve checked calls. */
void cpus_place_child(cpus_t *c, pid_t child, channel_t *ch, bool checked_calls);
/* Move a child that is apart to the parent's CPU, for good; `failed`: because
 * its spins kept running out (then the next children start together too). */
void cpus_join(cpus_t *c, pid_t child, channel_t *ch, bool failed);
/* The child gone, or left idle while another runs: the parent's mask as it was. */
void cpus_unpin_parent(cpus_t *c);
/* Pin the parent again on the CPU of an idle child, to time it once more. */
void cpus_repin_parent(cpus_t *c);
/* MDRIVER_CPUS when set to neither together nor apart, else NULL: checked before
 * any trace, since a misspelt value would leave the choice adaptive unseen. */
const char *cpus_unknown_setting(void);

/* After each checked call: bring a child whose spins keep failing to the parent's CPU. */
static inline void cpus_watch(cpus_t *c, pid_t child, channel_t *ch)
{
    if (c->apart && !c->stay_apart && channel_spins_failing(ch))
        cpus_join(c, child, ch, true);
}

#endif
