/*
 * trace.h - a trace file, read and validated into an array of ops.
 *
 * Format (.rep, optionally gzip-compressed):
 *   header: four non-negative integers.  Classic order: suggested heap size
 *           (ignored), ids, ops, weight.  64-bit-lab order: weight, ids, ops, peak
 *           bytes.  A first number <= 3 means the 64-bit-lab order.
 *   ops:    `a ID SIZE` malloc, `f ID` free, `r ID SIZE` realloc of a live id
 *           (`r ID 0` frees it), `n ID SIZE` realloc(NULL, SIZE).
 *   Blank lines and `#` comments anywhere.
 * Everything the replay relies on is checked here (ids in range, liveness, sizes,
 * op count), so the passes never meet an impossible op.
 */
#ifndef DRIVER_TRACE_H
#define DRIVER_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { OP_ALLOC, OP_FREE, OP_REALLOC, OP_REALLOC_NULL } op_kind_t;

typedef struct {
    uint32_t kind; /* op_kind_t */
    uint32_t id;
    size_t size;
} op_t;

/* The most bytes a trace file may hold, or unpack to: 256 MiB.  The longest op
 * line, `r 67108863 4294967296` and its end, is under 32 bytes, so this holds
 * over 8 million ops of the longest form (a million-op recorded trace is about
 * 15 MB, the suite's largest 0.9 MB); a gzip bomb stops here. */
static const size_t TRACE_MAX_BYTES = (size_t)256 << 20;

/* A message of trace_load names the file by its path as shown (shown.h), at most
 * TRACE_PATH_SHOWN bytes of it, then the line and what is wrong, which for a missing
 * file may name another path ("did you mean x.rep?"): TRACE_ERROR_MAX bytes hold all
 * of it, so that a long path never cuts off the line or the reason. */
enum { TRACE_PATH_SHOWN = 1024, TRACE_ERROR_MAX = 2 * TRACE_PATH_SHOWN + 256 };

/* The room for a trace's name (tracename.h): a file's own name, at most NAME_MAX (255)
 * bytes, always fits, so two files of one folder are never cut to one name. */
enum { TRACE_NAME_MAX = 256 };

/* What a trace's weight asks for. */
enum { WEIGHT_CHECK_ONLY = 0, WEIGHT_BOTH = 1, WEIGHT_UTIL_ONLY = 2, WEIGHT_THROUGHPUT_ONLY = 3 };

typedef struct {
    const char *path;   /* as given on the command line */
    char name[TRACE_NAME_MAX]; /* file name without .rep / .rep.gz, or a pipe's (tracename.h) */
    int weight;
    uint32_t num_ids;
    size_t num_ops;
    op_t *ops;
} trace_t;

/* Read and validate a trace.  On a problem, writes "FILE:LINE: what" to err
 * and returns false; a size above max_size (the run's heap) is refused as too
 * big for that heap, not as a malformed file, and one above HEAP_LIMIT (heap.h)
 * as too big for any heap.  An interrupt noted in the driver (interrupt.h) stops
 * the read and the parse, false too. */
bool trace_load(const char *path, size_t max_size, trace_t *trace, char *err, size_t errlen);
void trace_free(trace_t *trace);
/* path names a regular file (a link followed): a trace read whole, not a pipe. */
bool trace_is_regular(const char *path);

/* A 64-bit digest of the ops (kind, id and size of each, in order): what libc's
 * timing of the trace depends on.  A baseline keeps it beside each timing, so a
 * trace whose ops changed under the same name and op count is not timed by the
 * old one (baseline.h). */
uint64_t trace_fingerprint(const trace_t *t);
/* The op as it is written in a trace, e.g. "r 7 4096". */
void op_describe(const op_t *op, char *buf, size_t len);
/* Where in t a message is about: "op 12 (a 3 4072)", or "after the last op" for
 * at < 0; written to buf, which it returns. */
const char *op_where(const trace_t *t, int64_t at, char *buf, size_t len);

static inline bool trace_scores_util(const trace_t *t)
{
    return t->weight == WEIGHT_BOTH || t->weight == WEIGHT_UTIL_ONLY;
}

static inline bool trace_scores_throughput(const trace_t *t)
{
    return t->weight == WEIGHT_BOTH || t->weight == WEIGHT_THROUGHPUT_ONLY;
}

#endif
