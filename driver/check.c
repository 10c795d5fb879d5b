/*
 * check.c - the correctness pass (contract in check.h), run in the parent.
 *
 * Per op: ask the child for the allocator call (remote.h), then check the result
 * against the ledger of live blocks (ledger.h) and the fill pattern (fill.h),
 * on the heap the parent shares with the child.  The first problem ends the pass
 * with a verdict naming the op, the addresses and what was expected.  Nothing of
 * this is in the child's memory: the allocator can neither read ahead in the
 * trace nor touch the checker's state.
 */
#include "driver/check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/fill.h"
#include "driver/heap.h"
#include "driver/hooks.h"
#include "driver/ledger.h"
#include "driver/pages.h"
#include "driver/remote.h"
#include "memlib.h"
#include "mm.h"

enum { SLACK_CHECKED_PER_OP = 64 };

typedef struct {
    const trace_t *t;
    remote_t *rc;
    uintptr_t lo;        /* the heap's low end, the same in the child and here */
    size_t brk;          /* the break after the last call, bytes above lo */
    size_t high_water;   /* the highest break of this run, memlib's mark */
    uintptr_t violation; /* a canary mem_sbrk found overwritten */
    bool run_checker, checker_ok;
    ledger_t live;       /* the live blocks */
    verdict_t *v;
    placements_t *pl;
    int64_t at;        /* current op; -1 after the last */
    char op[64];       /* what here() last wrote */
} checker_t;

/* "op 12 (a 3 4072)": where a message happened, formatted only when one is written. */
static const char *here(checker_t *c) { return op_where(c->t, c->at, c->op, sizeof c->op); }

/* mm_checkheap after op c->at, as a call of its own: a crash, a loop or an exit
 * in it is then said to be the checker's, not the op's.  It runs once the op is
 * over, its payload written, so that a block too small for its request (whose
 * payload covers the allocator's own words) fails at its own op.  The checker
 * must leave the heap as it found it: a break it moved fails here, before it can
 * pass for the op's or mm_init's doing. */
static bool check_heap(checker_t *c)
{
    if (!c->run_checker || c->at < 0)
        return true;
    progress_at(PASS_CHECKHEAP, c->at);
    call_t k = {.kind = CALL_CHECKHEAP, .op = c->at};
    answer_t a;
    if (!remote_call(c->rc, &k, &a))
        return verdict_fail(c->v, OUTCOME_CRASHED, c->at, "the trace's process ended in mm_checkheap after %s", here(c));
    progress_at(PASS_CHECK, c->at);
    size_t brk = a.brk <= heap_max() ? (size_t)a.brk : heap_max();
    if (brk != c->brk)
        return verdict_fail(c->v, OUTCOME_CHECKER_FAILED, c->at,
                            "%s: mm_checkheap(%" PRId64 ") moved the break from %#" PRIxPTR " to %#" PRIxPTR
                            " (did it call mem_sbrk?): a checker must leave the heap as it found it",
                            here(c), c->at, c->lo + c->brk, c->lo + brk);
    c->checker_ok &= a.checker_ok;
    return true;
}

/* The allocator call for op c->at, in the child; false when the child is gone or
 * the break fell below a live block. */
static bool call(checker_t *c, call_kind_t kind, uintptr_t ptr, size_t size, uintptr_t *result)
{
    call_t k = {.kind = kind, .op = c->at, .ptr = ptr, .size = size};
    answer_t a;
    if (!remote_call(c->rc, &k, &a))
        return verdict_fail(c->v, OUTCOME_CRASHED, c->at, "the trace's process ended during %s", here(c));
    size_t before = c->brk;
    c->brk = a.brk <= heap_max() ? (size_t)a.brk : heap_max();
    /* memlib's own mark, not only the break at return: a call may grow the heap
     * and empty it again (mem_sbrk, then mem_reset_brk). */
    size_t high = a.high_water <= heap_max() ? (size_t)a.high_water : heap_max();
    if (high < c->brk)
        high = c->brk;
    if (high > c->high_water)
        c->high_water = high;
    if (a.violation && !c->violation)
        c->violation = a.violation;
    if (result)
        *result = a.result;
    heap_span_t h = {.lo = c->lo, .brk = c->brk, .max = heap_max()};
    return c->brk >= before || ledger_check_break(&c->live, h, c->t, c->at, c->v);
}

/* Is the block p of `size` bytes, just returned for op c->at, acceptable? */
static bool check_new_block(checker_t *c, uintptr_t p, size_t size)
{
    heap_span_t h = {.lo = c->lo, .brk = c->brk, .max = heap_max()};
    return ledger_check_block(&c->live, h, c->t, c->at, p, size, c->v);
}

static bool check_payload(checker_t *c, uint32_t id, size_t len, const char *when)
{
    const ledger_entry_t *e = &c->live.entry[id];
    if (!e->p)
        return true;
    size_t bad = verify_payload((const unsigned char *)e->p, len, e->seed);
    if (bad == len)
        return true;
    return verdict_fail(c->v, OUTCOME_PAYLOAD_CORRUPTED, c->at,
                        "%s: the payload of id %u (%zu bytes at %#" PRIxPTR ", from op %" PRId64 ") changed at byte %zu "
                        "(%#" PRIxPTR "): expected 0x%02x, found 0x%02x, %s",
                        here(c), id, e->size, e->p, e->born, bad, e->p + bad, fill_byte(e->seed, bad),
                        ((const unsigned char *)e->p)[bad], when);
}

uint32_t *placements_array(size_t n) { return pages_alloc((n ? n : 1) * sizeof(uint32_t)); }

void placements_array_free(uint32_t *a, size_t n)
{
    (void)n;
    pages_free(a);
}

/* Where op c->at's block landed, for every later run to repeat. */
static bool same_place(checker_t *c, const void *p)
{
    c->pl->offset[c->at] = placement(p, c->lo);
    return true;
}

static bool do_alloc(checker_t *c, const op_t *op)
{
    uintptr_t got;
    if (!call(c, op->kind == OP_ALLOC ? CALL_MALLOC : CALL_REALLOC, 0, op->size, &got))
        return false;
    void *p = (void *)got;
    if (!check_new_block(c, (uintptr_t)p, op->size) || !same_place(c, p))
        return false;
    uint64_t seed = fill_seed(op->id, (uint64_t)c->at);
    if (p)
        fill_payload(p, 0, op->size, seed);
    ledger_add(&c->live, op->id, (uintptr_t)p, op->size, seed, c->at);
    return true;
}

static bool do_free(checker_t *c, const op_t *op)
{
    ledger_entry_t *e = &c->live.entry[op->id];
    if (!check_payload(c, op->id, e->size, "found when it was freed"))
        return false;
    ledger_drop(&c->live, op->id);
    return call(c, CALL_FREE, e->p, 0, NULL);
}

static bool do_realloc(checker_t *c, const op_t *op)
{
    ledger_entry_t old = c->live.entry[op->id];
    if (!check_payload(c, op->id, old.size, "found before it was reallocated"))
        return false;
    ledger_drop(&c->live, op->id);
    uintptr_t got;
    if (!call(c, CALL_REALLOC, old.p, op->size, &got))
        return false;
    void *p = (void *)got;
    if (op->size == 0) {
        /* The contract: free and return NULL.  A block returned anyway is checked
         * like malloc(0)'s and given back at once. */
        if (p && !check_new_block(c, (uintptr_t)p, 0))
            return false;
        if (!same_place(c, p))
            return false;
        /* the timed runs give it back too (measure.c): every op stays comparable */
        return !p || call(c, CALL_FREE, (uintptr_t)p, 0, NULL);
    }
    if (!check_new_block(c, (uintptr_t)p, op->size) || !same_place(c, p))
        return false;
    size_t kept = old.size < op->size ? old.size : op->size;
    ledger_add(&c->live, op->id, (uintptr_t)p, op->size, old.seed, old.born);
    if (old.p && !check_payload(c, op->id, kept, "so mm_realloc did not keep the old contents"))
        return false;
    if (p)
        fill_payload(p, old.p ? kept : 0, op->size, old.seed);
    return true;
}

static bool do_op(checker_t *c, const op_t *op)
{
    switch (op->kind) {
    case OP_ALLOC:
    case OP_REALLOC_NULL:
        return do_alloc(c, op);
    case OP_FREE:
        return do_free(c, op);
    default:
        return do_realloc(c, op);
    }
}

/* The first byte past the break the allocator overwrote (memlib's canary, from
 * the break to the end of its page), checking at most `limit` bytes (0: all). */
static uintptr_t slack_violation(const checker_t *c, size_t limit)
{
    if (c->violation)
        return c->violation;
    uintptr_t brk = c->lo + c->brk, page = mem_pagesize(), end = (brk + page - 1) / page * page;
    if (limit && end - brk > limit)
        end = brk + limit;
    return heap_canary_broken(brk, end);
}

static bool check_slack(checker_t *c, size_t limit)
{
    uintptr_t bad = slack_violation(c, limit);
    if (!bad)
        return true;
    uintptr_t brk = c->lo + c->brk;
    if (bad < brk)  /* mem_sbrk found it as the heap grew over it: the write came earlier */
        return verdict_fail(c->v, OUTCOME_OUT_OF_HEAP, c->at,
                            "%s: the allocator wrote past the heap's end at some earlier op: the byte at %#" PRIxPTR
                            " changed while it lay past the break, found as the heap grew over it (break now %#" PRIxPTR ")",
                            here(c), bad, brk);
    if (bad == brk)  /* "0 bytes past the break" read as no write past it */
        return verdict_fail(c->v, OUTCOME_OUT_OF_HEAP, c->at,
                            "%s: the allocator wrote past the heap's end: the byte at %#" PRIxPTR " (the break "
                            "itself, one past mem_heap_hi()) changed", here(c), bad);
    return verdict_fail(c->v, OUTCOME_OUT_OF_HEAP, c->at,
                        "%s: the allocator wrote past the heap's end: the byte at %#" PRIxPTR " (%" PRIuPTR
                        " bytes past the break %#" PRIxPTR ") changed",
                        here(c), bad, bad - brk, brk);
}

static bool check_end(checker_t *c)
{
    c->at = -1;
    for (uint32_t id = 0; id < c->t->num_ids; id++)
        if (c->live.entry[id].live && !check_payload(c, id, c->live.entry[id].size, "found at the end of the trace"))
            return false;
    return check_slack(c, 0);
}

static bool replay_checked(checker_t *c)
{
    const trace_t *t = c->t;
    for (size_t i = 0; i < t->num_ops; i++) {
        const op_t *op = &t->ops[i];
        c->at = (int64_t)i;
        progress_at(PASS_CHECK, c->at);
        if (!do_op(c, op) || !check_heap(c) || !check_slack(c, SLACK_CHECKED_PER_OP))
            return false;
        if (!remote_payload(c->rc, i, c->live.live_bytes))
            return verdict_fail(c->v, OUTCOME_CRASHED, c->at, "the trace's process ended during %s", here(c));
        if (!c->checker_ok)
            return verdict_fail(c->v, OUTCOME_CHECKER_FAILED, c->at,
                                "%s: mm_checkheap(%zu) %s", here(c), i, checkheap_said_broken());
    }
    return check_end(c);
}

bool check_pass(remote_t *rc, const trace_t *t, bool run_checker, placements_t *pl, size_t *high_water, verdict_t *v)
{
    checker_t c = {.t = t, .rc = rc, .lo = heap_shared_lo(), .run_checker = run_checker && has_checkheap(),
                   .checker_ok = true, .v = v, .pl = pl, .at = -1};
    pl->with_checker = c.run_checker;
    if (!ledger_open(&c.live, t->num_ids))
        return verdict_fail(v, OUTCOME_CRASHED, -1, "the driver ran out of memory for %u ids", t->num_ids);
    progress_at(PASS_INIT, -1);   /* a death before the first op is mm_init's */
    uintptr_t result;
    bool ok = call(&c, CALL_INIT, 0, 0, &result);
    int status = ok ? (int)(intptr_t)result : 0;
    char said[80];
    ok = ok && (status == 0 ? replay_checked(&c)
                            : verdict_fail(v, OUTCOME_INIT_FAILED, -1, "mm_init returned %s before the first op",
                                           init_failure(status, said, sizeof said)));
    *high_water = c.high_water;
    ledger_close(&c.live);
    return ok;
}
