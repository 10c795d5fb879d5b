/*
 * best-runs.h - the runs of variants/best.c: headerless slots for small sizes.
 *
 * Part of best.c, kept apart to keep each file about one idea: it uses best.c's
 * state (st), its run_t and RUN_* constants, and its block functions, and is
 * included by best.c alone, after them.
 *
 *   run block (an ordinary allocated block; its payload p0 starts a granule)
 *
 *   hdr  p0                                            p0 + RUN_BYTES
 *   | .. | slot 0 | slot 1 | ... | slot n-1 | (rest) | run_t | pad |
 *
 *   run_t.used has bit i set while slot i is allocated.
 *
 *   run index (an ordinary allocated block, st->runs)
 *
 *   | words | live | open[RUN_CLASSES] | map[words] |
 *
 *   map bit g is set while granule g (RUN_BYTES bytes from the base) is a
 *   run's payload, which is how free() and realloc() tell a slot from an
 *   ordinary block; open[c] lists the runs of slot size c * alignment with a
 *   free slot; live counts the runs.  The index is about heap / 8192 bytes.
 *   Before a run is placed it is replaced by one twice as long if the heap
 *   has outgrown it, and it goes back with the last run (drop_index).
 *
 * Invariants (checked by best-check.h):
 *   R1  a marked granule is the payload of an allocated block of at least
 *       RUN_BLOCK bytes; its slot size is a multiple of the alignment within
 *       [RUN_MIN_OBJ, RUN_MAX_OBJ], and its slots and inv are RUN_BYTES / obj
 *       and ceil(2^16 / obj); its count equals the bits set in `used`,
 *       none past the last slot, and is never 0 (an empty run is released);
 *   R2  the runs on list open[c] have slot size c * alignment and a free slot;
 *   R3  runs counted in the map, in the heap, by `live` and (with a free slot)
 *       on the lists agree;
 *   R4  the index is an allocated block (not a run) that holds its words.
 */
#ifndef VARIANTS_BEST_RUNS_H
#define VARIANTS_BEST_RUNS_H

static inline run_t *run_meta(char *p0) { return (run_t *)(p0 + RUN_BYTES); }
static inline size_t run_slots(const run_t *r) { return r->slots; }
static inline uint64_t slot_mask(size_t slots) { return slots >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << slots) - 1; }
typedef struct run_index {
    uint32_t words;                 /* map length, in 64-bit words */
    uint32_t live;                  /* runs in the heap */
    uint32_t open[RUN_CLASSES];     /* runs with a free slot, per slot size */
    uint64_t map[];                 /* bit g: granule g is a run's payload */
} run_index_t;

static inline run_index_t *run_index(void) { return (run_index_t *)(st->base + st->runs); }

/* The slot at offset `off` of its run: off * ceil(2^16 / obj) / 2^16 is
 * off / obj for every slot start (off = j * obj, j < 64: the rounding adds
 * j * (inv * obj - 2^16) < 64 * 64 to j * 2^16), without a division. */
static inline size_t slot_index(const run_t *r, size_t off) { return off * r->inv >> 16; }

static inline bool granule_marked(size_t g)
{
    return g < st->run_granules && run_index()->map[g / 64] >> (g % 64) & 1;
}

/* Only for a granule the index covers (index_covers_heap has run). */
static inline void mark_granule(size_t g, bool on)
{
    uint64_t *word = &run_index()->map[g / 64];
    if (on)
        *word |= (uint64_t)1 << (g % 64);
    else
        *word &= ~((uint64_t)1 << (g % 64));
}

static inline size_t granule_of(const void *p) { return (size_t)((const char *)p - st->base) >> RUN_SHIFT; }

/* The payload of the run holding p, or NULL when p is an ordinary block. */
static inline char *run_holding(const void *p)
{
    size_t g = granule_of(p);
    if (!granule_marked(g))
        return NULL;
    return st->base + (g << RUN_SHIFT);
}

static inline size_t run_obj(size_t size)
{
    size_t obj = cb_round_up(size, CB_ALIGN);
    return obj < RUN_MIN_OBJ ? RUN_MIN_OBJ : obj;
}

/* A run serves the request when it saves the alignment unit a header would cost. */
static inline bool wants_run(size_t size)
{
    size_t obj = run_obj(size);
    return RUN_MAX_OBJ > 0 && obj <= RUN_MAX_OBJ && obj < adjust(size);
}

static inline void run_link(unsigned c, char *p0)
{
    uint32_t *open = &run_index()->open[c];
    run_t *r = run_meta(p0);
    r->prev = 0;
    r->next = *open;
    if (*open)
        run_meta(at(*open))->prev = off_of(p0);
    *open = off_of(p0);
}

static inline void run_unlink(unsigned c, char *p0)
{
    run_t *r = run_meta(p0);
    if (r->prev)
        run_meta(at(r->prev))->next = r->next;
    else
        run_index()->open[c] = r->next;
    if (r->next)
        run_meta(at(r->next))->prev = r->prev;
}

/* The first granule-aligned address at or above bp that leaves a front part
 * of 0 or at least CB_MIN_BLOCK bytes. */
static inline char *aligned_in(const char *bp)
{
    size_t off = (size_t)(bp - st->base), a = cb_round_up(off, RUN_BYTES);
    if (a != off && a - off < CB_MIN_BLOCK)
        a += RUN_BYTES;
    return st->base + a;
}

/* Does free block bp (not the top one) have room for a run at an aligned spot? */
static inline bool run_fits(char *bp, void *top, char **spot)
{
    char *p0 = aligned_in(bp);
    if (bp == top || p0 + RUN_BLOCK - CB_WSIZE > bp + cb_size(bp) - CB_WSIZE)
        return false;
    *spot = p0;
    return true;
}

/* run_hole() on the one list of a heap without classes: the same blocks
 * looked at in the same order, class by class. */
FEW_PATH static void *few_run_hole(char **spot, void *top)
{
    unsigned probes = 0;
    for (unsigned k = class_of(RUN_BLOCK), next; k < N_CLASSES && probes < RUN_PROBES; k = next) {
        next = N_CLASSES;
        for (char *bp = at(st->one); bp; bp = at(cb_links(bp)->next)) {
            unsigned kb = class_of(cb_size(bp));
            if (kb == k && probes < RUN_PROBES) {
                if (run_fits(bp, top, spot))
                    return bp;
                probes++;
            } else if (kb > k && kb < next) {
                next = kb;
            }
        }
    }
    return NULL;
}

/* A free block below the top with room for a run at an aligned spot, looking
 * at no more than RUN_PROBES blocks; its aligned spot goes to *at. */
static void *run_hole(char **spot)
{
    unsigned probes = 0;
    void *top = top_free();
    if (few())
        return few_run_hole(spot, top);
    for (unsigned k = next_class(class_of(RUN_BLOCK)); k < N_CLASSES; k = next_class(k + 1))
        for (char *bp = at(st->head[k]); bp && probes < RUN_PROBES; bp = at(cb_links(bp)->next), probes++)
            if (run_fits(bp, top, spot))
                return bp;
    return NULL;
}

/* Make the run index cover every granule a new run could start in: the heap
 * and two granules past the break.  Allocating the index may grow the heap,
 * hence the loop. */
static bool index_covers_heap(void)
{
    while (st->run_granules <= granule_of(heap_brk()) + 2) {
        run_index_t *old = st->runs ? run_index() : NULL;
        size_t kept = old ? old->words : 0;
        size_t need = (granule_of(heap_brk()) + 3 + 63) / 64;
        size_t words = 2 * kept > need ? 2 * kept : need;
        run_index_t *idx = alloc_meta(sizeof *idx + words * sizeof idx->map[0]);
        if (!idx)
            return false;
        if (old)
            memcpy(idx, old, sizeof *old + kept * sizeof old->map[0]);
        else
            memset(idx, 0, sizeof *idx);
        memset(idx->map + kept, 0, (words - kept) * sizeof idx->map[0]);
        idx->words = (uint32_t)words;
        if (old)
            free_block(old);
        st->runs = off_of(idx);
        st->run_granules = (uint32_t)(words * 64);
    }
    return true;
}

/* The last run is gone: so is the index, so that it never pins the space a
 * large block may want (a 2 KiB index left in the middle of an empty heap
 * once cost a 16 MiB request 2 MiB of new heap). */
static void drop_index(void)
{
    free_block(run_index());
    st->runs = 0;
    st->run_granules = 0;
}

/* An allocated block of RUN_BLOCK bytes whose payload starts a granule, taken
 * from a free block with room at an aligned spot, else from the heap's top. */
static char *carve_run_block(void)
{
    char *p0;
    if (!index_covers_heap())
        return NULL;
    void *bp = run_hole(&p0);
    if (!bp && st->quick_count) {        /* the kept blocks go back before the heap grows */
        quick_flush();
        bp = run_hole(&p0);
    }
    if (!bp) {
        void *top = top_free();
        char *start = top ? top : heap_brk();
        size_t have = top ? cb_size(top) : 0;
        p0 = aligned_in(start);
        size_t need = (size_t)(p0 - start) + RUN_BLOCK;
        if (need > have && !extend_heap(need - have))
            return NULL;
        bp = start;
    }
    if (p0 != (char *)bp) {             /* the part below stays a free block */
        size_t csize = cb_size(bp);
        bool prev_alloc = cb_prev_alloc(bp);
        list_remove(bp);
        cb_set(bp, (size_t)(p0 - (char *)bp), false, prev_alloc);
        list_insert(bp);
        cb_set(p0, csize - (size_t)(p0 - (char *)bp), false, false);
        list_insert(p0);
        st->free_count++;
        stat_add(&stats.splits, 1);
    }
    return place_at(p0, RUN_BLOCK, false);
}

/* A new run for slot size obj (class c), or NULL: not when a hole fits the
 * request exactly, since it costs nothing, and a 1 KiB run would take heap
 * that a growing block may want.  Apart from run_alloc, which is inline. */
static __attribute__((noinline)) char *run_open(size_t size, size_t obj, unsigned c)
{
    void *hole = find_fit(adjust(size));
    if (hole && cb_size(hole) == adjust(size))
        return NULL;
    char *p0 = carve_run_block();
    if (!p0)
        return NULL;
    run_t *r = run_meta(p0);
    r->used = 0;
    r->count = 0;
    r->obj = (uint16_t)obj;
    r->slots = (uint16_t)(RUN_BYTES / obj);
    r->inv = (uint16_t)((((size_t)1 << 16) + obj - 1) / obj);
    mark_granule(granule_of(p0), true);
    run_index()->live++;
    run_link(c, p0);
    return p0;
}

/* A run of slot class c with a free slot, or NULL. */
static inline char *open_run(unsigned c)
{
    return st->runs ? at(run_index()->open[c]) : NULL;
}

/* A slot of run p0 (class c, slot size obj), which has a free one. */
static inline void *run_take(char *p0, unsigned c, size_t obj)
{
    run_t *r = run_meta(p0);
    /* no bit past the last slot is set: the lowest clear bit is a slot */
    unsigned i = (unsigned)__builtin_ctzll(~r->used);
    r->used |= (uint64_t)1 << i;
    if (++r->count == run_slots(r))
        run_unlink(c, p0);
    return p0 + (size_t)i * obj;
}

static inline void *run_alloc(size_t size)
{
    size_t obj = run_obj(size);
    unsigned c = (unsigned)(obj / CB_ALIGN);
    char *p0 = open_run(c);
    if (p0)
        stat_add(&stats.reuses, 1);
    else if (!(p0 = run_open(size, obj, c)))
        return NULL;
    return run_take(p0, c, obj);
}

/* Free object p of the run at p0; an empty run goes back to the heap. */
static void run_free(char *p0, void *p)
{
    run_t *r = run_meta(p0);
    unsigned c = r->obj / CB_ALIGN;
    size_t i = slot_index(r, (size_t)((char *)p - p0));
    bool was_full = r->count == run_slots(r);
    r->used &= ~((uint64_t)1 << i);
    r->count--;
    if (r->count == 0) {
        if (!was_full)
            run_unlink(c, p0);
        mark_granule(granule_of(p0), false);
        free_block(p0);
        if (!--run_index()->live)
            drop_index();
    } else if (was_full) {
        run_link(c, p0);
    }
}

#endif
