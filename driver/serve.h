/*
 * serve.h - the trace's child: it answers the parent's calls, and decides nothing.
 *
 * Forked by child.c, it sets its process up before any allocator code runs
 * (fds, fault handlers, the sandbox for an allocator's child), moves onto the
 * stack the parent mapped for it, and from then on performs one call at a
 * time (channel.h): an allocator call, a replay, a timed run.  After each call
 * it clears what the call left outside the heap that the parent's audit would
 * not see (audit.h, scrub.h).
 */
#ifndef DRIVER_SERVE_H
#define DRIVER_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/channel.h"
#include "driver/measure.h"

/* Never returns.  stack_lo: the stack to serve on (stack_len bytes), or NULL
 * for the process's own (sanitizer builds). */
_Noreturn void serve_calls(const channel_t *ch, int output_fd, const timed_arrays_t *ta, bool allocator,
                           void *stack_lo, size_t stack_len);

/* The fields the serving child changes, at the same addresses in the parent:
 * their number, at most AUDIT_SPANS. */
size_t serve_mutable_spans(const void *lo[], size_t len[]);

#endif
