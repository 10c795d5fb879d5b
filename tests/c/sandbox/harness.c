/*
 * harness.c - driver/sandbox.c on its own (tests/test_driver_sandbox.py).
 *
 *   harness ACTION [D] enter the sandbox, then do ACTION; "ok ACTION" and exit 0
 *                      if it came back.  A refused call dies of SIGSYS after the
 *                      handler wrote "sigsys N" (N = si_syscall) to stderr; the
 *                      harness writes "expect N" first, N the call it tries.
 *   harness name N     sandbox_syscall_name(N), or "(null)"
 *   harness describe N sandbox_describe(N)
 *   harness longest    the length of the longest clause sandbox_describe writes
 *   harness bare N     enter the sandbox, then make system call N with every
 *                      argument 0 (as ACTION: "expect N" first, "ok bare" after)
 *
 * The sandbox's one range is the middle page of three shared ones the harness
 * maps (shared, as the driver's heap is) and one byte of the third, after D
 * decoy ranges far from anything the harness touches: a filter longer than a
 * conditional jump can cross (255 instructions).  The filter takes the range's
 * whole pages only, and the middle page ends on a 4 GiB boundary: a filter that
 * compares 64-bit spans a 32-bit half at a time must borrow there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "driver/sandbox.h"

static char *pages;  /* three pages; the sandbox's range is the middle one */
static size_t page;
static pid_t other;  /* a process of the harness's own, forked before the sandbox */
static long bare_nr; /* harness bare N */

/* A line "tag N" on stderr with write(2) alone: safe in a signal handler and
 * independent of stdio's buffers. */
static void say(const char *tag, long n)
{
    char buf[64], digits[24];
    size_t len = strlen(tag), k = 0;
    memcpy(buf, tag, len);
    buf[len++] = ' ';
    unsigned long u = n < 0 ? -(unsigned long)n : (unsigned long)n;
    do
        digits[k++] = (char)('0' + u % 10);
    while (u /= 10);
    if (n < 0)
        buf[len++] = '-';
    while (k)
        buf[len++] = digits[--k];
    buf[len++] = '\n';
    ssize_t ignored = write(2, buf, len);
    (void)ignored;
}

static void on_sigsys(int sig, siginfo_t *info, void *context)
{
    (void)context;
    say("sigsys", info->si_syscall);
    /* Returning would resume after the refused call: die of it instead (SA_RESETHAND
     * restored the default action, and raise is a signal to the process itself). */
    raise(sig);
}

/* ------------------------------------------------------------ allowed */

static void do_printf(void) { printf("hello %d\n", 42); }

static void do_clocks(void)
{
    struct timespec ts = {.tv_nsec = 1000000};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    clock_getres(CLOCK_MONOTONIC, &ts);
    ts = (struct timespec){.tv_nsec = 1000000};
    nanosleep(&ts, NULL);
    sched_yield();
    if (getpid() <= 0 || getppid() <= 0 || gettid() <= 0)
        exit(3);
}

static void do_fstat(void)
{
    struct stat st;
    if (fstat(1, &st))
        exit(3);
}

static void do_mprotect_in(void)
{
    if (mprotect(pages + page, page, PROT_READ) || mprotect(pages + page, page, PROT_READ | PROT_WRITE))
        exit(3);
    pages[page] = 1;
}

static void do_madvise_dontneed(void)
{
    if (madvise(pages, 3 * page, MADV_DONTNEED))
        exit(3);
}

static void do_madvise_remove_in(void) { madvise(pages + page, page, MADV_REMOVE); }

static void do_kill_self(void)
{
    if (kill(getpid(), 0))
        exit(3);
}

static void do_getrlimit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl))
        exit(3);
}

static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig) { got_usr1 = sig; }

/* The handler is set before the sandbox, as the driver sets its own. */
static void do_raise(void)
{
    raise(SIGUSR1);
    if (!got_usr1)
        exit(3);
}

/* The block is answered as done and not done: the signal lands at once. */
static void do_sigprocmask_kept(void)
{
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    if (sigprocmask(SIG_BLOCK, &usr1, NULL))
        exit(3);
    raise(SIGUSR1);
    if (!got_usr1)
        exit(3);
}

static void do_sigaction_read(void)
{
    struct sigaction now;
    if (sigaction(SIGUSR1, NULL, &now) || now.sa_handler != on_usr1)
        exit(3);
}

static void do_sigaltstack_read(void)
{
    stack_t now;
    if (sigaltstack(NULL, &now))
        exit(3);
}

/* ------------------------------------------------------------ refused, or abort */

static void do_abort(void) { abort(); }
static void do_openat(void) { open("/etc/hostname", O_RDONLY); }
static void do_sigaction_set(void) { signal(SIGUSR2, on_usr1); }
static void do_sigaltstack_set(void)
{
    static char stack[1 << 16];
    stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack};
    sigaltstack(&ss, NULL);
}
static void do_mmap(void) { mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); }
static void do_munmap(void) { munmap(pages + 2 * page, page); }
static void do_mremap(void) { mremap(pages + 2 * page, page, 2 * page, MREMAP_MAYMOVE); }
static void do_brk(void) { syscall(__NR_brk, 0); }
static void do_mprotect_out(void) { mprotect(pages + 2 * page, page, PROT_READ); }
static void do_mprotect_below(void) { mprotect(pages, page, PROT_READ); }
static void do_mprotect_straddle(void) { mprotect(pages + page, 2 * page, PROT_READ); }
static void do_mprotect_exec(void) { mprotect(pages + page, page, PROT_READ | PROT_EXEC); }
/* Same low halves as the range, other high ones: a filter that compared only the low halves would let these by. */
static void do_mprotect_high_addr(void) { mprotect(pages + page + (1ul << 32), page, PROT_READ); }
static void do_mprotect_high_len(void) { mprotect(pages + page, (1ul << 32) + page, PROT_READ); }
static void do_mprotect_wrap(void) { mprotect(pages + page, -page, PROT_READ); }
/* Pointers the filter must see as not NULL whichever half is zero: the kernel
 * would only fail to read them (EFAULT), too late for a filter that let them by. */
static void *const LOW_HALF_ZERO = (void *)(1ul << 32), *const HIGH_HALF_ZERO = (void *)0x10000;
static void do_sigaction_set_low_zero(void) { syscall(__NR_rt_sigaction, SIGUSR2, LOW_HALF_ZERO, NULL, 8); }
static void do_sigaction_set_high_zero(void) { syscall(__NR_rt_sigaction, SIGUSR2, HIGH_HALF_ZERO, NULL, 8); }
static void do_sigaltstack_set_low_zero(void) { syscall(__NR_sigaltstack, LOW_HALF_ZERO, NULL); }
static void do_sigaltstack_set_high_zero(void) { syscall(__NR_sigaltstack, HIGH_HALF_ZERO, NULL); }
static void do_setrlimit_low_zero(void) { syscall(__NR_prlimit64, 0, RLIMIT_STACK, LOW_HALF_ZERO, NULL); }
static void do_setrlimit_high_zero(void) { syscall(__NR_prlimit64, 0, RLIMIT_STACK, HIGH_HALF_ZERO, NULL); }
/* The range is a page and a byte: the kernel would round this length up to two pages. */
static void do_mprotect_ragged(void) { mprotect(pages + page, page + 1, PROT_READ); }
/* prot is a long to the kernel: a bit of its high half is no PROT_READ */
static void do_mprotect_high_prot(void) { syscall(__NR_mprotect, pages + page, page, (1ul << 32) | PROT_READ); }
static void do_madvise_remove_out(void) { madvise(pages + 2 * page, page, MADV_REMOVE); }
static void do_madvise_free(void) { madvise(pages + page, page, MADV_FREE); }
static void do_setrlimit(void)
{
    struct rlimit rl = {1 << 20, 1 << 20};
    setrlimit(RLIMIT_STACK, &rl);
}

static void do_prlimit_parent(void)
{
    struct rlimit rl;
    prlimit(getppid(), RLIMIT_STACK, NULL, &rl);
}

static void do_kill_other(void) { kill(other, SIGKILL); }
static void do_tgkill_other(void) { syscall(__NR_tgkill, other, other, SIGKILL); }
static void do_tkill(void) { syscall(__NR_tkill, gettid(), 0); }
/* Signal 0: harmless to pytest should the filter let it by. */
static void do_kill_parent(void) { kill(getppid(), 0); }
static void do_kill_group(void) { kill(0, 0); }
static void do_fork(void) { fork(); }
static void do_clone3(void) { syscall(__NR_clone3, NULL, 0); }
static void do_execve(void) { execl("/bin/true", "true", (char *)NULL); }
static void do_socket(void) { socket(AF_UNIX, SOCK_STREAM, 0); }
static void do_ptrace(void) { syscall(__NR_ptrace, 2 /* PTRACE_PEEKDATA */, getppid(), 0, 0); }
static void do_prctl(void) { prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
static void do_seccomp(void) { syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &(unsigned){SECCOMP_RET_ALLOW}); }
static void do_ioctl(void) { struct termios t; ioctl(1, TCGETS, &t); }
static void do_fcntl(void) { fcntl(1, F_GETFL); }
static void do_dup(void) { dup(1); }
static void do_pipe2(void) { int fds[2]; pipe2(fds, 0); }
static void do_getrandom(void) { char b[8]; syscall(__NR_getrandom, b, sizeof b, 0); }
static void do_pread(void) { char b[8]; pread(0, b, sizeof b, 0); }

static void do_process_vm_readv(void)
{
    char b[8];
    struct iovec local = {b, sizeof b}, remote = {b, sizeof b};
    syscall(__NR_process_vm_readv, getppid(), &local, 1, &remote, 1, 0);
}

static void do_bare(void) { syscall(bare_nr, 0, 0, 0, 0, 0, 0); }

#ifdef __x86_64__
static void do_open(void) { syscall(__NR_open, "/etc/hostname", O_RDONLY); }
static void do_vfork(void) { syscall(__NR_vfork); }
/* getpid in the x32 ABI's numbering */
static void do_x32(void) { syscall(0x40000000 | __NR_getpid); }

/* getpid through the i386 entry point: another architecture, which the filter kills outright */
static void do_int80(void)
{
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
}
#endif

typedef struct {
    const char *name;
    void (*run)(void);
    int expect;  /* the number the refusal reports, -1 for an allowed call */
} action_t;

static const action_t ACTIONS[] = {
    {"printf", do_printf, -1},
    {"clocks", do_clocks, -1},
    {"fstat", do_fstat, -1},
    {"mprotect-in", do_mprotect_in, -1},
    {"madvise-dontneed", do_madvise_dontneed, -1},
    {"madvise-remove-in", do_madvise_remove_in, __NR_madvise},
    {"kill-self", do_kill_self, -1},
    {"getrlimit", do_getrlimit, -1},
    {"raise", do_raise, -1},
    {"sigprocmask-kept", do_sigprocmask_kept, -1},
    {"sigaction-read", do_sigaction_read, -1},
    {"sigaltstack-read", do_sigaltstack_read, -1},
    {"kill-self-abort", do_abort, -1},
    {"openat", do_openat, __NR_openat},
    {"sigaction-set", do_sigaction_set, __NR_rt_sigaction},
    {"sigaltstack-set", do_sigaltstack_set, __NR_sigaltstack},
    {"mmap", do_mmap, __NR_mmap},
    {"munmap", do_munmap, __NR_munmap},
    {"mremap", do_mremap, __NR_mremap},
    {"brk", do_brk, __NR_brk},
    {"mprotect-out", do_mprotect_out, __NR_mprotect},
    {"mprotect-below", do_mprotect_below, __NR_mprotect},
    {"mprotect-straddle", do_mprotect_straddle, __NR_mprotect},
    {"mprotect-exec", do_mprotect_exec, __NR_mprotect},
    {"mprotect-high-addr", do_mprotect_high_addr, __NR_mprotect},
    {"mprotect-high-len", do_mprotect_high_len, __NR_mprotect},
    {"mprotect-wrap", do_mprotect_wrap, __NR_mprotect},
    {"sigaction-set-low-zero", do_sigaction_set_low_zero, __NR_rt_sigaction},
    {"sigaction-set-high-zero", do_sigaction_set_high_zero, __NR_rt_sigaction},
    {"sigaltstack-set-low-zero", do_sigaltstack_set_low_zero, __NR_sigaltstack},
    {"sigaltstack-set-high-zero", do_sigaltstack_set_high_zero, __NR_sigaltstack},
    {"setrlimit-low-zero", do_setrlimit_low_zero, __NR_prlimit64},
    {"setrlimit-high-zero", do_setrlimit_high_zero, __NR_prlimit64},
    {"mprotect-ragged", do_mprotect_ragged, __NR_mprotect},
    {"mprotect-high-prot", do_mprotect_high_prot, __NR_mprotect},
    {"madvise-remove-out", do_madvise_remove_out, __NR_madvise},
    {"madvise-free", do_madvise_free, __NR_madvise},
    {"setrlimit", do_setrlimit, __NR_prlimit64},
    {"prlimit-parent", do_prlimit_parent, __NR_prlimit64},
    {"kill-other", do_kill_other, __NR_kill},
    {"tgkill-other", do_tgkill_other, __NR_tgkill},
    {"tkill", do_tkill, __NR_tkill},
    {"kill-parent", do_kill_parent, __NR_kill},
    {"kill-group", do_kill_group, __NR_kill},
    {"fork", do_fork, __NR_clone},
    {"clone3", do_clone3, __NR_clone3},
    {"execve", do_execve, __NR_execve},
    {"socket", do_socket, __NR_socket},
    {"ptrace", do_ptrace, __NR_ptrace},
    {"prctl", do_prctl, __NR_prctl},
    {"seccomp", do_seccomp, __NR_seccomp},
    {"ioctl", do_ioctl, __NR_ioctl},
    {"fcntl", do_fcntl, __NR_fcntl},
    {"dup", do_dup, __NR_dup},
    {"pipe2", do_pipe2, __NR_pipe2},
    {"getrandom", do_getrandom, __NR_getrandom},
    {"pread64", do_pread, __NR_pread64},
    {"process_vm_readv", do_process_vm_readv, __NR_process_vm_readv},
#ifdef __x86_64__
    {"open", do_open, __NR_open},
    {"vfork", do_vfork, __NR_vfork},
    {"x32", do_x32, 0x40000000 | __NR_getpid},
    {"int80", do_int80, -1},
#endif
};

/* A process that outlives the harness unless something kills it: it says so on
 * stdout once the harness is gone (its end of the pipe closes). */
static void fork_other(void)
{
    int fds[2];
    if (pipe(fds))
        exit(2);
    other = fork();
    if (other < 0)
        exit(2);
    if (other == 0) {
        close(fds[1]);
        char c;
        while (read(fds[0], &c, 1) < 0 && errno == EINTR)
            ;
        const char msg[] = "other alive\n";
        ssize_t ignored = write(1, msg, sizeof msg - 1);
        (void)ignored;
        _exit(0);
    }
    close(fds[0]);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "name")) {
        const char *name = sandbox_syscall_name(atoi(argv[2]));
        printf("%s\n", name ? name : "(null)");
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "describe")) {
        char buf[512];
        sandbox_describe(atoi(argv[2]), buf, sizeof buf);
        printf("%s\n", buf);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "longest")) {
        char buf[4096];
        size_t longest = 0;
        for (int nr = -1; nr < 1024; nr++) {
            sandbox_describe(nr, buf, sizeof buf);
            longest = strlen(buf) > longest ? strlen(buf) : longest;
        }
        printf("%zu %d\n", longest, SANDBOX_DESCRIBE_BYTES);
        return 0;
    }
    const action_t *a = NULL;
    for (size_t i = 0; (argc == 2 || argc == 3) && i < sizeof ACTIONS / sizeof *ACTIONS; i++)
        if (!strcmp(argv[1], ACTIONS[i].name))
            a = &ACTIONS[i];
    action_t bare = {"bare", do_bare, -1};
    if (argc == 3 && !strcmp(argv[1], "bare")) {
        bare.expect = (int)(bare_nr = atol(argv[2]));
        a = &bare;
    }
    if (!a) {
        fprintf(stderr, "usage: harness ACTION [DECOYS] | name N | describe N\n");
        return 2;
    }
    page = (size_t)sysconf(_SC_PAGESIZE);
    const uintptr_t BOUNDARY = 0x200000000000u;  /* 4 GiB-aligned, far above the decoys */
    pages = mmap((void *)(BOUNDARY - 2 * page), 3 * page, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (pages != (void *)(BOUNDARY - 2 * page))
        return 2;
    if (a->run == do_kill_other || a->run == do_tgkill_other)
        fork_other();
    struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO | SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSYS, &sa, NULL);
    signal(SIGUSR1, on_usr1);
    /* As the driver's child does: stdout line-buffered, its buffer made before the sandbox. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("entering\n");
    enum { MAX_DECOYS = 256 };
    size_t decoys = argc == 3 && a != &bare ? (size_t)atoi(argv[2]) : 0;
    if (decoys > MAX_DECOYS)
        return 2;
    sandbox_range_t ranges[MAX_DECOYS + 1];
    for (size_t i = 0; i < decoys; i++)
        ranges[i] = (sandbox_range_t){0x100000000000u + (i << 32), 1 << 20};
    ranges[decoys] = (sandbox_range_t){(uintptr_t)(pages + page), page + 1};
    if (!sandbox_enter(ranges, decoys + 1)) {
        fprintf(stderr, "sandbox_enter failed\n");
        return 2;
    }
    if (a->expect >= 0)
        say("expect", a->expect);
    a->run();
    printf("ok %s\n", a->name);
    return 0;
}
