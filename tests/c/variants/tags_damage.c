/*
 * tags_damage.c - each layer of the tags-core checker (variants/tags-core.h)
 * sees the damage that only it can see.
 *
 * corrupt.c damages a heap through its bytes alone; this includes one variant
 * whole (-DVARIANT_SRC='"variants/explicit-lifo.c"') to reach its state, and
 * makes one kind of damage per case, consistent everywhere but in the one
 * invariant the case is about: a footer alone, a BLK_PREV_ALLOC bit in header
 * and footer, a free block taken off its list with the counts kept, ...  Had a
 * check been dropped, another layer would not have stood in for it.
 *
 *   tags-damage CASE     exit 0 when mm_checkheap reports the damage
 *
 * The heap of every case: blocks a, b, c, d, e of 200 bytes, b and d freed.
 */
#include VARIANT_SRC

#include <stdlib.h>

#include "driver/heap.h"

#include "damage.h"

static char *blk[5];

static void setup(void)
{
    mem_init();
    heap_restart(true);
    if (mm_init() != 0)
        exit(2);
    for (int i = 0; i < 5; i++)
        if (!(blk[i] = mm_malloc(200)))
            exit(2);
    mm_free(blk[1]);
    mm_free(blk[3]);
    if (!mm_checkheap(__LINE__))
        exit(2);
}

/* Write bp's header (and its footer where it has one) with BLK_PREV_ALLOC flipped. */
static void flip_prev_alloc(void *bp)
{
    *blk_hdr(bp) ^= BLK_PREV_ALLOC;
    if (!blk_alloc(bp) || CORE_ALLOC_FOOTER)
        *blk_ftr(bp) ^= BLK_PREV_ALLOC;
}

/* Which list free block bp is on (0 without classes). */
static unsigned list_of(void *bp)
{
    for (unsigned k = 0; k < CORE_CLASSES; k++)
        for (fl_node_t *n = core->head[k]; n; n = n->next)
            if (n == bp)
                return k;
    exit(2);
}

/* Point the links around `node` on its list at `by` (which holds node's links already). */
static void substitute_at(fl_node_t *node, void *by)
{
    unsigned k = list_of(node);
    if (node->prev)
        node->prev->next = by;
    else
        core->head[k] = by;
    if (node->next)
        node->next->prev = by;
    else if (CORE_LIST_TAILS)
        core->tail[k] = by;
}

/* Put `by` where `node` is on its list: the links around it point at `by`. */
static void substitute(fl_node_t *node, fl_node_t *by)
{
    *by = *node;
    substitute_at(node, by);
}

/* A free block's tags, 8 bytes before the first payload byte of `fake`, as if in a heap. */
static _Alignas(16) unsigned char outside[256];

static void damage(const char *how)
{
    char *a = blk[0], *b = blk[1], *c = blk[2], *d = blk[3];
    if (!strcmp(how, "footer")) {                 /* I3: a free block's footer alone */
        *blk_ftr(b) ^= BLK_ALIGN;
    } else if (!strcmp(how, "alloc-footer")) {    /* I3: an allocated block's footer */
        *blk_ftr(c) ^= BLK_ALIGN;
    } else if (!strcmp(how, "small")) {           /* I2: a (consistent) block below the minimum */
        size_t size = blk_size(a), prev = blk_prev_alloc(a);
        set_block(a, CORE_MIN_BLOCK / 2, true, prev);
        set_block(a + CORE_MIN_BLOCK / 2, size - CORE_MIN_BLOCK / 2, true, true);
    } else if (!strcmp(how, "prev-alloc")) {      /* I6: c says the free block below it is allocated */
        flip_prev_alloc(c);
    } else if (!strcmp(how, "prologue")) {        /* I4: the prologue's footer */
        *blk_ftr(core->heap) ^= BLK_ALLOC;
    } else if (!strcmp(how, "epilogue")) {        /* I4: the epilogue free */
        *blk_hdr(heap_brk()) &= ~(blk_word_t)BLK_ALLOC;
    } else if (!strcmp(how, "epilogue-prev")) {   /* I6: the epilogue's bit */
        *blk_hdr(heap_brk()) ^= BLK_PREV_ALLOC;
    } else if (!strcmp(how, "adjacent")) {        /* I5: c freed, listed and counted, unmerged */
        set_block(c, blk_size(c), false, false);
        blk_set_prev_alloc(blk_next(c), false);
        fl_insert(c);
        core->free_count++;
    } else if (!strcmp(how, "rover")) {           /* I4: the rover inside a block */
        core->rover = b + MM_ALIGNMENT;
    } else if (!strcmp(how, "count")) {           /* I7: the running count off by one */
        core->free_count++;
    } else if (!strcmp(how, "unlisted")) {        /* I7: a free block off its list */
        fl_remove(d);
    } else if (!strcmp(how, "listed-alloc")) {    /* I7: allocated c listed where d was */
        substitute((fl_node_t *)d, (fl_node_t *)c);
    } else if (!strcmp(how, "outside")) {         /* I7: a node outside the heap where d was */
        fl_node_t *fake = (fl_node_t *)(outside + 64);
        memcpy((char *)fake - BLK_WSIZE, blk_hdr(d), BLK_WSIZE);
        substitute((fl_node_t *)d, fake);
    } else if (!strcmp(how, "misaligned")) {      /* I7: a node inside the heap, off the alignment, where d was */
        /* inside d's payload, half an alignment off, its tags and links copied
         * byte by byte: a pointer store there would be the harness's own UB */
        char *fake = d + 64 + MM_ALIGNMENT / 2;
        fl_node_t links = *(fl_node_t *)d;
        memcpy(fake - BLK_WSIZE, blk_hdr(d), BLK_WSIZE);
        memcpy(fake, &links, sizeof links);
        substitute_at((fl_node_t *)d, fake);
    } else if (!strcmp(how, "prev-link")) {       /* I7: a second node's prev link */
        fl_node_t *second = NULL;
        for (unsigned k = 0; k < CORE_CLASSES && !second; k++)
            second = core->head[k] ? core->head[k]->next : NULL;
        if (!second)
            exit(2);
        second->prev = second;
    } else if (!strcmp(how, "class")) {           /* I7: d on the list of the class above */
        unsigned k = list_of(d);
        list_unlink(k, d);
        if (!core->head[k])
            core->nonempty &= ~(1u << k);
        list_link_after(k + 1, NULL, d);
        core->nonempty |= 1u << (k + 1);
    } else if (!strcmp(how, "last-class")) {      /* I7: a prev link on the last class's list */
        fl_node_t *big = mm_malloc((size_t)17 << 20);
        if (!big || !mm_malloc(16))
            exit(2);
        mm_free(big);
        if (core->head[CORE_CLASSES - 1] != big)
            exit(2);
        big->prev = big;
    } else if (!strcmp(how, "tail")) {            /* I7: a list's tail not its last node */
        core->tail[0] = core->head[0];
    } else if (!strcmp(how, "order")) {           /* I7: an address-ordered list out of order */
        fl_node_t *first = core->head[0], *second = first->next;
        first->next = NULL, first->prev = second;
        second->next = first, second->prev = NULL;
        core->head[0] = second;
    } else {
        exit(2);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    setup();
    damage(argv[1]);
    return damage_verdict();
}
