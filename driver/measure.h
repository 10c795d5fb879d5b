/*
 * measure.h - utilization, and the timing pass.
 *
 * Utilization = peak live payload / the break's high-water mark in the first
 * correctness pass, whose every block was checked (memlib keeps the mark, out of
 * the allocator's reach); the peak payload is a property of the trace alone.
 * Timing replays a trace that the correctness pass has already accepted: a
 * pre-decoded op array in a loop with nothing else in it, for libc malloc (first,
 * before any allocator code runs in the process) or for the allocator, and
 * estimates each one's time with the K-best rule below.
 */
#ifndef DRIVER_MEASURE_H
#define DRIVER_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "driver/check.h"
#include "driver/trace.h"

typedef struct {
    double util;          /* peak payload / heap high-water mark */
    double ideal;         /* peak payload / peak of payloads rounded up to the alignment */
    uint64_t peak_payload;
    uint64_t peak_aligned;
    uint64_t heap_high_water;
} util_result_t;

typedef struct {
    double seconds;  /* the estimate: mean of the K fastest samples */
    int n;
    double samples[MDRIVER_MAX_SAMPLES];
} timing_t;

/* Utilization of a run of t whose break reached heap_high_water bytes. */
void util_compute(const trace_t *t, size_t heap_high_water, util_result_t *u);

/* Time the allocator (mm) or else libc, at least min_samples runs, into *out.
 * Every timed run of mm must place its blocks as *pl says the checked run did. */
bool time_trace(const trace_t *t, bool mm, int min_samples, const placements_t *pl, timing_t *out, verdict_t *v);

/* The K-best estimate of a set of samples; *converged when the K fastest agree. */
double kbest_estimate(const double *samples, int n, bool *converged);

#endif
