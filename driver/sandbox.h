/*
 * sandbox.h - the system calls the trace's process may make once allocator code runs.
 *
 * An allocator needs none: it gets memory from mem_sbrk and writes nothing but
 * the heap.  A cheating one would open the trace file, keep its metadata in an
 * mmap'd region the checks never see, make driver pages writable, or signal the
 * parent.  sandbox_enter installs a seccomp filter that lets through only what
 * the driver and glibc need (stdio, clocks, sleeps, signals to the process
 * itself, abort, reading its own resource limits, reading a signal's action and
 * the signal stack; rt_sigprocmask returns 0 and leaves the mask as it is, so
 * that no call can keep bits there for the next: scrub.h) and, for the driver's own
 * memory, mprotect inside the ranges it is given and madvise(MADV_DONTNEED)
 * anywhere (never MADV_REMOVE, which frees a shared page and so hides that it
 * was touched: the parent removes heap pages itself).  Any other call raises SIGSYS, si_syscall the
 * call's number: a handler that returns resumes after the call (which failed
 * with ENOSYS), so a handler that records the number must re-raise SIGSYS.
 */
#ifndef DRIVER_SANDBOX_H
#define DRIVER_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uintptr_t lo;
    size_t len;
} sandbox_range_t;

/* Install the filter for this process and every process it could start (none:
 * fork is refused).  mprotect is allowed on pages wholly inside one of the
 * ranges (each shrunk to whole pages), to read and write, never to execute.
 * False, with no filter installed (no_new_privs may be set), where the kernel or
 * the architecture has no seccomp filters, where the ranges make a filter longer
 * than the kernel takes (past about 110 ranges), and always in AddressSanitizer
 * builds (ASan maps memory of its own as the program runs) and in builds with
 * MDRIVER_SECCOMP_OFF (make DRIVER_SECCOMP=off, for the grader's tests); the
 * caller then runs unsandboxed. */
bool sandbox_enter(const sandbox_range_t *mprotect_ok, size_t n_ranges);

/* Whether sandbox_enter can install its filter here: this build has one and the
 * kernel has seccomp (`mdriver --describe` says so, for the grader's records). */
bool sandbox_available(void);

/* The name of a system call an allocator might try ("mmap"), or NULL. */
const char *sandbox_syscall_name(int nr);

/* The clause the driver appends to a SIGSYS crash message, for system call nr:
 * what was refused and why, one line starting ": it made".  It fits in
 * SANDBOX_DESCRIBE_BYTES (NUL included); a smaller buf cuts it short. */
enum { SANDBOX_DESCRIBE_BYTES = 256 };
void sandbox_describe(int nr, char *buf, size_t len);

#endif
