/*
 * progress.h - what the parent last asked a trace's child for, and how it died.
 *
 * Lives in a page shared between the driver and the child: the parent notes the
 * pass and op it asked for, the child's fault handler the signal and the address
 * it touched (or the system call the sandbox refused), so that after a crash or a
 * timeout the parent can say where and why.  Only messages are made from it.
 */
#ifndef DRIVER_PROGRESS_H
#define DRIVER_PROGRESS_H

#include <stdint.h>

typedef enum {
    PASS_NONE,
    PASS_INIT,
    PASS_CHECK,
    PASS_RECHECK,
    PASS_TIMING,
    PASS_LIBC,
    PASS_CHECKHEAP,  /* mm_checkheap after the op in progress->op */
    PASS_STATS,      /* mm_stats, after the checked runs */
    PASS_COUNT
} pass_t;

typedef struct {
    volatile int pass;           /* pass_t */
    volatile int64_t op;         /* op index being run, -1 before the first */
    volatile uintptr_t fault_addr;
    volatile int fault_signal;
    volatile int fault_syscall;  /* SIGSYS: the system call the sandbox refused */
    volatile int fault_code;     /* si_code: SI_KERNEL for an address the CPU refused unseen */
    volatile uintptr_t heap_lo;  /* where the child's heap was mapped */
    volatile uint64_t heap_max;
} progress_t;

/* Mapped by the parent before its first child (child_run). */
extern progress_t *progress;

static inline void progress_at(pass_t pass, int64_t op)
{
    progress->pass = pass;
    progress->op = op;
}

const char *pass_name(pass_t pass);

#endif
