/*
 * blocktree.h - the live blocks of a trace, ordered by address.
 *
 * A treap keyed by start address whose nodes are indexed by trace id, so insert,
 * remove and the overlap query are O(log n) expected with no allocation per op.
 * Live blocks never overlap each other (the checker refuses the first that
 * would), so one query answers "does [start, end) touch any live block?": the
 * block with the greatest start below `end` is the only candidate.
 */
#ifndef DRIVER_BLOCKTREE_H
#define DRIVER_BLOCKTREE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uintptr_t start, end; /* [start, end) */
    uint32_t left, right, priority;
} block_node_t;

typedef struct {
    block_node_t *nodes; /* one per id */
    uint32_t root;
    uint32_t count;
} blocktree_t;

enum { BLOCKTREE_NONE = UINT32_MAX };

bool blocktree_init(blocktree_t *t, uint32_t num_ids);
void blocktree_destroy(blocktree_t *t);
void blocktree_insert(blocktree_t *t, uint32_t id, uintptr_t start, uintptr_t end);
void blocktree_remove(blocktree_t *t, uint32_t id);
/* The id of a live block sharing a byte with [start, end), or BLOCKTREE_NONE. */
uint32_t blocktree_overlap(const blocktree_t *t, uintptr_t start, uintptr_t end);

#endif
