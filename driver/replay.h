/*
 * replay.h - mmreplay's run of one trace: the allocator called in-process.
 *
 * For research on trusted allocators, where mdriver's round trip per op is what
 * makes it slow.  The trace runs in a child of its own (forked per trace), which
 * calls the allocator directly, from mm_init, on memlib's heap in checked mode
 * (pages past the break inaccessible, as in mdriver's first correctness run),
 * and gives every result the cheap checks of ledger.h: alloc_failed, misaligned,
 * out_of_heap, overlap.  Utilization is then computed as mdriver computes it
 * (utilization.h), from the highest break seen after a call.
 *
 * Not a judge: no sandbox, no payload fill or check, no audit, no second run;
 * the child's own report is believed.  A crash, an exit or the time limit ends
 * the trace with mdriver's outcome for it (crashed, exited, timeout), naming
 * the op it was at; the child's output goes to stderr.
 */
#ifndef DRIVER_REPLAY_H
#define DRIVER_REPLAY_H

#include "driver/child.h"
#include "driver/trace.h"

/* Replay t within time_limit seconds; fills rep's verdict and, when the trace
 * scores utilization and every result passed, its utilization. */
void replay_trace(const trace_t *t, double time_limit, child_report_t *rep);

#endif
