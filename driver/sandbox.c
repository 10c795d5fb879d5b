/* sandbox.c - a seccomp filter for the trace's process (see sandbox.h). */
#define _GNU_SOURCE
#include "driver/sandbox.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANDBOX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANDBOX_ASAN 1
#endif
#endif

/* The filter reads the arguments as 32-bit halves; both architectures are little-endian. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif

/* ------------------------------------------------------------ names */

typedef struct {
    int nr;
    const char *name;
} syscall_name_t;

/* Stringifying a name is the one thing a function cannot do. */
#define NAMED(call) {__NR_##call, #call}

static const syscall_name_t NAMES[] = {
    NAMED(read), NAMED(write), NAMED(openat), NAMED(close), NAMED(mmap), NAMED(munmap), NAMED(mremap),
    NAMED(mprotect), NAMED(madvise), NAMED(brk), NAMED(mincore), NAMED(msync), NAMED(mlock), NAMED(munlock),
    NAMED(pkey_mprotect), NAMED(memfd_create), NAMED(shmget), NAMED(shmat), NAMED(shmdt), NAMED(shmctl),
    NAMED(clone), NAMED(clone3), NAMED(execve), NAMED(execveat), NAMED(wait4), NAMED(waitid), NAMED(kill),
    NAMED(tkill), NAMED(tgkill), NAMED(rt_sigaction), NAMED(sigaltstack), NAMED(rt_sigqueueinfo),
    NAMED(pidfd_open), NAMED(pidfd_send_signal),
    NAMED(pidfd_getfd), NAMED(ptrace), NAMED(process_vm_readv), NAMED(process_vm_writev), NAMED(prctl),
    NAMED(seccomp), NAMED(setpgid), NAMED(setsid), NAMED(setrlimit), NAMED(prlimit64), NAMED(socket),
    NAMED(socketpair), NAMED(connect), NAMED(bind), NAMED(sendto), NAMED(recvfrom), NAMED(ioctl),
    NAMED(fcntl), NAMED(dup), NAMED(dup3), NAMED(pipe2), NAMED(pread64), NAMED(pwrite64), NAMED(preadv),
    NAMED(pwritev), NAMED(readlinkat), NAMED(getdents64), NAMED(unlinkat), NAMED(mkdirat),
    NAMED(faccessat), NAMED(ftruncate), NAMED(truncate), NAMED(getrandom), NAMED(getrusage), NAMED(times),
    NAMED(setitimer), NAMED(timer_create), NAMED(timerfd_create), NAMED(ppoll), NAMED(pselect6),
    NAMED(epoll_pwait), NAMED(perf_event_open), NAMED(io_uring_setup), NAMED(userfaultfd), NAMED(bpf),
    NAMED(sched_setaffinity), NAMED(setpriority), NAMED(personality), NAMED(unshare), NAMED(mount),
    NAMED(chdir), NAMED(fchdir), NAMED(uname), NAMED(sysinfo),
#ifdef __x86_64__
    NAMED(open), NAMED(creat), NAMED(stat), NAMED(lstat), NAMED(access), NAMED(readlink), NAMED(unlink),
    NAMED(fork), NAMED(vfork), NAMED(dup2), NAMED(pipe), NAMED(poll), NAMED(select), NAMED(alarm),
    NAMED(pause), NAMED(renameat), NAMED(arch_prctl), NAMED(modify_ldt), NAMED(iopl), NAMED(ioperm), NAMED(time),
#endif
};

#undef NAMED

const char *sandbox_syscall_name(int nr)
{
    for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++)
        if (NAMES[i].nr == nr)
            return NAMES[i].name;
    return NULL;
}

void sandbox_describe(int nr, char *buf, size_t len)
{
    if (!len)
        return;
    const char *name = sandbox_syscall_name(nr);
    char call[48];
    if (name)
        snprintf(call, sizeof call, "the system call %s (%d)", name, nr);
    else
        snprintf(call, sizeof call, "system call %d", nr);
    const char *what = "", *why = "an allocator gets memory only from mem_sbrk, and the driver allows it no files, "
                                  "no processes and no memory of its own";
    if (nr == __NR_mprotect || nr == __NR_pkey_mprotect) {
        what = " outside the heap (or to make memory executable)";
        why = "an allocator may change the protection of heap pages only, to read and write";
    } else if (nr == __NR_madvise) {
        what = " outside the heap, or with an advice other than MADV_DONTNEED";
        why = "an allocator gets memory only from mem_sbrk and keeps none of its own";
    } else if (nr == __NR_prlimit64) {
        what = " to change a resource limit or read another process's";
        why = "an allocator may only read its own limits";
    } else if (nr == __NR_rt_sigaction || nr == __NR_sigaltstack) {
        what = nr == __NR_rt_sigaction ? " to change a signal's action" : " to change the signal stack";
        why = "an allocator may read the process's signal handling, which the driver sets, but not change it";
    } else if (nr == __NR_kill || nr == __NR_tgkill || nr == __NR_tkill) {
        what = " aimed at another process";
        why = "an allocator may signal only its own process (abort), no other";
    }
    snprintf(buf, len, ": it made %s%s, which the trace's process may not make: %s", call, what, why);
}

/* ------------------------------------------------------------ the filter */

/* MDRIVER_SECCOMP_OFF (make DRIVER_SECCOMP=off): no filter, so that the grader's
 * tests reach the grader's own sandbox behind it.  The grader builds the driver
 * itself, with its policy's setting; a submission is only the allocator. */
#if defined(SANDBOX_ARCH) && !defined(SANDBOX_ASAN) && !defined(MDRIVER_SECCOMP_OFF)

/* Allowed whatever their arguments: stdio on the fds the process has, clocks,
 * sleeps, its own ids, exit, glibc's locks. */
static const int ALLOWED[] = {
    __NR_read, __NR_write, __NR_readv, __NR_writev, __NR_close, __NR_lseek, __NR_fstat,
#ifdef __NR_newfstatat
    __NR_newfstatat,
#endif
    __NR_statx,
#ifdef __NR_getrlimit
    __NR_getrlimit,
#endif
    __NR_clock_gettime, __NR_clock_getres, __NR_gettimeofday, __NR_clock_nanosleep,
    __NR_nanosleep, __NR_sched_yield, __NR_getpid, __NR_gettid, __NR_getppid, __NR_exit, __NR_exit_group,
    __NR_rt_sigreturn, __NR_futex,
    /* the kernel's own continuation of a sleep interrupted by a stop and a SIGCONT */
    __NR_restart_syscall,
};

enum { PROG_MAX = 4096, LABEL_SITES = 64 };
/* nr | X32_BIT: the x32 ABI's numbers, which reach the same kernel code under other numbers. */
static const uint32_t X32_BIT = 0x40000000u;

typedef struct {
    struct sock_filter insn[PROG_MAX];
    unsigned n;
    bool broken;  /* too long, or a jump too far: not installed */
} prog_t;

/* Which part of a jump a label patches: a conditional jump's 8-bit offsets, or an
 * unconditional one's 32-bit offset (to jump over a long stretch). */
typedef enum { IF_TRUE, IF_FALSE, ALWAYS } branch_t;

/* A forward jump target: the jumps to it are patched when it is placed. */
typedef struct {
    unsigned site[LABEL_SITES];
    branch_t branch[LABEL_SITES];
    unsigned n;
} label_t;

static inline void emit(prog_t *p, uint16_t code, uint32_t k)
{
    if (p->n == PROG_MAX) {
        p->broken = true;
        return;
    }
    p->insn[p->n++] = (struct sock_filter){.code = code, .k = k};
}

static inline void refer(prog_t *p, label_t *l, branch_t branch)
{
    if (!l || p->broken)
        return;  /* NULL: fall through to the next instruction */
    if (l->n == LABEL_SITES) {
        p->broken = true;
        return;
    }
    l->site[l->n] = p->n - 1;
    l->branch[l->n++] = branch;
}

/* if (A <op> k, or X with BPF_X) goto t, else goto f. */
static inline void jump(prog_t *p, uint16_t op, uint32_t k, label_t *t, label_t *f)
{
    emit(p, BPF_JMP | op, k);
    refer(p, t, IF_TRUE);
    refer(p, f, IF_FALSE);
}

/* Unless A == k, goto l, however far. */
static inline void jump_far_unless(prog_t *p, uint32_t k, label_t *l)
{
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, k);
    if (!p->broken)
        p->insn[p->n - 1].jt = 1;
    emit(p, BPF_JMP | BPF_JA, 0);
    refer(p, l, ALWAYS);
}

static inline void place(prog_t *p, label_t *l)
{
    for (unsigned i = 0; i < l->n && !p->broken; i++) {
        unsigned off = p->n - l->site[i] - 1;
        struct sock_filter *in = &p->insn[l->site[i]];
        if (l->branch[i] == ALWAYS)
            in->k = off;
        else if (off > 255)
            p->broken = true;
        else if (l->branch[i] == IF_TRUE)
            in->jt = (uint8_t)off;
        else
            in->jf = (uint8_t)off;
    }
    l->n = 0;
}

static inline void ret(prog_t *p, uint32_t action) { emit(p, BPF_RET | BPF_K, action); }
static inline void load_nr(prog_t *p) { emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)); }

/* A = the high or low 32 bits of argument i. */
static inline void load_arg(prog_t *p, int i, bool high)
{
    emit(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)(offsetof(struct seccomp_data, args[i]) + (high ? 4 : 0)));
}

static inline uint32_t hi32(uint64_t v) { return (uint32_t)(v >> 32); }
static inline uint32_t lo32(uint64_t v) { return (uint32_t)v; }

/* Trap unless A == k. */
static inline void trap_unless(prog_t *p, uint32_t k)
{
    label_t ok = {0};
    jump(p, BPF_JEQ | BPF_K, k, &ok, NULL);
    ret(p, SECCOMP_RET_TRAP);
    place(p, &ok);
}

/* Trap if A has any of the bits. */
static inline void trap_if_any(prog_t *p, uint32_t bits)
{
    label_t ok = {0};
    jump(p, BPF_JSET | BPF_K, bits, NULL, &ok);
    ret(p, SECCOMP_RET_TRAP);
    place(p, &ok);
}

/* Allow the call when its 32-bit argument i (the kernel reads only those bits) is v; else trap. */
static inline void allow_if_arg(prog_t *p, int nr, int i, uint32_t v)
{
    label_t other = {0}, yes = {0};
    jump(p, BPF_JEQ | BPF_K, (uint32_t)nr, NULL, &other);
    load_arg(p, i, false);
    jump(p, BPF_JEQ | BPF_K, v, &yes, NULL);
    ret(p, SECCOMP_RET_TRAP);
    place(p, &yes);
    ret(p, SECCOMP_RET_ALLOW);
    place(p, &other);
}

/* Allow the call when its pointer argument i is NULL; else trap. */
static inline void allow_if_null(prog_t *p, int nr, int i)
{
    label_t other = {0}, no = {0};
    jump(p, BPF_JEQ | BPF_K, (uint32_t)nr, NULL, &other);
    load_arg(p, i, false);
    jump(p, BPF_JEQ | BPF_K, 0, NULL, &no);
    load_arg(p, i, true);
    jump(p, BPF_JEQ | BPF_K, 0, NULL, &no);
    ret(p, SECCOMP_RET_ALLOW);
    place(p, &no);
    ret(p, SECCOMP_RET_TRAP);
    place(p, &other);
}

/* Allow the call when the span its first two arguments give, [addr, addr + len),
 * lies in [lo, hi), comparing 64-bit values a 32-bit half at a time; else fall through. */
static void allow_span_within(prog_t *p, uint64_t lo, uint64_t hi)
{
    enum { ADDR = 0, LEN = 1, ROOM_LO = 0, ROOM_HI = 1 };
    label_t fail = {0}, above_lo = {0}, below_hi = {0}, no_borrow = {0}, fits = {0};
    /* addr >= lo */
    load_arg(p, ADDR, true);
    jump(p, BPF_JGT | BPF_K, hi32(lo), &above_lo, NULL);
    jump(p, BPF_JEQ | BPF_K, hi32(lo), NULL, &fail);
    load_arg(p, ADDR, false);
    jump(p, BPF_JGE | BPF_K, lo32(lo), NULL, &fail);
    place(p, &above_lo);
    /* addr <= hi */
    load_arg(p, ADDR, true);
    jump(p, BPF_JGT | BPF_K, hi32(hi), &fail, NULL);
    jump(p, BPF_JEQ | BPF_K, hi32(hi), NULL, &below_hi);
    load_arg(p, ADDR, false);
    jump(p, BPF_JGT | BPF_K, lo32(hi), &fail, NULL);
    place(p, &below_hi);
    /* room = hi - addr, into M[ROOM_LO] and M[ROOM_HI], borrowing when the low half wraps */
    load_arg(p, ADDR, false);
    emit(p, BPF_MISC | BPF_TAX, 0);
    emit(p, BPF_LD | BPF_IMM, lo32(hi));
    emit(p, BPF_ALU | BPF_SUB | BPF_X, 0);
    emit(p, BPF_ST, ROOM_LO);
    load_arg(p, ADDR, true);
    emit(p, BPF_MISC | BPF_TAX, 0);
    emit(p, BPF_LD | BPF_IMM, hi32(hi));
    emit(p, BPF_ALU | BPF_SUB | BPF_X, 0);
    emit(p, BPF_ST, ROOM_HI);
    load_arg(p, ADDR, false);
    jump(p, BPF_JGT | BPF_K, lo32(hi), NULL, &no_borrow);
    emit(p, BPF_LD | BPF_MEM, ROOM_HI);
    emit(p, BPF_ALU | BPF_SUB | BPF_K, 1);
    emit(p, BPF_ST, ROOM_HI);
    place(p, &no_borrow);
    /* len <= room */
    emit(p, BPF_LD | BPF_MEM, ROOM_HI);
    emit(p, BPF_MISC | BPF_TAX, 0);
    load_arg(p, LEN, true);
    jump(p, BPF_JGT | BPF_X, 0, &fail, NULL);
    jump(p, BPF_JEQ | BPF_X, 0, NULL, &fits);
    emit(p, BPF_LD | BPF_MEM, ROOM_LO);
    emit(p, BPF_MISC | BPF_TAX, 0);
    load_arg(p, LEN, false);
    jump(p, BPF_JGT | BPF_X, 0, &fail, NULL);
    place(p, &fits);
    ret(p, SECCOMP_RET_ALLOW);
    place(p, &fail);
}

/* Allow the call (its span in its first two arguments) within any of the ranges,
 * each shrunk to whole pages: the kernel rounds a length up to a page. */
static void allow_in_ranges(prog_t *p, const sandbox_range_t *ranges, size_t n)
{
    long page = sysconf(_SC_PAGESIZE);
    uint64_t mask = page > 0 ? (uint64_t)page - 1 : 4095;
    for (size_t i = 0; i < n; i++) {
        uint64_t lo = ((uint64_t)ranges[i].lo + mask) & ~mask, end = (uint64_t)ranges[i].lo + ranges[i].len;
        if (end < (uint64_t)ranges[i].lo)
            continue;
        end &= ~mask;
        if (end > lo)
            allow_span_within(p, lo, end);
    }
}

static void build(prog_t *p, const sandbox_range_t *ranges, size_t n_ranges, pid_t self)
{
    label_t same_arch = {0}, allow = {0}, not_listed = {0}, not_madvise = {0},
            not_prlimit = {0}, not_mask = {0};
    /* Another architecture's numbers mean other calls: no verdict on them is safe. */
    emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    jump(p, BPF_JEQ | BPF_K, SANDBOX_ARCH, &same_arch, NULL);
    ret(p, SECCOMP_RET_KILL_PROCESS);
    place(p, &same_arch);
    load_nr(p);
    trap_if_any(p, X32_BIT);
    size_t n_allowed = sizeof ALLOWED / sizeof *ALLOWED;
    for (size_t i = 0; i < n_allowed; i++)
        jump(p, BPF_JEQ | BPF_K, (uint32_t)ALLOWED[i], &allow, i + 1 == n_allowed ? &not_listed : NULL);
    place(p, &allow);
    ret(p, SECCOMP_RET_ALLOW);
    place(p, &not_listed);
    /* abort() and raise() signal the process itself; nothing may signal the parent */
    allow_if_arg(p, __NR_kill, 0, (uint32_t)self);
    allow_if_arg(p, __NR_tgkill, 0, (uint32_t)self);
    /* a signal's action and the signal stack: read, never changed (the kernel would
     * keep what the allocator wrote there for the next call; the driver set both
     * before the sandbox) */
    allow_if_null(p, __NR_rt_sigaction, 1);
    allow_if_null(p, __NR_sigaltstack, 0);
    /* the signal mask: every call answered as done (SECCOMP_RET_ERRNO with 0: it
     * returns 0) and not done, so the mask stays as the driver left it, where the
     * kernel would keep what an allocator wrote for its next call (scrub.h).
     * abort() and raise() block signals around their kill, which then lands at
     * once: the process still ends. */
    jump(p, BPF_JEQ | BPF_K, __NR_rt_sigprocmask, NULL, &not_mask);
    ret(p, SECCOMP_RET_ERRNO | 0);
    place(p, &not_mask);
    /* getrlimit: the driver reads its stack's limit; changing a limit, or reading
     * another process's, is refused (the parent's are the same user's) */
    jump(p, BPF_JEQ | BPF_K, __NR_prlimit64, NULL, &not_prlimit);
    load_arg(p, 0, false);
    trap_unless(p, 0);
    load_arg(p, 2, false);
    trap_unless(p, 0);
    load_arg(p, 2, true);
    trap_unless(p, 0);
    ret(p, SECCOMP_RET_ALLOW);
    place(p, &not_prlimit);
    /* madvise: MADV_DONTNEED only (the driver drops stack pages; it gives no
     * memory, though it can zero the process's private pages, read-only ones too;
     * on the shared heap it frees nothing).  MADV_REMOVE would free heap pages and
     * hide from the parent's mincore that they were touched: the parent removes
     * them itself. */
    jump_far_unless(p, __NR_madvise, &not_madvise);
    load_arg(p, 2, false);
    trap_unless(p, MADV_DONTNEED);
    ret(p, SECCOMP_RET_ALLOW);
    place(p, &not_madvise);
    /* mprotect: never to execute (an honest allocator has no use for it), and only inside the ranges */
    trap_unless(p, __NR_mprotect);
    load_arg(p, 2, true);
    trap_unless(p, 0);
    load_arg(p, 2, false);
    trap_if_any(p, ~(uint32_t)(PROT_READ | PROT_WRITE));
    allow_in_ranges(p, ranges, n_ranges);
    ret(p, SECCOMP_RET_TRAP);
}

bool sandbox_available(void) { return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0; }

bool sandbox_enter(const sandbox_range_t *mprotect_ok, size_t n_ranges)
{
    if (!sandbox_available())
        return false;
    static prog_t prog;  /* 32 KiB: not on a stack the driver may have limited */
    memset(&prog, 0, sizeof prog);
    build(&prog, mprotect_ok, n_ranges, getpid());
    if (prog.broken)
        return false;
    struct sock_fprog fprog = {.len = (unsigned short)prog.n, .filter = prog.insn};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        return false;
    /* SPEC_ALLOW: a filter would otherwise turn on the store-bypass mitigation on
     * some kernels, slowing the allocator's timed runs but not libc's, timed before. */
    long rc = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, &fprog);
    if (rc && errno == EINVAL)
        rc = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
    if (rc && errno == ENOSYS)
        rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog);
    return rc == 0;
}

#else

bool sandbox_available(void) { return false; }

bool sandbox_enter(const sandbox_range_t *mprotect_ok, size_t n_ranges)
{
    (void)mprotect_ok;
    (void)n_ranges;
    return false;
}

#endif
