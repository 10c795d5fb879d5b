/*
 * score.h - the performance index, from the per-trace results.
 *
 *   U       mean utilization over the traces whose weight scores utilization
 *           (1 or 2); a failed trace counts 0.
 *   T/Tlibc total ops / total time over the valid traces whose weight scores
 *           throughput (1 or 3), relative to libc's total time for the same
 *           traces, times the fraction of those traces that were valid.
 *   P       100 (w U + (1 - w) min(cap, T/Tlibc)), w = MM_UTIL_WEIGHT; when the
 *           traces score only one of the two, P is 100 times that one; when
 *           they score neither, there is no P (summary_has_index).
 * Malformed traces are reported and left out of every term; a trace with no
 * ops counts for correctness only (there is nothing to measure: its ratio
 * would be 0/0).
 */
#ifndef DRIVER_SCORE_H
#define DRIVER_SCORE_H

#include "driver/run.h"

void score_runs(const trace_run_t *runs, size_t n, summary_t *s);

#endif
