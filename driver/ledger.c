/* ledger.c - the live blocks of a run and the checks of a new block (see ledger.h). */
#include "driver/ledger.h"

#include <inttypes.h>
#include <stdio.h>

#include "config.h"
#include "driver/pages.h"

bool ledger_open(ledger_t *l, uint32_t num_ids)
{
    *l = (ledger_t){.entry = pages_alloc((num_ids ? num_ids : 1) * sizeof *l->entry)};
    if (l->entry && blocktree_init(&l->tree, num_ids))
        return true;
    pages_free(l->entry);
    return false;
}

void ledger_close(ledger_t *l)
{
    blocktree_destroy(&l->tree);
    pages_free(l->entry);
    l->entry = NULL;
}

void ledger_add(ledger_t *l, uint32_t id, uintptr_t p, size_t size, uint64_t seed, int64_t born)
{
    l->entry[id] = (ledger_entry_t){p, size, seed, born, true};
    l->live_bytes += size;
    if (p)
        blocktree_insert(&l->tree, id, p, p + footprint(size));
}

void ledger_drop(ledger_t *l, uint32_t id)
{
    if (l->entry[id].p)
        blocktree_remove(&l->tree, id);
    if (l->entry[id].live)
        l->live_bytes -= l->entry[id].size;
    l->entry[id].live = false;
}

/* [p, p + len) inside [lo, break)? */
static inline bool in_heap(heap_span_t h, uintptr_t p, size_t len)
{
    return p >= h.lo && p - h.lo <= h.brk && len <= h.brk - (p - h.lo);
}

/* The call as the allocator got it: mm_malloc(64), mm_realloc(NULL, 32),
 * mm_realloc(0x..., 64).  A realloc's old block is its id's entry, which
 * ledger_drop left in place just before the call. */
static const char *call_text(const ledger_t *l, const op_t *op, size_t size, char *buf, size_t len)
{
    uintptr_t old = op->kind == OP_REALLOC ? l->entry[op->id].p : 0;
    if (op->kind == OP_ALLOC)
        snprintf(buf, len, "mm_malloc(%zu)", size);
    else if (!old)
        snprintf(buf, len, "mm_realloc(NULL, %zu)", size);
    else
        snprintf(buf, len, "mm_realloc(%#" PRIxPTR ", %zu)", old, size);
    return buf;
}

/* 8 bytes off in a 16-byte build: a classic handout, or a 16-byte allocator's layout one
 * word off; the hint must not send the second to ALIGNMENT=8, which only hides it. */
static const char WORD_OFF_HINT[] = " (an 8-byte-aligned handout? build with make ALIGNMENT=8; an allocator meant "
                                    "for 16 has its payload one 8-byte word off, e.g. a missing padding word before "
                                    "the first header)";

bool ledger_check_block(const ledger_t *l, heap_span_t h, const trace_t *t, int64_t at, uintptr_t p, size_t size,
                        verdict_t *v)
{
    char where[64], called[64];
    const op_t *op = &t->ops[at];
    if (p == 0) {
        if (size == 0)
            return true;
        /* A realloc's old block is still the caller's when it fails; ledger_drop took it out. */
        uint64_t live = l->live_bytes + (op->kind == OP_REALLOC ? l->entry[op->id].size : 0);
        size_t room = h.max - h.brk;
        if (room >= size)
            return verdict_fail(v, OUTCOME_ALLOC_FAILED, at,
                                "%s: %s returned NULL although the heap could still grow by %zu bytes",
                                op_where(t, at, where, sizeof where), call_text(l, op, size, called, sizeof called),
                                room);
        /* Said so when nothing else is live: "too little holds live data" would blame a heap
         * the request alone fills. */
        if (size >= h.max)
            return verdict_fail(v, OUTCOME_ALLOC_FAILED, at,
                                "%s: %s returned NULL: the request alone is %zu bytes of a %zu-byte heap, "
                                "leaving no room for the allocator's own data", op_where(t, at, where, sizeof where),
                                call_text(l, op, size, called, sizeof called), size, h.max);
        /* Nor of a trace that asks for more live bytes than the heap holds: no allocator can. */
        uint64_t needed = live - (op->kind == OP_REALLOC ? l->entry[op->id].size : 0) + size;
        if (needed > h.max)
            return verdict_fail(v, OUTCOME_ALLOC_FAILED, at,
                                "%s: %s returned NULL: with it %" PRIu64 " bytes would be live, more than the "
                                "%zu-byte heap holds, so no allocator could serve it (the trace needs a larger -M)",
                                op_where(t, at, where, sizeof where), call_text(l, op, size, called, sizeof called),
                                needed, h.max);
        if (live == 0)
            return verdict_fail(v, OUTCOME_ALLOC_FAILED, at,
                                "%s: %s returned NULL with nothing else live: the heap reached its %zu-byte "
                                "limit, of which the request is %zu bytes", op_where(t, at, where, sizeof where),
                                call_text(l, op, size, called, sizeof called), h.max, size);
        return verdict_fail(v, OUTCOME_ALLOC_FAILED, at,
                            "%s: %s returned NULL: the heap reached its %zu-byte limit with %" PRIu64 " bytes "
                            "live (too little of it holds live data)", op_where(t, at, where, sizeof where),
                            call_text(l, op, size, called, sizeof called), h.max, live);
    }
    if (p == (uintptr_t)(void *)-1)  /* "not a multiple of 16" sent the student to the alignment code */
        return verdict_fail(v, OUTCOME_MISALIGNED, at, "%s: %s returned %#" PRIxPTR ", (void *)-1: mem_sbrk's failure "
                            "value; %s returns NULL when it cannot serve a request", op_where(t, at, where, sizeof where),
                            call_text(l, op, size, called, sizeof called), p,
                            op->kind == OP_ALLOC ? "mm_malloc" : "mm_realloc");
    if (p % MM_ALIGNMENT)
        return verdict_fail(v, OUTCOME_MISALIGNED, at, "%s: %s returned %#" PRIxPTR ", which is not a multiple of %d%s",
                            op_where(t, at, where, sizeof where), call_text(l, op, size, called, sizeof called), p,
                            MM_ALIGNMENT, MM_ALIGNMENT > 8 && p % 8 == 0 ? WORD_OFF_HINT : "");
    if (!in_heap(h, p, size)) {
        uintptr_t brk = h.lo + h.brk;
        if (p < h.lo || p > brk)
            return verdict_fail(v, OUTCOME_OUT_OF_HEAP, at,
                                "%s: %s returned %#" PRIxPTR ", outside the heap [%#" PRIxPTR ", %#" PRIxPTR ")",
                                op_where(t, at, where, sizeof where), call_text(l, op, size, called, sizeof called), p,
                                h.lo, brk);
        return verdict_fail(v, OUTCOME_OUT_OF_HEAP, at,
                            "%s: %s returned %#" PRIxPTR ", a block which ends %zu byte%s past the break %#" PRIxPTR,
                            op_where(t, at, where, sizeof where), call_text(l, op, size, called, sizeof called), p,
                            p + size - brk, p + size - brk == 1 ? "" : "s", brk);
    }
    uint32_t other = blocktree_overlap(&l->tree, p, p + footprint(size));
    if (other != BLOCKTREE_NONE) {
        const ledger_entry_t *o = &l->entry[other];
        return verdict_fail(v, OUTCOME_OVERLAP, at,
                            "%s: %s returned [%#" PRIxPTR ", %#" PRIxPTR "), which overlaps id %u's live block "
                            "[%#" PRIxPTR ", %#" PRIxPTR ") from op %" PRId64,
                            op_where(t, at, where, sizeof where), call_text(l, op, size, called, sizeof called), p,
                            p + footprint(size), other,
                            o->p, o->p + footprint(o->size), o->born);
    }
    return true;
}

/* Its bytes would be over memlib's canary, and the next check of its payload
 * would blame a scribble. */
bool ledger_check_break(const ledger_t *l, heap_span_t h, const trace_t *t, int64_t at, verdict_t *v)
{
    uintptr_t brk = h.lo + h.brk;
    uint32_t id = blocktree_overlap(&l->tree, brk, UINTPTR_MAX);
    if (id == BLOCKTREE_NONE)
        return true;
    const ledger_entry_t *e = &l->entry[id];
    char where[64];
    return verdict_fail(v, OUTCOME_OUT_OF_HEAP, at,
                        "%s: the break fell to %#" PRIxPTR " (%zu bytes above the heap's start), below id %u's live "
                        "block [%#" PRIxPTR ", %#" PRIxPTR ") from op %" PRId64 ": the heap must not shrink under live "
                        "blocks (did the allocator call mem_reset_brk or mem_init?)",
                        op_where(t, at, where, sizeof where), brk, h.brk, id, e->p, e->p + footprint(e->size), e->born);
}
