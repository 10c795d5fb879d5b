/*
 * assert.c - assert() in the trace's process without glibc's mmap.
 *
 * glibc's __assert_fail maps a page for its message (kept for a core dump): a
 * system call the sandbox refuses (sandbox.h), so an allocator's failing assert
 * was reported as "it made the system call mmap". This one writes the same line
 * in one write and aborts, which the sandbox allows: the trace crashes with
 * SIGABRT and the assertion is in its output. The Makefile keeps the name global
 * in mdriver.r.o, so that mm.c's asserts (and memlib.c's) call this one.
 */
#define _GNU_SOURCE
#undef NDEBUG               /* assert.h declares __assert_fail only without it */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function)
{
    char msg[1024];
    int n = snprintf(msg, sizeof msg, "%s: %s:%u: %s%sAssertion `%s' failed.\n", program_invocation_short_name,
                     file, line, function ? function : "", function ? ": " : "", assertion);
    if (n > 0)
        (void)!write(STDERR_FILENO, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    abort();
}
