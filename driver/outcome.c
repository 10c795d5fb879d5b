/* outcome.c - names and plain-words explanations of trace outcomes, and verdicts. */
#include "driver/outcome.h"

#include <stdarg.h>
#include <stdio.h>

static const struct {
    const char *name;
    const char *explanation;
} outcomes[OUTCOME_COUNT] = {
    [OUTCOME_OK] = {"ok", "every result was checked and correct"},
    [OUTCOME_MISALIGNED] = {"misaligned", "a returned pointer was not a multiple of the required alignment"},
    [OUTCOME_OUT_OF_HEAP] = {"out_of_heap", "a block, or a write, reached outside the simulated heap"},
    [OUTCOME_OVERLAP] = {"overlap", "a new block shared bytes with a block that was still allocated"},
    [OUTCOME_PAYLOAD_CORRUPTED] = {"payload_corrupted", "bytes the program stored in an allocated block changed, or realloc lost them"},
    [OUTCOME_ALLOC_FAILED] = {"alloc_failed", "mm_malloc or mm_realloc returned NULL for a request that should have succeeded"},
    [OUTCOME_INIT_FAILED] = {"init_failed", "mm_init reported failure"},
    [OUTCOME_CHECKER_FAILED] = {"checker_failed", "the allocator's own mm_checkheap reported a broken heap"},
    [OUTCOME_CRASHED] = {"crashed", "the allocator crashed (a signal such as a segmentation fault or abort)"},
    [OUTCOME_TIMEOUT] = {"timeout", "the trace did not finish within the time limit"},
    [OUTCOME_EXITED] = {"exited", "the allocator ended the process (exit) in the middle of the trace"},
    [OUTCOME_BAD_TRACE] = {"bad_trace", "the trace file is malformed, or needs more than the maximum heap (-M), so it was skipped"},
    [OUTCOME_TAMPERED] = {"tampered", "the heap pages the allocator touched reach past the break the driver was "
                                      "told of: memlib's state was changed, or pages past the break opened"},
    [OUTCOME_INCONSISTENT] = {"inconsistent", "the same ops from mm_init gave blocks at other places than in the "
                                              "first correctness run (in the second, or when timed)"},
};

const char *outcome_name(outcome_t o)
{
    return o < OUTCOME_COUNT ? outcomes[o].name : "unknown";
}

const char *outcome_explanation(outcome_t o)
{
    return o < OUTCOME_COUNT ? outcomes[o].explanation : "unknown outcome";
}

bool verdict_fail(verdict_t *v, outcome_t outcome, int64_t op_index, const char *fmt, ...)
{
    v->outcome = outcome;
    v->op_index = op_index;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, ap);
    va_end(ap);
    return false;
}
