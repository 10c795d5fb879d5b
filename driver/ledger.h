/*
 * ledger.h - the live blocks of a run, and the cheap checks of each new one.
 *
 * Every block an allocator returns must be NULL only for a 0-byte request
 * (alloc_failed), a multiple of MM_ALIGNMENT (misaligned), wholly inside
 * [heap lo, break) (out_of_heap) and share no byte with a live block (overlap;
 * a 0-byte block counts as one byte, but may sit at the break: a header-only
 * block, as the starter mm.c and the classic handout's naive one return).
 * mdriver's checker (check.c, which adds the payload checks) and mmreplay
 * (replay.c) keep their live blocks here and judge each new block with
 * ledger_check_block, and each fall of the break with ledger_check_break, so
 * both say the same thing in the same words.
 */
#ifndef DRIVER_LEDGER_H
#define DRIVER_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/blocktree.h"
#include "driver/outcome.h"
#include "driver/trace.h"

typedef struct {
    uintptr_t p;
    size_t size;
    uint64_t seed;  /* its fill pattern (fill.h); 0 where payloads are not filled */
    int64_t born;   /* op that created it */
    bool live;
} ledger_entry_t;

typedef struct {
    ledger_entry_t *entry; /* by id */
    blocktree_t tree;      /* the live blocks that are not NULL, by address */
    uint64_t live_bytes;   /* the payload of the live blocks */
} ledger_t;

/* The heap as a check sees it after a call: [lo, lo + brk), at most max bytes. */
typedef struct {
    uintptr_t lo;
    size_t brk, max;
} heap_span_t;

/* Room for ids 0..num_ids-1; false when out of memory (nothing to close then). */
bool ledger_open(ledger_t *l, uint32_t num_ids);
void ledger_close(ledger_t *l);
void ledger_add(ledger_t *l, uint32_t id, uintptr_t p, size_t size, uint64_t seed, int64_t born);
/* The id is no longer live; its entry keeps the block (a realloc's check names it). */
void ledger_drop(ledger_t *l, uint32_t id);

/* Is block p of `size` bytes, just returned for op `at` of t, acceptable on heap h?
 * False with *v filled (the outcome and a message naming the op) when not. */
bool ledger_check_block(const ledger_t *l, heap_span_t h, const trace_t *t, int64_t at, uintptr_t p, size_t size,
                        verdict_t *v);

/* After a call that lowered the break (only mem_reset_brk or mem_init do): no
 * live block may lie past it now.  False with *v (out_of_heap, naming op `at`
 * and one such block) when one does. */
bool ledger_check_break(const ledger_t *l, heap_span_t h, const trace_t *t, int64_t at, verdict_t *v);

/* The bytes a block of `size` occupies as far as overlap goes: at least one. */
static inline size_t footprint(size_t size) { return size ? size : 1; }

#endif
