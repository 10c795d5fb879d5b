/*
 * best_rules.c - best's placement rules, each on a small heap built by hand.
 *
 * best.c's card, best-state.h, best-quick.h and best-few.h state how best
 * chooses a block: its size classes (one per 16 bytes below 576 bytes, four
 * per power of two to 64 KiB, one above), best fit within a class and the
 * newest block of the size it picks, the smallest block of the next
 * non-empty class when its own has none that fits, address-ordered first
 * fit from 64 KiB, the newest kept block popped first and every kept block
 * freed before the heap grows, small requests at a free block's bottom and
 * large ones at its top, growth by what the top block lacks (a small
 * request: a slice of the heap), pins passed over, the run index's block at
 * a hole's bottom, and runs opened once enough blocks of their sizes live.
 * Breaking any of these moved best's placements on the traces, but no test
 * said which rule went.  Each case frees a few blocks between live ones, so
 * that the holes cannot merge, makes one request, and asserts which hole
 * took it (or how far the heap grew).  Cases run on a heap with the one
 * list (few) and with the class tables (classed): best-state.h promises the
 * same block either way.  This includes best.c whole, to reach its state.
 * Exit 0 when every case passes; each prints "NAME MODE: ok", or "heap not
 * shaped" when the heap the case builds came out otherwise (a broken case,
 * not a broken rule).
 */
#include "variants/best.c"

#include "driver/heap.h"

enum { MAX_HOLES = 4, SEPARATOR = 600 };     /* a live block between holes: above the quick lists' sizes */

/* A fresh heap, with the class tables when `classed`. */
static bool fresh(bool classed)
{
    heap_restart(true);
    if (mm_init() != 0)
        return false;
    if (classed)
        add_classes();
    return few() != classed;
}

/* Blocks of the given request sizes, in that order up the heap, each with a
 * live block above it; then the ones `order` names (indices, -1 ends it)
 * freed in that order: the last freed is the newest.  False unless each
 * freed block is a hole of its own, unmerged, below a live block. */
static bool holes(const size_t *sizes, int n, const int *order, char **b)
{
    for (int i = 0; i < n; i++) {
        b[i] = mm_malloc(sizes[i]);
        if (!b[i] || (i && b[i] < b[i - 1]) || !mm_malloc(SEPARATOR))
            return false;
    }
    for (const int *i = order; *i >= 0; i++)
        mm_free(b[*i]);
    for (const int *i = order; *i >= 0; i++)
        if (cb_alloc(b[*i]) || cb_size(b[*i]) != adjust(sizes[*i]) || !cb_alloc(cb_next(b[*i])))
            return false;
    return true;
}

/* Does payload p lie in hole h? */
static bool in_hole(const void *p, char *h, size_t hsize)
{
    return p && (const char *)p >= h && (const char *)p < h + hsize;
}

static bool report(const char *what, bool classed, bool shaped, bool ok)
{
    printf("%s %s: %s\n", what, classed ? "classed" : "few",
           !shaped ? "heap not shaped" : ok && mm_checkheap(__LINE__) ? "ok" : "wrong block");
    return shaped && ok;
}

/* The fit cases' one shape: holes of SIZES freed in ORDER, one request,
 * and hole WANT must take it without the heap growing. */
static bool hole_takes(const char *what, bool classed, const size_t *sizes, int n, const int *order,
                       size_t request, int want)
{
    char *b[MAX_HOLES];
    bool shaped = fresh(classed) && holes(sizes, n, order, b);
    size_t heap = mem_heapsize();
    void *p = shaped ? mm_malloc(request) : NULL;
    return report(what, classed, shaped, in_hole(p, b[want], adjust(sizes[want])) && mem_heapsize() == heap);
}

/* Two holes of one size: the newest (freed last) takes a request that fits
 * both (best-state.h: "the smallest that fits, the newest of its size"). */
static bool newest_of_its_size(bool classed)
{
    static const size_t sizes[] = {1036, 1036, 1036};
    static const int order[] = {0, 2, -1};
    return hole_takes("newest_of_its_size", classed, sizes, 3, order, 1000, 2);
}

/* The same after add_classes has dealt the one list's holes out to the
 * classes (best-few.h: each class lists its blocks in the order the one list
 * had them): the newest still takes the request. */
static bool newest_of_its_size_after_add_classes(void)
{
    static const size_t sizes[] = {1036, 1036, 1036};
    static const int order[] = {0, 2, -1};
    char *b[MAX_HOLES];
    bool shaped = fresh(false) && holes(sizes, 3, order, b);
    if (shaped)
        add_classes();
    shaped = shaped && !few();
    void *p = shaped ? mm_malloc(1000) : NULL;
    return report("newest_of_its_size_after_add_classes", true, shaped, in_hole(p, b[2], adjust(1036)));
}

/* Two holes in one range class ([1024, 1280) bytes): the smaller takes a
 * request of that class, though the larger is newer (best fit within a class). */
static bool best_fit_in_its_class(bool classed)
{
    static const size_t sizes[] = {1196, 1246};
    static const int order[] = {0, 1, -1};
    return hole_takes("best_fit_in_its_class", classed, sizes, 2, order, 1100, 0);
}

/* No hole of the request's class fits it (its one hole is too small): the
 * next non-empty class's hole takes it, and the heap does not grow. */
static bool next_class_when_its_own_has_no_fit(bool classed)
{
    static const size_t sizes[] = {1096, 1396};
    static const int order[] = {0, 1, -1};
    return hole_takes("next_class_when_its_own_has_no_fit", classed, sizes, 2, order, 1146, 1);
}

/* The request's class is empty: the smallest hole of the next non-empty
 * class ([1280, 1536) bytes) takes it, not the head of its list (the newest). */
static bool smallest_of_the_next_class(bool classed)
{
    static const size_t sizes[] = {1396, 1496};
    static const int order[] = {0, 1, -1};
    return hole_takes("smallest_of_the_next_class", classed, sizes, 2, order, 1000, 0);
}

/* Blocks of 64 KiB and more: address-ordered first fit.  The lower hole
 * takes the request though the higher one fits it more tightly and is
 * newer; from exactly 64 KiB on.  (A heap this big has the class tables.) */
static bool huge_first_fit(size_t request)
{
    static const size_t sizes[] = {90000, 70000};
    static const int order[] = {0, 1, -1};
    char *b[MAX_HOLES];
    bool shaped = fresh(true) && holes(sizes, 2, order, b);
    void *p = shaped ? mm_malloc(request) : NULL;
    char what[64];
    snprintf(what, sizeof what, "huge_first_fit(%zu)", request);
    return report(what, true, shaped, in_hole(p, b[0], adjust(90000)));
}

/* The classes (best.c's card): one per 16 bytes below 576 bytes, four per
 * power of two from there to 64 KiB, one above: 64 in all, in size order. */
static bool class_layout(void)
{
    bool ok = class_of(CB_MIN_BLOCK) == 0 && class_of(HUGE_FIT) == N_CLASSES - 1
              && class_of((size_t)1 << 30) == N_CLASSES - 1 && N_CLASSES == 64;
    unsigned distinct = 1, in_power = 0;
    size_t power = 1024;
    for (size_t size = CB_MIN_BLOCK + CB_ALIGN; size <= 2 * (size_t)HUGE_FIT; size += CB_ALIGN) {
        unsigned k = class_of(size), below = class_of(size - CB_ALIGN);
        ok &= k == below || k == below + 1;
        if (size < EXACT_LIMIT)
            ok &= k == (size - CB_MIN_BLOCK) / CLASS_STEP;
        distinct += k != below;
        if (size >= 1024 && size <= HUGE_FIT) {
            if (size == power) {                /* a power of two starts a class */
                ok &= k != below && (power == 1024 || in_power == RANGE_SPLITS);
                in_power = 0;
                power *= 2;
            }
            in_power += k != below;
        }
    }
    printf("class_layout: %s\n", ok && distinct == N_CLASSES ? "ok" : "wrong classes");
    return ok && distinct == N_CLASSES;
}

/* Warm the running mean with requests of about 1 KiB, then cut a hole of
 * 4000 bytes: a request well under the mean takes the hole's bottom, one
 * well over it the top of what is left (best.c's card: small requests at the
 * bottom of a free block, large ones at its top). */
static bool small_bottom_large_top(bool classed)
{
    static const size_t sizes[] = {3996};
    static const int order[] = {0, -1};
    char *b[MAX_HOLES];
    bool shaped = fresh(classed);
    for (int i = 0; shaped && i < 48; i++) {
        void *p = mm_malloc(1000);
        shaped = p;
        mm_free(p);
    }
    shaped = shaped && holes(sizes, 1, order, b);
    size_t hsize = adjust(3996);
    shaped = shaped && adjust(500) << (MEAN_SHIFT + 1) <= st->mean;
    void *small = shaped ? mm_malloc(500) : NULL;
    shaped = shaped && adjust(2500) << MEAN_SHIFT >= 2 * st->mean;
    void *large = shaped ? mm_malloc(2500) : NULL;
    return report("small_bottom_large_top", classed, shaped,
                  small == b[0] && large && (char *)large + cb_size(large) == b[0] + hsize);
}

/* A large request that the free block at the heap's top cannot hold grows
 * the heap by what that block lacks, no more (best.c's card: growth). */
static bool growth_by_what_the_top_lacks(bool classed)
{
    bool shaped = fresh(classed);
    void *p = shaped ? mm_malloc(2000) : NULL;
    mm_free(p);
    char *top = top_free();
    shaped = shaped && top && cb_size(top) >= adjust(2000) && cb_size(top) < adjust(5000);
    size_t lacks = shaped ? adjust(5000) - cb_size(top) : 0, heap = mem_heapsize();
    void *q = shaped ? mm_malloc(5000) : NULL;
    return report("growth_by_what_the_top_lacks", classed, shaped, q == top && mem_heapsize() - heap == lacks);
}

/* A small request that no free block holds grows the heap by heap/128
 * (heap_span: the heap as placement sees it), at most 16 KiB, and takes the
 * bottom of the new space (best.c's card: growth).  A live block of `big`
 * bytes sets the heap's size and makes the mean large. */
static bool small_request_grows_by_a_slice(size_t big)
{
    bool shaped = fresh(true) && mm_malloc(big) && !top_free() && adjust(500) << MEAN_SHIFT <= st->mean;
    size_t slice = cb_round_up(heap_span() / CHUNK_DIV, CB_ALIGN), heap = mem_heapsize();
    slice = slice < CHUNK_MAX ? slice : CHUNK_MAX;
    char *brk = heap_brk();
    void *p = shaped ? mm_malloc(500) : NULL;
    char what[64];
    snprintf(what, sizeof what, "small_request_grows_by_a_slice(%zu)", big);
    return report(what, true, shaped && slice > adjust(500), p == brk && mem_heapsize() - heap == slice);
}

/* Kept blocks of one size: the next request of that size pops the newest,
 * on the one list and after add_classes has dealt the kept blocks out to
 * their classes' lists (best-few.h: "in the order the one list had them"). */
static bool quick_pops_the_newest(bool dealt)
{
    bool shaped = fresh(false);
    char *b[3];
    for (int i = 0; shaped && i < 3; i++)
        shaped = (b[i] = mm_malloc(520)) && mm_malloc(SEPARATOR);
    if (shaped) {
        mm_free(b[0]);
        mm_free(b[2]);
        shaped = is_kept(b[0]) && is_kept(b[2]);
    }
    if (shaped && dealt)
        add_classes();
    shaped = shaped && few() != dealt;
    void *p = shaped ? mm_malloc(520) : NULL;
    return report(dealt ? "quick_pops_the_newest_after_add_classes" : "quick_pops_the_newest", dealt, shaped,
                  p == b[2]);
}

/* Pins (best-pins.h): a small request (at most half the running mean) that
 * would exactly fill a sliver just below a large block (over twice the
 * mean) takes the bottom of another hole, not below one, instead; a larger
 * request, or a sliver below a smaller block, is served by best fit.  The
 * heap, from its bottom: live, the sliver, `above` (live, above_size bytes),
 * live, a hole `extra` bytes bigger than the sliver, live; the two holes
 * freed for real (quick_flush: a kept block is no hole; the sliver heads its
 * list).  A hole of the sliver's own size (extra 0) is the first looked at.
 * The mean, warmed with requests of about 3 KiB, is read back to check that
 * each case is what its name says. */
static bool pin_case(const char *what, size_t sliver, size_t extra, size_t above_size, bool pinned)
{
    bool shaped = fresh(true);
    for (int i = 0; shaped && i < 48; i++) {
        void *p = mm_malloc(2996);
        shaped = p;
        mm_free(p);
    }
    char *b[6];
    const size_t sizes[6] = {2996, sliver - CB_WSIZE, above_size, 2996, sliver + extra - CB_WSIZE, SEPARATOR};
    for (int i = 0; shaped && i < 6; i++)
        shaped = (b[i] = mm_malloc(sizes[i])) && (!i || cb_next(b[i - 1]) == b[i]);
    char *s = shaped ? b[1] : NULL, *h = shaped ? b[4] : NULL;
    if (shaped) {
        mm_free(s);
        mm_free(h);
        quick_flush();
    }
    shaped = shaped && !cb_alloc(s) && cb_size(s) == sliver && !cb_alloc(h) && cb_size(h) == sliver + extra;
    /* the mean as it will be when the request is judged */
    size_t mean = shaped ? st->mean + sliver - (st->mean >> MEAN_SHIFT) : 0;
    bool small = sliver << (MEAN_SHIFT + 1) <= mean, large = cb_size(b[2]) << (MEAN_SHIFT - 1) > mean;
    shaped = shaped && (pinned ? small && large : small != large);
    void *p = shaped ? mm_malloc(sliver - CB_WSIZE) : NULL;
    return report(what, true, shaped, p == (pinned ? h : s));
}

/* The pin's search is bounded (best-pins.h: the best hole not below a large
 * block "among the next PIN_PROBES blocks that fit; else bp0"): n slivers of
 * one size, each just below a large block, and a hole of a larger class that
 * is not.  Past PIN_PROBES - 1 slivers the request reaches the hole; at
 * PIN_PROBES it stops and takes best fit's sliver, the head of its list.
 * Each sliver is what is left of a hole whose top a large request took
 * (large requests at a free block's top).  As in pin_case, the hole is freed
 * for real and the mean, warmed with requests of about 3 KiB, read back. */
static bool pin_search_is_bounded(unsigned n)
{
    enum { SLIVER = 304, LARGE = 7996, MOST = PIN_PROBES };
    char what[64];
    snprintf(what, sizeof what, "pin_search_is_bounded(%u)", n);
    if (n > MOST)
        return report(what, true, false, false);
    size_t sizes[MOST];
    int order[MOST + 1];
    char *b[MOST], *s[MOST];
    for (unsigned i = 0; i < n; i++)
        sizes[i] = SLIVER + LARGE, order[i] = (int)i;
    order[n] = -1;
    bool shaped = fresh(true) && holes(sizes, (int)n, order, b);
    for (unsigned i = 0; shaped && i < n; i++) {
        char *l = mm_malloc(LARGE);
        shaped = l && !cb_prev_alloc(l) && cb_size(s[i] = cb_prev(l)) == SLIVER;
    }
    char *h = shaped && mm_malloc(2996) ? mm_malloc(SLIVER + 32 - CB_WSIZE) : NULL;
    shaped = h && cb_next(h) == (char *)mm_malloc(SEPARATOR);
    if (shaped) {
        mm_free(h);
        quick_flush();
    }
    for (int i = 0; shaped && i < 48; i++) {
        void *p = mm_malloc(2996);
        shaped = p;
        mm_free(p);
    }
    size_t mean = shaped ? st->mean + SLIVER - (st->mean >> MEAN_SHIFT) : 0;
    for (unsigned i = 0; shaped && i < n; i++)
        shaped = !cb_alloc(s[i]) && cb_size(s[i]) == SLIVER && below_large(s[i], mean);
    shaped = shaped && !cb_alloc(h) && cb_size(h) == SLIVER + 32 && !below_large(h, mean)
             && (size_t)SLIVER << (MEAN_SHIFT + 1) <= mean;
    char *bp0 = shaped ? at(st->head[class_of(SLIVER)]) : NULL;
    void *p = shaped ? mm_malloc(SLIVER - CB_WSIZE) : NULL;
    return report(what, true, shaped, p == (n < PIN_PROBES ? h : bp0));
}

/* Small runs open once RUN_MIN_LIVE (8) small blocks live (best.c's card:
 * "up to 64 bytes a 1 KiB run, once 8 small blocks live"): seven requests of
 * a size whose header would cost a whole alignment unit take ordinary
 * blocks, the eighth a run's slot. */
static bool runs_open_at_eight_small_blocks(bool classed)
{
    bool shaped = fresh(classed) && wants_run(32) && is_small_block(adjust(32)), ok = shaped;
    for (int i = 1; ok && i <= RUN_MIN_LIVE; i++) {
        void *p = mm_malloc(32);
        ok = p && in_run(p) == (i == RUN_MIN_LIVE);
    }
    return report("runs_open_at_eight_small_blocks", classed, shaped, ok);
}

/* Before the heap grows, every kept block is freed for real, so the heap
 * never grows while kept blocks could serve the request (best-quick.h): two
 * kept blocks side by side, of the last quick-list size, merge into the
 * hole that takes a request for both. */
static bool flush_before_growth(bool classed)
{
    size_t last = QUICK_LIMIT - CB_ALIGN - CB_WSIZE;      /* the largest request a quick list keeps */
    char *a = fresh(classed) ? mm_malloc(last) : NULL, *b = mm_malloc(last);
    bool shaped = a && b && cb_next(a) == b && mm_malloc(SEPARATOR) && !top_free();
    if (shaped) {
        mm_free(a);
        mm_free(b);
        shaped = is_kept(a) && is_kept(b) && class_of(cb_size(a)) == N_QUICK - 1;
    }
    size_t heap = mem_heapsize();
    void *p = shaped ? mm_malloc(2 * last) : NULL;
    return report("flush_before_growth", classed, shaped, p == a && mem_heapsize() == heap);
}

/* Medium runs open for a size once it has shown they pay (best-choice.h):
 * at 16-byte alignment once its live blocks' headers (one alignment unit
 * each) come to RUN_EARN / 4 of the bytes of the run it would get; at 8,
 * once it leads the vote of the medium requests needing new space by
 * RUN_MID_LIVE (64).  Requests of 128 bytes, all live: each takes an
 * ordinary block until the one after that count, which takes a run's slot. */
static bool medium_runs_open_by_rule(void)
{
    geom_t g = run_geom(run_obj(128));
    size_t need = MID_MARK ? (size_t)RUN_EARN * g.span * RUN_BYTES / (CB_ALIGN * 4) : RUN_MID_LIVE - 1;
    bool shaped = fresh(true) && wants_run(128) && is_mid_block(adjust(128)) && g.span && need < UINT8_MAX,
         ok = shaped;
    for (size_t i = 0; ok && i <= need; i++) {
        void *p = mm_malloc(128);
        ok = p && in_run(p) == (i == need);
    }
    return report("medium_runs_open_by_rule", true, shaped, ok);
}

/* The vote (8-byte alignment): a request of another medium size takes a vote
 * from the leader, so the run opens one request of the leader's size later;
 * at 16 the other size's block counts only for its own size. */
static bool another_size_takes_a_vote(void)
{
    geom_t g = run_geom(run_obj(128));
    size_t need = MID_MARK ? (size_t)RUN_EARN * g.span * RUN_BYTES / (CB_ALIGN * 4) : RUN_MID_LIVE;
    bool shaped = fresh(true) && is_mid_block(adjust(200)) && g.span && need < UINT8_MAX, ok = shaped;
    for (size_t i = 0; ok && i <= need; i++) {
        void *p = mm_malloc(128);
        ok = p && in_run(p) == (i == need);
        if (ok && i == 9)
            ok = (p = mm_malloc(200)) && !in_run(p);
    }
    return report("another_size_takes_a_vote", true, shaped, ok);
}

/* A free of the leader's size that reaches the free lists takes a vote from
 * it (best-choice.h: vote, mid_freed); at 16-byte alignment the freed block
 * leaves its size's count of live blocks.  Either way the run opens one
 * request later than in medium_runs_open_by_rule.  The freed block lies
 * just above a free one, so no quick list keeps it. */
static bool a_freed_block_takes_a_vote(void)
{
    geom_t g = run_geom(run_obj(128));
    size_t need = MID_MARK ? (size_t)RUN_EARN * g.span * RUN_BYTES / (CB_ALIGN * 4) : RUN_MID_LIVE - 1;
    char *low = fresh(true) ? mm_malloc(1000) : NULL, *first = NULL;
    bool shaped = low && wants_run(128) && g.span && need < UINT8_MAX, ok = shaped;
    for (size_t i = 0; ok && i <= need + 1; i++) {
        char *p = mm_malloc(128);
        ok = p && in_run(p) == (i == need + 1);
        if (ok && i == 0)
            shaped = (first = p) == cb_next(low);
        if (ok && i == 9) {
            mm_free(low);
            mm_free(first);
            shaped = shaped && !is_kept(first) && !cb_alloc(low) && cb_size(low) == adjust(1000) + adjust(128);
        }
    }
    return report("a_freed_block_takes_a_vote", true, shaped, ok);
}

/* The run index's block (alloc_meta): best fit, at the bottom of the hole,
 * where small blocks gather, whatever the request's size against the mean
 * (best-blocks.h). */
static bool run_index_at_the_bottom(bool classed)
{
    static const size_t sizes[] = {2996};
    static const int order[] = {0, -1};
    char *b[MAX_HOLES];
    bool shaped = fresh(classed) && holes(sizes, 1, order, b) && !is_small(adjust(1500));
    void *p = shaped ? alloc_meta(1500) : NULL;
    return report("run_index_at_the_bottom", classed, shaped, p == b[0]);
}

/* A request the size of the running mean is small (is_small: at most the
 * mean, best.c's card): it takes the bottom of a hole; one alignment unit
 * larger, it is large and takes the top of what is left.  The mean, warmed
 * with requests of one size, settles on that size exactly. */
static bool request_at_the_mean_takes_the_bottom(bool classed)
{
    static const size_t sizes[] = {3996};
    static const int order[] = {0, -1};
    char *b[MAX_HOLES];
    bool shaped = fresh(classed) && holes(sizes, 1, order, b);
    size_t mean = adjust(1000) << MEAN_SHIFT, hsize = adjust(3996);
    for (int i = 0; shaped && i < 1000 && st->mean != mean; i++) {
        void *p = mm_malloc(1000);
        shaped = p;
        mm_free(p);
    }
    char *top = top_free();
    shaped = shaped && st->mean == mean && !cb_alloc(b[0]) && cb_size(b[0]) == hsize
             && (!top || cb_size(top) < adjust(1000 + CB_ALIGN));
    void *at_mean = shaped ? mm_malloc(1000) : NULL;
    void *over = at_mean ? mm_malloc(1000 + CB_ALIGN) : NULL;
    return report("request_at_the_mean_takes_the_bottom", classed, shaped,
                  at_mean == b[0] && over && (char *)over + cb_size(over) == b[0] + hsize);
}

/* The run index's block frees the kept blocks before the heap grows, as a
 * malloc does (best-quick.h: the heap never grows while a kept block could
 * have served the request): two kept blocks side by side merge into the hole
 * that takes alloc_meta's block. */
static bool run_index_flushes_before_growth(bool classed)
{
    size_t last = QUICK_LIMIT - CB_ALIGN - CB_WSIZE;      /* the largest request a quick list keeps */
    char *a = fresh(classed) ? mm_malloc(last) : NULL, *b = mm_malloc(last);
    bool shaped = a && b && cb_next(a) == b && mm_malloc(SEPARATOR) && !top_free();
    if (shaped) {
        mm_free(a);
        mm_free(b);
        shaped = is_kept(a) && is_kept(b);
    }
    size_t heap = mem_heapsize();
    void *p = shaped ? alloc_meta(2 * last) : NULL;
    return report("run_index_flushes_before_growth", classed, shaped, p == a && mem_heapsize() == heap);
}

/* Kept blocks in a row below a freed block merge with it, all of them
 * (best-blocks.h: keeping a block never stops a merge that immediate
 * coalescing would make): two kept blocks side by side, then the block
 * above them freed, make one free block. */
static bool kept_blocks_in_a_row_merge(bool classed)
{
    char *k1 = fresh(classed) ? mm_malloc(200) : NULL, *k2 = mm_malloc(200), *x = mm_malloc(1000);
    bool shaped = k1 && k2 && x && cb_next(k1) == k2 && cb_next(k2) == x && mm_malloc(SEPARATOR);
    if (shaped) {
        mm_free(k1);
        mm_free(k2);
        shaped = is_kept(k1) && is_kept(k2);
    }
    size_t all = shaped ? cb_size(k1) + cb_size(k2) + cb_size(x) : 0;
    if (shaped)
        mm_free(x);
    return report("kept_blocks_in_a_row_merge", classed, shaped, !cb_alloc(k1) && cb_size(k1) == all);
}

/* A shrinking realloc of a large block (heap/256 or more) moves down to the
 * bottom of the lowest hole that fits, not the tightest (best.c's card:
 * realloc), on the one list too. */
static bool large_shrink_to_the_lowest_hole(bool classed)
{
    static const size_t sizes[] = {2996, 2096, 2496};
    static const int order[] = {0, 1, -1};
    char *b[MAX_HOLES];
    bool shaped = fresh(classed) && holes(sizes, 3, order, b) && cb_size(b[2]) >= heap_span() / BIG_DIV;
    void *p = shaped ? mm_realloc(b[2], 1996) : NULL;
    return report("large_shrink_to_the_lowest_hole", classed, shaped, p == b[0]);
}

int main(void)
{
    mem_init();
    bool ok = class_layout();
    for (int classed = 0; classed < 2; classed++) {
        ok &= newest_of_its_size(classed);
        ok &= best_fit_in_its_class(classed);
        ok &= next_class_when_its_own_has_no_fit(classed);
        ok &= smallest_of_the_next_class(classed);
        ok &= quick_pops_the_newest(classed);
        ok &= flush_before_growth(classed);
        ok &= kept_blocks_in_a_row_merge(classed);
        ok &= small_bottom_large_top(classed);
        ok &= request_at_the_mean_takes_the_bottom(classed);
        ok &= growth_by_what_the_top_lacks(classed);
        ok &= runs_open_at_eight_small_blocks(classed);
        ok &= run_index_at_the_bottom(classed);
        ok &= run_index_flushes_before_growth(classed);
        ok &= large_shrink_to_the_lowest_hole(classed);
    }
    ok &= newest_of_its_size_after_add_classes();
    ok &= medium_runs_open_by_rule();
    ok &= another_size_takes_a_vote();
    ok &= a_freed_block_takes_a_vote();
    ok &= huge_first_fit(HUGE_FIT - CB_WSIZE);
    ok &= huge_first_fit(66000);
    ok &= small_request_grows_by_a_slice(1 << 20);
    ok &= small_request_grows_by_a_slice(4 << 20);
    ok &= pin_case("pin_passed_over", 304, 32, 7996, true);
    ok &= pin_case("pin_passed_over_for_a_hole_of_its_size", 304, 0, 7996, true);
    ok &= pin_case("no_pin_over_half_the_mean", 2000, 32, 7996, false);
    ok &= pin_case("no_pin_below_a_block_under_twice_the_mean", 304, 32, 4000, false);
    ok &= pin_search_is_bounded(PIN_PROBES - 1);
    ok &= pin_search_is_bounded(PIN_PROBES);
    return ok ? 0 : 1;
}
