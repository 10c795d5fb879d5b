/*
 * death.h - what the end of a trace's child means: its verdict and the message
 * that says where it was (the pass and op from progress.h) and why (a signal
 * and the address it faulted at, a timeout, a stop, an exit).
 */
#ifndef DRIVER_DEATH_H
#define DRIVER_DEATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/outcome.h"
#include "driver/trace.h"

/* How the child ended, as the parent saw it. */
typedef struct {
    int status;            /* from wait4 */
    bool timed_out;        /* killed at the trace's deadline */
    int stop_signal;       /* stopped by this signal (then killed), or 0 */
    uintptr_t stack_lo;    /* the lowest usable address of its serving stack; 0: it had none */
    size_t guard_bytes;    /* the inaccessible guard below that stack */
} death_t;

/* The verdict for a child that died without being asked to (limit: the trace's time limit, s). */
void death_describe(const trace_t *t, const death_t *d, double limit, verdict_t *v);

#endif
