/*
 * remote.h - the allocator in a trace's child, as the parent calls it.
 *
 * check.c and measure.c run in the parent and reach the allocator only through
 * these calls (child.c owns the process and implements them).  A call that
 * returns false found the child gone (crashed, exited, out of time): the caller
 * stops at once, and death.c says what happened from what the child left behind.
 */
#ifndef DRIVER_REMOTE_H
#define DRIVER_REMOTE_H

#include <stdbool.h>

#include "driver/channel.h"

typedef struct remote remote_t;

/* One call and its answer. */
bool remote_call(remote_t *r, const call_t *call, answer_t *a);
/* After checked op `op`, the live blocks' payload: at the payload's peaks, and
 * where it has grown past the last audit's by a random 3-6%, the child's memory
 * is audited now (audit.h), so that metadata kept outside the heap only around
 * the peaks, where it would pay, is seen.  False when the child is gone. */
bool remote_payload(remote_t *r, size_t op, uint64_t live_bytes);
/* One timed call: the CPU time the child spent on it, read by the parent from
 * the child's clock (the wake-ups around the call included), and the page faults
 * the child took meanwhile (-1 if the system would not say). */
bool remote_timed(remote_t *r, const call_t *call, double *seconds, long *faults, answer_t *a);

#endif
