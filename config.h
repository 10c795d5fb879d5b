/*
 * config.h - every constant the kit's driver and scoring use, in one place.
 *
 * The Python tools read the scoring constants from this file (grader/kitconfig.py),
 * so a course that changes them here changes them everywhere.  Names carry an
 * MM_/MDRIVER_ prefix so that a classic mm.c, which defines ALIGNMENT, WSIZE,
 * CHUNKSIZE and friends itself, never collides with them.
 */
#ifndef MM_CONFIG_H
#define MM_CONFIG_H

/* Payload alignment every block must have.  16 is what x86-64 malloc promises;
 * `make ALIGNMENT=8` builds the classic 32-bit-era lab.  A macro only because the
 * build must be able to override it with -D. */
#ifndef MM_ALIGNMENT
#define MM_ALIGNMENT 16
#endif

/* Which of its placement layouts an allocator uses: 0 is the one it ships.
 * An allocator's utilization on a trace moves with where its blocks happen to
 * fall (e.g. against a run's granules), so one figure mixes policy and luck.
 * An allocator that wants that measured reads MM_LAYOUT (best moves its
 * placement origin by 64 bytes per step) and `make compare` with --layouts N
 * averages over layouts 0..N-1; an allocator that ignores it is unaffected.
 * `make LAYOUT=k` sets it. */
#ifndef MM_LAYOUT
#define MM_LAYOUT 0
#endif

enum {
    /* Default maximum heap (bytes); -M sets it per run, up to HEAP_LIMIT (driver/heap.h, 4 GiB). */
    MDRIVER_DEFAULT_MAX_HEAP = 20 << 20,
    /* Per-trace wall-clock limit in seconds for the whole child (-T). */
    MDRIVER_DEFAULT_TIME_LIMIT = 60,
    /* Timing: at least this many samples per allocator and trace (-r). */
    MDRIVER_DEFAULT_MIN_SAMPLES = 5,
    /* Timing: never more than this many samples ... */
    MDRIVER_MAX_SAMPLES = 25,
    /* ... and stop early once the K fastest agree within the tolerance below. */
    MDRIVER_BEST_K = 3,
    /* Bytes of an allocator's stdout/stderr kept per trace for the report. */
    MDRIVER_OUTPUT_KEEP = 4096,
    /* ... and of its end past those, for -v: the lines printed just before a crash. */
    MDRIVER_OUTPUT_TAIL = 1024,
};

/* Score: P = 100 (w U + (1 - w) min(1, T / T_libc)).  w weights utilization. */
static const double MM_UTIL_WEIGHT = 0.6;
/* Throughput credit is capped at this ratio to libc (the classic cap is 1). */
static const double MM_THROUGHPUT_CAP = 1.0;
/* K-best tolerance: the K fastest samples must lie within this fraction. */
static const double MDRIVER_BEST_K_TOLERANCE = 0.02;
/* Upper bound on the per-trace timing budget in seconds (after the first K samples). */
static const double MDRIVER_TIMING_BUDGET = 2.0;

#endif
