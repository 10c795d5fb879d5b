/* interrupt.c - the parent's interrupt flag and its handlers (see interrupt.h). */
#define _GNU_SOURCE
#include "driver/interrupt.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t received;

/* SIGALRM last: the run's own limit (interrupt_arm), never sent from outside. */
static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM};
static const char *const names[] = {"SIGINT", "SIGTERM", "SIGHUP", "SIGALRM"};
enum { OUTSIDE_SIGNALS = 3 };
/* Ignored when the driver started (nohup, a non-interactive shell's `&`): left so. */
static bool inherited_ignored[sizeof signals / sizeof *signals];

static void note(int sig)
{
    if (!received)
        received = sig;
}

static bool armed;  /* SIGALRM is the run's limit: handled only then */
static unsigned armed_seconds;

static void set_all(void (*action)(int))
{
    /* No SA_RESTART: a call a signal interrupts returns EINTR to a loop that
     * looks at the flag (or retries). */
    struct sigaction sa = {.sa_handler = action};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < (size_t)OUTSIDE_SIGNALS + armed; i++)
        if (!inherited_ignored[i])
            sigaction(signals[i], &sa, NULL);
}

void interrupt_install(void)
{
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++) {
        struct sigaction now;
        inherited_ignored[i] = sigaction(signals[i], NULL, &now) == 0 && now.sa_handler == SIG_IGN;
    }
    set_all(note);
}

void interrupt_arm(unsigned seconds)
{
    /* The run's own limit is kept even where SIGALRM came in ignored. */
    armed = true;
    armed_seconds = seconds;
    inherited_ignored[OUTSIDE_SIGNALS] = false;
    set_all(note);
    alarm(seconds);
}

void interrupt_reset(void) { set_all(SIG_DFL); }

int interrupt_signal(void) { return received; }

const char *interrupt_name(int sig)
{
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        if (sig == signals[i])
            return names[i];
    return "a signal";
}

const char *interrupt_describe(int sig, char *buf, size_t len)
{
    if (sig == SIGALRM && armed)
        snprintf(buf, len, "stopped at its time limit (--run-limit %u)", armed_seconds);
    else
        snprintf(buf, len, "interrupted by %s", interrupt_name(sig));
    return buf;
}

bool interrupt_is_one(int sig)
{
    for (size_t i = 0; i < OUTSIDE_SIGNALS; i++)
        if (sig == signals[i])
            return true;
    return false;
}

int interrupt_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
    sigset_t block, before;
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        sigaddset(&block, signals[i]);
    sigprocmask(SIG_BLOCK, &block, &before);
    int got;
    if (received) {
        got = -1;
        errno = EINTR;
    } else {
        struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000};
        got = ppoll(fds, n, timeout_ms < 0 ? NULL : &ts, &before);
    }
    int e = errno;
    sigprocmask(SIG_SETMASK, &before, NULL);
    errno = e;
    return got;
}
