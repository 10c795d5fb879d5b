/*
 * rusage.c - run a command and report its peak RSS.
 *
 *   rusage FILE CMD [ARG...]    runs CMD, writes "maxrss_kb=N pid=P" to FILE, exits as CMD did
 *
 * (P, the command's pid, finds its line among those bench/c/preload/witness.c writes.)
 *
 * BENCH_PRELOAD, when set, becomes the command's LD_PRELOAD: this helper runs on the C
 * library's malloc, so the allocator under test is loaded once, by the command, and cannot
 * take the figures down with it.
 *
 * Why: a process's peak RSS (ru_maxrss) keeps the high-water mark of the memory
 * it had before exec, so a command the Python bench starts itself reports the
 * bench's own RSS (about 115 MB, the same under every allocator).  Started
 * from this small process instead, the figure is the command's (with the
 * children it waited for, such as cc1 under gcc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: rusage FILE CMD [ARG...]\n");
        return 2;
    }
    /* The bench starts us with its stop signals blocked (measure.py: a stop that comes while it
     * starts us is taken once it knows our pid); the command must run with none blocked. */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("rusage: fork");
        return 127;
    }
    if (pid == 0) {
        const char *preload = getenv("BENCH_PRELOAD");
        if (preload && (setenv("LD_PRELOAD", preload, 1) != 0 || unsetenv("BENCH_PRELOAD") != 0)) {
            perror("rusage: setenv");
            _exit(127);
        }
        execvp(argv[2], argv + 2);
        fprintf(stderr, "rusage: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) {
            perror("rusage: wait4");
            return 127;
        }
    FILE *f = fopen(argv[1], "w");
    if (!f || fprintf(f, "maxrss_kb=%ld pid=%ld\n", ru.ru_maxrss, (long)pid) < 0 || fclose(f) != 0) {
        fprintf(stderr, "rusage: %s: %s\n", argv[1], strerror(errno));
        return 127;
    }
    if (WIFSIGNALED(status)) {                 /* end the same way, so the caller sees the signal */
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}
