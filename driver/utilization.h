/*
 * utilization.h - the live payload of a trace, op by op: utilization and its peaks.
 *
 * Utilization = peak live payload / the break's high-water mark in a run of the
 * trace.  The peak payload is a property of the trace alone; the high-water mark
 * is the run's (mdriver: its first correctness pass, whose every block was
 * checked; mmreplay: its one in-process run).  Both programs score it here.
 */
#ifndef DRIVER_UTILIZATION_H
#define DRIVER_UTILIZATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/trace.h"

typedef struct {
    double util;          /* peak payload / heap high-water mark */
    double ideal;         /* peak payload / peak of payloads rounded up to the alignment */
    uint64_t peak_payload;
    uint64_t peak_aligned;
    uint64_t heap_high_water;
} util_result_t;


/* Utilization of a run of t whose break reached heap_high_water bytes. */
void util_compute(const trace_t *t, size_t heap_high_water, util_result_t *u);
/* The trace's peak live payload.  A trace whose peak is 0 (no op, or only
 * 0-byte blocks) has no utilization, whatever the allocator did with it: 100%
 * for a heap never grown, or 0% for one grown for malloc(0), would reward or
 * punish the answer to malloc(0).  It is left out of the average. */
uint64_t payload_peak(const trace_t *t);
static inline bool util_defined(const util_result_t *u) { return u->peak_payload > 0; }
/* Split the trace into `parts` spans of equal op counts; in each, the first op
 * where the live payload is the span's highest (the trace's peak is one of
 * them).  Writes at most `parts` op indices to at, ascending; returns how many
 * (none where a span holds no payload, or with no memory to work in). */
size_t payload_peaks(const trace_t *t, size_t parts, size_t *at);

#endif
