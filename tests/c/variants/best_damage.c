/*
 * best_damage.c - each layer of best's checker (variants/best-check.h) sees
 * the damage that only it can see.
 *
 * Like tags_damage.c for the tags-core variants: this includes best.c whole
 * to reach its state, and makes one kind of damage per case, consistent
 * everywhere but in the one invariant the case is about.
 *
 *   best-damage CASE [classed]   exit 0 when mm_checkheap reports the damage
 *
 * The heap of every case: ordinary blocks a, b, c, d, e of 3000 bytes (no
 * quick list, no run, no medium size), small blocks s1, s2, s3 of 100 bytes,
 * then b, d and s2 freed (s2 kept on its quick list) and 64 blocks of 32
 * bytes in runs.  `classed` adds the class tables first (add_classes): the
 * lists, their bitmap and the quick lists' counts are checked apart then.
 * The case `outside` leaves the pages past the break mapped: its node lies there.
 */
#include "variants/best.c"

#include <stdlib.h>

#include "driver/heap.h"

#include "damage.h"

static char *blk[5], *small[3], *slot;

/* `checked`: pages past the break unmapped, as mdriver's correctness pass has them. */
static void setup(bool classed, bool checked)
{
    mem_init();
    heap_restart(checked);
    if (mm_init() != 0)
        exit(2);
    for (int i = 0; i < 5; i++)
        blk[i] = mm_malloc(3000);
    for (int i = 0; i < 3; i++)
        small[i] = mm_malloc(100);
    for (int i = 0; i < 64; i++)
        slot = mm_malloc(32);
    if (classed && few())
        add_classes();
    mm_free(blk[1]);
    mm_free(blk[3]);
    mm_free(small[1]);
    if (!slot || !mm_checkheap(__LINE__) || few() == classed || !is_kept(small[1]) || !st->runs)
        exit(2);
}

/* The list free block bp is on: its head's field. */
static uint32_t *head_of(void *bp)
{
    unsigned k = class_of(cb_size(bp));
    uint32_t *head = few() ? &st->one : &st->head[k];
    for (uint32_t off = *head; off; off = cb_links(at(off))->next)
        if (at(off) == bp)
            return head;
    exit(2);
}

/* Put block `by` where free block `node` is on its list. */
static void substitute(void *node, void *by)
{
    uint32_t *head = head_of(node);
    cb_links_t *n = cb_links(node);
    *cb_links(by) = *n;
    if (n->prev)
        cb_links(at(n->prev))->next = off_of(by);
    else
        *head = off_of(by);
    if (n->next)
        cb_links(at(n->next))->prev = off_of(by);
}

/* The run holding the 32-byte slot `slot`. */
static run_t *a_run(void) { return run_meta(run_holding(slot)); }

static void damage(const char *how)
{
    char *b = blk[1], *c = blk[2], *d = blk[3], *e = blk[4];
    if (!strcmp(how, "footer")) {                 /* C2: a free block's footer alone */
        *cb_ftr(b) ^= CB_ALIGN;
    } else if (!strcmp(how, "prev-alloc")) {      /* C3: c says the free block below it is allocated */
        *cb_hdr(c) |= CB_PREV_ALLOC;
    } else if (!strcmp(how, "epilogue")) {        /* C1: the epilogue free */
        *cb_hdr(heap_brk()) &= ~(cb_word_t)CB_ALLOC;
    } else if (!strcmp(how, "epilogue-prev")) {   /* C3: the epilogue's bit */
        *cb_hdr(heap_brk()) ^= CB_PREV_ALLOC;
    } else if (!strcmp(how, "adjacent")) {        /* C4: e freed, listed and counted, unmerged */
        cb_set(e, cb_size(e), false, false);
        cb_set_prev_alloc(cb_next(e), false);
        list_push_in(e, class_of(cb_size(e)), !few());
        st->free_count++;
    } else if (!strcmp(how, "outside")) {         /* C5: a node past the break where d was */
        char *fake = (char *)cb_round_up((uintptr_t)heap_brk() + sizeof *st + 64, CB_ALIGN);
        *cb_hdr(fake) = *cb_hdr(d);
        substitute(d, fake);
    } else if (!strcmp(how, "kept-above-free")) { /* Q1: s1, below kept s2, freed, listed and counted */
        char *s1 = small[0];
        cb_set(s1, cb_size(s1), false, cb_prev_alloc(s1));
        list_push_in(s1, class_of(cb_size(s1)), !few());
        st->free_count++;
        cb_set_prev_alloc(small[1], false);
    } else if (!strcmp(how, "count")) {           /* C6: the running count off by one */
        st->free_count++;
    } else if (!strcmp(how, "unlisted")) {        /* C6: a free block off its list */
        list_remove_in(d, !few());
    } else if (!strcmp(how, "listed-alloc")) {    /* C5: allocated c listed where d was */
        substitute(d, c);
    } else if (!strcmp(how, "prev-link")) {       /* C5: the second node's prev link */
        cb_links_t *first = cb_links(at(*head_of(d)));
        if (!first->next)
            exit(2);
        cb_links(at(first->next))->prev = first->next;
    } else if (!strcmp(how, "class")) {           /* C5: d on the list of the class above */
        unsigned k = class_of(cb_size(d));
        list_unlink_in(d, k, true);
        list_push_in(d, k + 1, true);
    } else if (!strcmp(how, "bitmap")) {          /* C5: a non-empty class's bit cleared */
        unsigned k = class_of(cb_size(d));
        st->map[k / 64] &= ~((uint64_t)1 << (k % 64));
    } else if (!strcmp(how, "kept-footer")) {     /* Q1: a kept block's footer lacks QUICK_KEPT */
        *cb_ftr(small[1]) &= ~(cb_word_t)QUICK_KEPT;
    } else if (!strcmp(how, "stray-kept")) {      /* Q2: a live block marked kept, on no list */
        *cb_hdr(small[2]) |= QUICK_KEPT;
    } else if (!strcmp(how, "quick-class")) {     /* Q1: kept s2 on the quick list of the class above */
        unsigned k = class_of(cb_size(small[1]));
        if (st->quick[k] != off_of(small[1]) || *quick_link(small[1]))
            exit(2);
        st->quick[k] = 0, st->quick_len[k]--;
        st->quick[k + 1] = off_of(small[1]), st->quick_len[k + 1]++;
    } else if (!strcmp(how, "quick-lost")) {      /* Q2: the one kept list loses s2, still counted and marked */
        st->kept = 0;
    } else if (!strcmp(how, "kept-footer-size")) { /* Q1: a kept block's footer gives another size */
        *cb_ftr(small[1]) += CB_ALIGN;
    } else if (!strcmp(how, "sbrk")) {            /* S1: the heap grown behind best's back */
        mem_sbrk(CB_ALIGN);
    } else if (!strcmp(how, "quick-count")) {     /* Q2: the kept blocks' count */
        st->quick_count++;
    } else if (!strcmp(how, "quick-len")) {       /* Q2: one quick list's length */
        st->quick_len[class_of(cb_size(small[1]))]++;
    } else if (!strcmp(how, "mid-mark")) {        /* M1: a free block marked as a live medium one */
        *cb_hdr(b) |= MID_MARK;
        *cb_ftr(b) |= MID_MARK;
    } else if (!strcmp(how, "mid-live")) {        /* M2: a medium size counts a block it lacks */
        st->mid_live[0] = 1;
    } else if (!strcmp(how, "index-words")) {     /* R4: the index claims more words than its block holds */
        run_index()->words *= 64;
    } else if (!strcmp(how, "run-count")) {       /* R1: a run's count against its bitmap */
        a_run()->count--;
    } else if (!strcmp(how, "run-inv")) {         /* R1: a run's divisor, which finds a slot's index */
        a_run()->inv ^= 1;
    } else if (!strcmp(how, "run-prev")) {        /* R2: an open run's prev link */
        mm_free(slot);
        a_run()->prev = off_of(run_holding(slot));
    } else if (!strcmp(how, "run-live")) {        /* R3: the index's count of runs */
        run_index()->live++;
    } else if (!strcmp(how, "run-unopened")) {    /* R3: a run with a free slot off its open list */
        mm_free(slot);
        *open_head((unsigned)(a_run()->obj / CB_ALIGN)) = 0;
    } else {
        exit(2);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    setup(argc > 2 && !strcmp(argv[2], "classed"), strcmp(argv[1], "outside") != 0);
    damage(argv[1]);
    return damage_verdict();
}
