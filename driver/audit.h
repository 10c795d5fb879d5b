/*
 * audit.h - the parent's audit of the child's memory outside the heap.
 *
 * Utilization counts only the heap, so an allocator that kept its metadata
 * anywhere else in its process (its stack, libc's data, the driver's) would
 * score near the ideal.  The parent watches all of the child's writable memory:
 *
 *   - private memory (the driver's, libc's and the loader's data, libc's heap,
 *     the start-up stack): copied once before mm_init, then compared with the
 *     copy at audits; a difference is `tampered`.  Not compared: the allocator's
 *     own globals (the linker brackets them with driver/mark/; the grader's
 *     writable-data rule bounds them) and thread-local variables, memlib's
 *     state, the few bytes libc, the kernel and the driver change while serving
 *     calls (stdout's FILE, errno, rseq, the child's channel counters);
 *   - the stack the child serves calls on is shared with the parent, which
 *     empties its dead part before each audit and each timed run (child.c);
 *   - the channel's and the progress page's unused bytes: must stay zero.
 *
 * After each call the child itself clears the dead frames just below its
 * serving loop (serve.c) and the processor state a call could leave for the
 * next (scrub.h).
 *
 * Audits fall at a random op in every window of the first checked run (AUDIT_WINDOW
 * ops, or 1/AUDITS_PER_RUN of a longer run: an audit costs about 45 us), at each
 * op where the live payload has grown a random 3-6% past the last such audit's,
 * at the op where the payload is highest in each of AUDIT_PEAKS equal spans of
 * the run, the trace's peak among them (metadata kept out only around the peaks,
 * where it pays, is seen there), at the run's end and after every replay.  The
 * child cannot tell when: it has not seen the trace, so it cannot know an op for
 * a peak.  Metadata it keeps outside the heap for good is seen, or lost, at the
 * first audit; metadata it keeps out only for a while, away from the peaks,
 * escapes an audit with a chance that falls as that while grows.  Not in AddressSanitizer
 * builds (ASan's shadow memory changes everywhere): audit_open returns NULL.
 */
#ifndef DRIVER_AUDIT_H
#define DRIVER_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { AUDIT_WINDOW = 512, AUDITS_PER_RUN = 256, AUDIT_SPANS = 8 };
/* Payload audits: from PAYLOAD_FLOOR bytes on, each mark 1/PAYLOAD_STEP_DIV to
 * 2/PAYLOAD_STEP_DIV above the payload at the last.  Measured on the suite
 * (`-r 1 -t traces`, best, against the driver before the audit): +12% wall time
 * without payload audits, +14% with marks 3-6% apart, +22% with 1.6-3%. */
enum { PAYLOAD_FLOOR = 16 << 10, PAYLOAD_STEP_DIV = 32 };
/* Peak audits: the spans a run's highest payloads are taken from. */
enum { AUDIT_PEAKS = 32 };

typedef struct audit audit_t;

/* What the parent knows of the child beyond its memory map. */
typedef struct {
    pid_t pid;
    const void *zero[AUDIT_SPANS];     /* bytes of shared pages that must stay zero */
    size_t zero_len[AUDIT_SPANS];
    const void *serving[AUDIT_SPANS];  /* the fields the serving child changes: not compared */
    size_t serving_len[AUDIT_SPANS];
} audit_child_t;

/* Can this build, here, audit a child?  Not in AddressSanitizer builds, with a
 * /proc of another pid namespace, or where Yama lets only root read a child's
 * memory (ptrace_scope 2 or 3).  For `mdriver --describe`. */
bool audit_available(void);
/* MDRIVER_AUDIT_WINDOW (audit at least every N ops of the first checked run, for
 * tests) when set to anything but a whole number from 1 to AUDIT_WINDOW, else NULL:
 * checked before any trace, since a value that were ignored would test less than meant. */
const char *audit_window_unknown_setting(void);

/* Copy the child's private memory as it is now (the child idle, before mm_init),
 * for a first checked run of `ops` calls whose payload peaks at the n_peaks ops
 * (ascending) of `peaks` (measure.h: payload_peaks).
 * NULL when auditing is not available in this build; *err says why when it
 * should have been and could not (no /proc, no permission). */
audit_t *audit_open(const audit_child_t *child, size_t ops, const size_t *peaks, size_t n_peaks, char *err,
                    size_t err_len);
void audit_close(audit_t *a);

/* After each checked call: true when this op is the window's audit. */
bool audit_due(audit_t *a);
/* After checked op `op`: true when it is one of the peaks, or when the live
 * payload passed the next of a ladder of marks (from PAYLOAD_FLOOR, each a
 * random 3-6% above the payload at the last): about 50 per tenfold. */
bool audit_payload_due(audit_t *a, size_t op, uint64_t live_bytes);

/* Compare the child's memory with the copy (the child idle); false with a
 * description of the first change in msg. */
bool audit_check(audit_t *a, char *msg, size_t msg_len);

#endif
