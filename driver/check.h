/*
 * check.h - the correctness pass: replay a trace and check every result.
 *
 * Every returned block must be aligned, lie inside the heap and share no byte
 * with a live block; every live payload carries the fill pattern of fill.h and
 * is verified when it is freed or reallocated and at the end; NULL is a failure
 * unless the request was for 0 bytes; nothing may be written past the break.
 */
#ifndef DRIVER_CHECK_H
#define DRIVER_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "driver/outcome.h"
#include "driver/progress.h"
#include "driver/trace.h"

typedef struct {
    outcome_t outcome;
    int64_t op_index; /* -1 when not at an op */
    char message[512];
} verdict_t;

/* One full pass starting from mm_init; false with *v filled on the first problem. */
bool check_pass(const trace_t *t, pass_t pass, bool run_checker, verdict_t *v);

/* Fill *v and return false: the one way a pass reports a problem. */
bool verdict_fail(verdict_t *v, outcome_t outcome, int64_t op_index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
