/*
 * interrupt.h - Ctrl-C, SIGTERM and SIGHUP stop the run, not the driver.
 *
 * In the driver's parent these signals only note themselves (the first one
 * received is kept); the parent then stops the trace in progress (its child is
 * killed, and the trace is not completed: no verdict on the allocator), starts
 * no other, and reports the traces it completed, marked interrupted.  Every
 * wait of the parent for a child sleeps in interrupt_poll, which a signal ends
 * at once, as does the parent's read of a trace (a pipe's writer may never
 * end) and its parse (a large trace's takes seconds); any other call a signal
 * interrupts (EINTR) is retried.  A trace's child takes the default actions
 * back (interrupt_reset): an allocator that raises SIGINT itself still dies of
 * it, and is judged for it.  A signal the driver inherited as ignored (nohup
 * ignores SIGHUP, a non-interactive shell's `&` SIGINT) is left ignored, in the
 * parent and its children: whoever started the run asked that it not stop it.
 * The run's own time limit (--run-limit) stops it the same way, by SIGALRM.
 */
#ifndef DRIVER_INTERRUPT_H
#define DRIVER_INTERRUPT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

/* The parent, first thing in main (it reads traces before any run): the three signals note themselves,
 * but for those it inherited as ignored. */
void interrupt_install(void);
/* Stop the run as an interrupt would, SECONDS from now (SIGALRM; not inherited by children). */
void interrupt_arm(unsigned seconds);
/* The first of them received since interrupt_install, or 0. */
int interrupt_signal(void);
/* "SIGINT", "SIGTERM", "SIGHUP" or "SIGALRM". */
const char *interrupt_name(int sig);
/* "interrupted by SIGINT", or "stopped at its time limit (--run-limit N)", in buf. */
const char *interrupt_describe(int sig, char *buf, size_t len);
/* Whether sig is one of the three sent from outside (a child that died of one while the parent was
 * interrupted got it from the interrupt, not from its allocator). */
bool interrupt_is_one(int sig);
/* In a forked child: the actions the driver inherited again (a handler is inherited by fork). */
void interrupt_reset(void);
/* poll, except that it returns -1 with errno EINTR, without sleeping, once a
 * signal has been noted: no signal slips in between a look at the flag and the
 * sleep (the signals stay blocked until ppoll lets them in). */
int interrupt_poll(struct pollfd *fds, nfds_t n, int timeout_ms);

#endif
