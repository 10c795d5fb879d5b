/*
 * clock.h - a clock's reading in seconds, the one way the driver's programs read time.
 */
#ifndef DRIVER_CLOCK_H
#define DRIVER_CLOCK_H

#include <time.h>

static inline double clock_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall time for deadlines and budgets: never set back. */
static inline double monotonic_seconds(void) { return clock_seconds(CLOCK_MONOTONIC); }

#endif
