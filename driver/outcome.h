/*
 * outcome.h - the fixed vocabulary of what happened to one trace.
 *
 * Shared with the JSON output, the grader and its report: `mdriver --describe`
 * prints the names and explanations, so no other program retypes them.  A
 * verdict is an outcome with the op it concerns and a message naming what was
 * wrong: every pass (and mmreplay) reports a problem by verdict_fail.
 */
#ifndef DRIVER_OUTCOME_H
#define DRIVER_OUTCOME_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    OUTCOME_OK,
    OUTCOME_MISALIGNED,
    OUTCOME_OUT_OF_HEAP,
    OUTCOME_OVERLAP,
    OUTCOME_PAYLOAD_CORRUPTED,
    OUTCOME_ALLOC_FAILED,
    OUTCOME_INIT_FAILED,
    OUTCOME_CHECKER_FAILED,
    OUTCOME_CRASHED,
    OUTCOME_TIMEOUT,
    OUTCOME_EXITED,
    OUTCOME_BAD_TRACE,
    OUTCOME_TAMPERED,
    OUTCOME_INCONSISTENT,
    OUTCOME_COUNT
} outcome_t;

/* The JSON name, e.g. "payload_corrupted". */
const char *outcome_name(outcome_t o);
/* One line a student understands. */
const char *outcome_explanation(outcome_t o);

typedef struct {
    outcome_t outcome;
    int64_t op_index; /* -1 when not at an op */
    char message[512];
} verdict_t;

/* Fill *v and return false: the one way a pass reports a problem. */
bool verdict_fail(verdict_t *v, outcome_t outcome, int64_t op_index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
