/*
 * lifeline.h - a forked child dies with the process that forked it.
 *
 * The driver's children sit in process groups of their own, where neither a
 * terminal's signals nor a kill of the driver's group reach them; a driver
 * killed with SIGKILL cannot kill them itself, and an allocator spinning in a
 * loop would spin on for good.
 */
#ifndef DRIVER_LIFELINE_H
#define DRIVER_LIFELINE_H

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

/* In the child, right after fork (before the sandbox, which refuses prctl);
 * parent is the forking process's getpid() taken before fork.  A parent that
 * died before prctl took effect has left the child someone else's: it ends. */
static inline void lifeline_tie(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != parent)
        raise(SIGKILL);
}

#endif
