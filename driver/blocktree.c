/* blocktree.c - treap of live blocks (see blocktree.h). */
#include "driver/blocktree.h"

#include "driver/pages.h"

static inline uint32_t priority_of(uint32_t id)
{
    uint64_t x = id * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31;
    return (uint32_t)(x * 0xBF58476D1CE4E5B9ull >> 32);
}

bool blocktree_init(blocktree_t *t, uint32_t num_ids)
{
    t->nodes = pages_alloc((num_ids ? num_ids : 1) * sizeof *t->nodes);
    t->root = BLOCKTREE_NONE;
    t->count = 0;
    return t->nodes != NULL;
}

void blocktree_destroy(blocktree_t *t)
{
    pages_free(t->nodes);
    t->nodes = NULL;
}

/* Split the subtree at `root` into keys < key (left) and >= key (right). */
static void split(block_node_t *n, uint32_t root, uintptr_t key, uint32_t *left, uint32_t *right)
{
    uint32_t *l = left, *r = right;
    while (root != BLOCKTREE_NONE) {
        if (n[root].start < key) {
            *l = root;
            l = &n[root].right;
            root = n[root].right;
        } else {
            *r = root;
            r = &n[root].left;
            root = n[root].left;
        }
    }
    *l = *r = BLOCKTREE_NONE;
}

/* Join two subtrees where every key of a is below every key of b. */
static uint32_t join(block_node_t *n, uint32_t a, uint32_t b)
{
    uint32_t root = BLOCKTREE_NONE, *link = &root;
    while (a != BLOCKTREE_NONE && b != BLOCKTREE_NONE) {
        if (n[a].priority > n[b].priority) {
            *link = a;
            link = &n[a].right;
            a = n[a].right;
        } else {
            *link = b;
            link = &n[b].left;
            b = n[b].left;
        }
    }
    *link = a != BLOCKTREE_NONE ? a : b;
    return root;
}

void blocktree_insert(blocktree_t *t, uint32_t id, uintptr_t start, uintptr_t end)
{
    block_node_t *n = t->nodes;
    n[id] = (block_node_t){start, end, BLOCKTREE_NONE, BLOCKTREE_NONE, priority_of(id)};
    uint32_t *link = &t->root;
    while (*link != BLOCKTREE_NONE && n[*link].priority > n[id].priority)
        link = start < n[*link].start ? &n[*link].left : &n[*link].right;
    split(n, *link, start, &n[id].left, &n[id].right);
    *link = id;
    t->count++;
}

void blocktree_remove(blocktree_t *t, uint32_t id)
{
    block_node_t *n = t->nodes;
    uint32_t *link = &t->root;
    while (*link != id && *link != BLOCKTREE_NONE)
        link = n[id].start < n[*link].start ? &n[*link].left : &n[*link].right;
    if (*link == BLOCKTREE_NONE)
        return;
    *link = join(n, n[id].left, n[id].right);
    t->count--;
}

uint32_t blocktree_overlap(const blocktree_t *t, uintptr_t start, uintptr_t end)
{
    const block_node_t *n = t->nodes;
    uint32_t best = BLOCKTREE_NONE;
    for (uint32_t at = t->root; at != BLOCKTREE_NONE;) {
        if (n[at].start < end) {
            best = at;
            at = n[at].right;
        } else {
            at = n[at].left;
        }
    }
    return best != BLOCKTREE_NONE && n[best].end > start ? best : BLOCKTREE_NONE;
}
