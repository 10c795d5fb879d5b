/*
 * best-runs.h - the runs of variants/best.c: headerless slots for the sizes
 * whose 4-byte header would cost a whole alignment unit.
 *
 * Part of best.c, kept apart to keep each file about one idea: it uses best.c's
 * state (st), its run_t and RUN_* constants, and its block functions, and is
 * included by best.c alone, after them.
 *
 *   small run (slots up to RUN_SMALL_MAX bytes): an ordinary allocated block
 *   of RUN_BYTES + RUN_TAIL bytes whose payload p0 starts a granule
 *
 *   hdr  p0                                            p0 + RUN_BYTES
 *   | .. | slot 0 | slot 1 | ... | slot n-1 | (rest) | run_t | pad |
 *
 *   medium run (slots up to RUN_MAX_OBJ bytes): an ordinary allocated block of
 *   exactly `span` granules, packed: its header is the last word of the
 *   granule below and the next block's header its own last word, so that
 *   runs lie side by side with no gap (geometry: run_geom; opened in a hole,
 *   as many granules of it as it can take: stretch_in).  A long run of one of
 *   the largest small slot sizes, once RUN_LONG_LIVE runs of it live, has
 *   this layout too (long_geom); its slot count tells its span (run_span)
 *
 *   hdr  p0                                                 p0 + span * RUN_BYTES
 *   | .. | run_t pad | slot 0 | ... | slot n-1 | (rest) | next hdr |
 *
 *   run_t.used has bit i set while slot i is allocated.
 *
 *   run index (an ordinary allocated block, st->runs)
 *
 *   | words | live | open[SMALL_CLASSES] nlive | MAP_RUN | (wide: MAP_MORE | packed open heads) |
 *
 *   Bitmap MAP_RUN has bit g set while granule g (RUN_BYTES bytes from the
 *   base) belongs to a run, which is how free() and realloc() tell a slot
 *   from an ordinary block with one bit test, as before medium runs.  Once a
 *   medium run opens, the index is rebuilt wide: MAP_MORE marks the granules
 *   of a medium run but its first, and the heads of the medium open lists
 *   follow.  Until then it is the index small runs always had, so workloads
 *   without medium runs see the same heap.  Each granule's state (GR_*): none;
 *   GR_TAIL, a small run's payload; GR_HEAD, a medium run's first granule (the
 *   next one is GR_MORE, as a medium run spans two granules or more); GR_MORE.
 *   open lists the runs of each slot size with a free slot (a small size's
 *   long runs on a list of their own among the packed heads); live counts the
 *   runs, nlive those of the LONG_CLASSES largest small sizes (saturating).
 *   The index is about heap / 8192 bytes (twice that when wide).  Before
 *   a run is placed it is replaced by one twice as long if the heap has
 *   outgrown it, and it goes back with the last run (drop_index).
 *
 * Invariants (checked by best-check.h):
 *   R1  a GR_TAIL or GR_HEAD granule is the payload of an allocated block at
 *       least as long as its run's geometry, whose slot size is a multiple of
 *       the alignment within [RUN_MIN_OBJ, RUN_MAX_OBJ] and has a run of that
 *       layout (small: GR_TAIL or, long, GR_HEAD; medium: GR_HEAD, at least
 *       run_geom's span, with mid_slots' count for its span); the span - 1
 *       granules above
 *       a GR_HEAD are GR_MORE and the one past them is not; no block's payload
 *       lies in a run's granules but the run's own; a run's slot count is its
 *       geometry's and inv is ceil(2^16 / obj); its count equals the bits set
 *       in `used`, none past the last slot, and is never 0 (an empty run is
 *       released);
 *   R2  the runs on open list c (either layout's) have slot size c * alignment
 *       and a free slot;
 *   R3  runs counted in the map (and GR_MORE granules), in the heap, by `live`
 *       and (with a free slot) on the lists agree;
 *   R4  the index is an allocated block (not a run) that holds its words
 *       (and, when wide, the medium heads).
 */
#ifndef VARIANTS_BEST_RUNS_H
#define VARIANTS_BEST_RUNS_H
/* Long runs (see run_open) are for the LONG_CLASSES largest small slot sizes,
 * whose live runs the index counts in what was its padding. */
enum { LONG_CLASSES = 4, LONG_CLASS0 = SMALL_CLASSES - LONG_CLASSES };

enum { GR_NONE, GR_TAIL, GR_HEAD, GR_MORE };

typedef struct run_index {
    uint32_t words;                 /* map length, in 64-bit words */
    uint32_t live;                  /* runs in the heap */
    uint32_t open[SMALL_CLASSES];   /* small runs with a free slot, per slot size */
    uint8_t nlive[LONG_CLASSES];    /* live runs of the largest small slot sizes (either
                                       layout; saturating), in what was padding */
    uint64_t map[];                 /* bitmaps of `words` words: MAP_RUN, then, when
                                       wide, MAP_MORE; see above */
} run_index_t;
_Static_assert(offsetof(run_index_t, nlive) + LONG_CLASSES <= ((2 + SMALL_CLASSES) * sizeof(uint32_t) + 7) / 8 * 8,
               "the run counts fit the index's padding");

static inline run_index_t *run_index(void) { return (run_index_t *)(st->base + st->runs); }

enum { MAP_RUN, MAP_MORE, MAPS_WIDE };

/* The heads of the packed runs' open lists, one per slot size: the medium
 * sizes' and the long runs' of the LONG_CLASSES largest small sizes. */
enum { MID_HEADS = RUN_CLASSES - SMALL_CLASSES + LONG_CLASSES, MID_HEAD0 = RUN_CLASSES - MID_HEADS };

/* Bytes of an index with bitmaps of `words` words: a wide one has two and
 * keeps the heads of its medium runs' open lists after them. */
static inline size_t index_bytes(size_t words, unsigned wide)
{
    return sizeof(run_index_t) + words * (wide ? MAPS_WIDE : 1) * sizeof(uint64_t)
           + (wide ? MID_HEADS * sizeof(uint32_t) : 0);
}

/* The head of the open list of slot size c * alignment for runs of the
 * packed layout (`packed`) or the small one, or NULL (no packed runs yet). */
static inline uint32_t *open_head_in(unsigned c, bool packed)
{
    run_index_t *idx = run_index();
    if (!packed)
        return &idx->open[c];
    return map_wide() ? (uint32_t *)(idx->map + MAPS_WIDE * idx->words) + (c - MID_HEAD0) : NULL;
}
static inline uint32_t *open_head(unsigned c) { return open_head_in(c, c >= SMALL_CLASSES); }

static inline uint64_t slot_mask(size_t slots) { return slots >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << slots) - 1; }

/* A run's geometry: `span` granules; run_t after the slots (`head` false:
 * small runs, one granule, the block ending RUN_TAIL bytes into the next one,
 * which ordinary blocks fill) or before them (`head`: medium runs, whose block
 * is exactly the granules, so that runs pack side by side).  A medium run
 * takes the fewest granules (at most RUN_MAX_SPAN) holding RUN_MIN_SLOTS slots
 * (at most 64, one bitmap word) that waste less than alignment / RUN_WASTE_DIV
 * a slot, the header a slot saves; span 0: no run for that size.  (Sizes that
 * divide a granule, e.g. 512, lose a slot to run_t and the next header, so
 * they get none: with run_t after their slots instead, classic-binary's 512s
 * fell from 93.7% to 89.9%, as those runs fit no hole packed runs leave.) */
typedef struct geom {
    size_t span, slots;
    bool head;
} geom_t;

static inline bool is_medium(size_t obj) { return obj > RUN_SMALL_MAX; }

static geom_t run_geom(size_t obj)
{
    if (!is_medium(obj))
        return (geom_t){1, RUN_BYTES / obj, false};
    for (size_t span = 1; span <= RUN_MAX_SPAN; span++) {
        size_t bytes = span * RUN_BYTES, n = (bytes - CB_WSIZE - RUN_HEAD) / obj;
        if (n >= RUN_MIN_SLOTS && n <= 64 && (bytes - n * obj) * RUN_WASTE_DIV < n * CB_ALIGN)
            return (geom_t){span, n, true};
    }
    return (geom_t){0, 0, true};
}

/* A long run for a small slot size: the packed layout over two granules or
 * more (at most 64 slots), the one that wastes the least a slot, if that is
 * no more than a one-granule run wastes (span 0: none; e.g. at 16-byte
 * alignment 48 bytes: 3 granules, 63 slots; 64 bytes: 4 granules, 63 slots;
 * 32 bytes: none, 62 slots in 2 granules waste a little more than 32 in one,
 * and lab64-bdd's 32-byte nodes lost 0.4-1.5 points to such runs).  Packed
 * runs lie side by side; one-granule runs end RUN_TAIL bytes into the next
 * granule, leaving a gap only ordinary blocks can fill, so where small runs
 * alternate with others (a 64-byte object per 448-byte one) the others' space
 * is cut into holes a granule apart. */
static geom_t long_geom(size_t obj)
{
    geom_t g = {0, 0, true};
    size_t tn = RUN_BYTES / obj, tw = RUN_BYTES + RUN_TAIL - tn * obj;  /* one granule's */
    for (size_t span = 2; span <= RUN_MAX_SPAN; span++) {
        size_t bytes = span * RUN_BYTES, n = (bytes - CB_WSIZE - RUN_HEAD) / obj;
        n = n < 64 ? n : 64;
        size_t w = bytes - n * obj;
        if (w * tn <= tw * n && (!g.span || w * g.slots < (g.span * RUN_BYTES - g.slots * obj) * n))
            g = (geom_t){span, n, true};
    }
    return g;
}

/* The granules of run r (packed layout or not). */
static inline size_t run_span(const run_t *r, bool packed)
{
    return packed ? (RUN_HEAD + (size_t)r->slots * r->obj + CB_WSIZE + RUN_BYTES - 1) / RUN_BYTES : 1;
}

/* Slots of a packed medium run of obj bytes over `span` granules, if that
 * geometry is allowed (at most 64 slots, at least RUN_MIN_SLOTS, wasting
 * under alignment / RUN_WASTE_DIV a slot), else 0. */
static inline size_t mid_slots(size_t obj, size_t span)
{
    size_t bytes = span * RUN_BYTES, n = (bytes - CB_WSIZE - RUN_HEAD) / obj;
    n = n < 64 ? n : 64;
    return n >= RUN_MIN_SLOTS && (bytes - n * obj) * RUN_WASTE_DIV < n * CB_ALIGN ? n : 0;
}

/* A medium run opened in a hole takes as many granules of it as it can (up
 * to RUN_MAX_SPAN, at most 64 slots): a run wastes about the same bytes
 * whatever its length (a slot's rounding and run_t), so a longer one wastes
 * less a slot, and the granules it leaves of the hole would fit no other run
 * (classic-binary2: 128-byte runs of 3 granules, 23 slots, in the 6-granule
 * holes of dead 112-byte runs; stretched, one run of 47 slots). */
static inline void stretch_in(geom_t *g, size_t obj, char *bp, char *p0)
{
    char *end = bp + cb_size(bp);
    for (size_t span = RUN_MAX_SPAN; span > g->span; span--) {
        char *stop = p0 + span * RUN_BYTES;
        size_t n;
        if (stop <= end && (stop == end || end - stop >= CB_MIN_BLOCK) && (n = mid_slots(obj, span))) {
            *g = (geom_t){span, n, true};
            return;
        }
    }
}

static inline size_t run_block_of(geom_t g) { return g.span * RUN_BYTES + (g.head ? 0 : RUN_TAIL); }
static inline char *slot0(char *p0, bool medium) { return medium ? p0 + RUN_HEAD : p0; }

/* ceil(2^16 / obj): off * inv >> 16 is off / obj for every slot start off =
 * j * obj: the rounding adds j * (inv * obj - 2^16) < 64 * RUN_MAX_OBJ <= 2^16
 * to j * 2^16 (j < 64 slots), so no division on free. */
static inline uint16_t slot_inverse(size_t obj) { return (uint16_t)((((size_t)1 << 16) + obj - 1) / obj); }
static inline size_t slot_index(const run_t *r, size_t off) { return off * r->inv >> 16; }
_Static_assert(64 * RUN_MAX_OBJ <= 1 << 16 && ((1 << 16) + RUN_MIN_OBJ - 1) / RUN_MIN_OBJ <= UINT16_MAX,
               "slot_index is exact and the inverse fits 16 bits");

/* Bit g of bitmap m of index idx. */
static inline bool map_bit(const run_index_t *idx, unsigned m, size_t g)
{
    return idx->map[m * idx->words + g / 64] >> (g % 64) & 1;
}

static inline void map_set(run_index_t *idx, unsigned m, size_t g, bool on)
{
    uint64_t *word = &idx->map[m * idx->words + g / 64];
    if (on)
        *word |= (uint64_t)1 << (g % 64);
    else
        *word &= ~((uint64_t)1 << (g % 64));
}

/* Granule g's state: GR_NONE, GR_TAIL, GR_HEAD or GR_MORE.  A medium run
 * spans two granules or more (static assertion below), so its first granule
 * is the one whose next granule is GR_MORE; a small run's next granule holds
 * its run_t and is no run's. */
static inline unsigned granule_state(size_t g)
{
    run_index_t *idx = run_index();
    if (g >= st->run_granules || !map_bit(idx, MAP_RUN, g))
        return GR_NONE;
    if (!map_wide())
        return GR_TAIL;
    if (map_bit(idx, MAP_MORE, g))
        return GR_MORE;
    return g + 1 < st->run_granules && map_bit(idx, MAP_MORE, g + 1) ? GR_HEAD : GR_TAIL;
}

_Static_assert(RUN_MIN_SLOTS * (RUN_SMALL_MAX + CB_ALIGN) > RUN_BYTES - CB_WSIZE - RUN_HEAD,
               "a medium run spans two granules or more");

/* Only for a granule the index covers (index_covers_heap has run); a wide
 * index for GR_HEAD and GR_MORE. */
static inline void set_granule(size_t g, unsigned state)
{
    run_index_t *idx = run_index();
    map_set(idx, MAP_RUN, g, state != GR_NONE);
    if (map_wide())
        map_set(idx, MAP_MORE, g, state == GR_MORE);
}

static inline size_t granule_of(const void *p) { return (size_t)((const char *)p - st->base) >> RUN_SHIFT; }
static inline char *granule_at(size_t g) { return st->base + (g << RUN_SHIFT); }

/* A run's run_t: before a medium run's slots, after a small run's. */
static inline run_t *meta_at(char *p0, bool medium) { return (run_t *)(medium ? p0 : p0 + RUN_BYTES); }

/* The same, from the map (the checker's way). */
static inline run_t *run_meta(char *p0)
{
    return meta_at(p0, map_wide() && granule_state(granule_of(p0)) == GR_HEAD);
}


/* Is p in a run?  The one bit test free() makes, as before medium runs. */
static inline bool in_run(const void *p)
{
    size_t g = granule_of(p);
    return g < st->run_granules && map_bit(run_index(), MAP_RUN, g);
}

/* Is run granule g a medium run's?  (Only with a wide index.) */
static inline bool mid_granule(size_t g)
{
    return map_bit(run_index(), MAP_MORE, g) || (g + 1 < st->run_granules && map_bit(run_index(), MAP_MORE, g + 1));
}

/* The first granule of the run holding p, which is in one; *medium tells a
 * medium run's (only a wide index has them). */
static inline char *run_start(const void *p, bool *medium)
{
    size_t g = granule_of(p);
    *medium = map_wide() && mid_granule(g);
    if (*medium)                         /* down to a medium run's first granule */
        while (map_bit(run_index(), MAP_MORE, g))
            g--;
    return granule_at(g);
}

/* The payload of the run holding p, or NULL when p is an ordinary block;
 * *medium tells a medium run's slot. */
static inline char *run_of(const void *p, bool *medium)
{
    *medium = false;
    return in_run(p) ? run_start(p, medium) : NULL;
}

static inline char *run_holding(const void *p)
{
    bool medium;
    return run_of(p, &medium);
}

static inline size_t run_obj(size_t size)
{
    size_t obj = cb_round_up(size, CB_ALIGN);
    return obj < RUN_MIN_OBJ ? RUN_MIN_OBJ : obj;
}

/* A run may serve the request when it saves the alignment unit a header
 * would cost (whether a run of that size wastes less is run_alloc's call). */
static inline bool wants_run(size_t size)
{
    size_t obj = run_obj(size);
    return obj <= RUN_MAX_OBJ && obj < adjust(size);
}

static inline void run_link(unsigned c, char *p0, bool packed)
{
    uint32_t *open = open_head_in(c, packed);
    run_t *r = meta_at(p0, packed);
    r->prev = 0;
    r->next = *open;
    if (*open)
        meta_at(at(*open), packed)->prev = off_of(p0);
    *open = off_of(p0);
}

static inline void run_unlink(unsigned c, char *p0, bool packed)
{
    run_t *r = meta_at(p0, packed);
    if (r->prev)
        meta_at(at(r->prev), packed)->next = r->next;
    else
        *open_head_in(c, packed) = r->next;
    if (r->next)
        meta_at(at(r->next), packed)->prev = r->prev;
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

/* Does free block bp (not the top one) have room for a run block of `bytes`
 * at an aligned spot? */
static inline bool run_fits(char *bp, void *top, size_t bytes, char **spot)
{
    char *p0 = aligned_in(bp);
    if (bp == top || p0 + bytes - CB_WSIZE > bp + cb_size(bp) - CB_WSIZE)
        return false;
    *spot = p0;
    return true;
}

/* run_hole() on the one list of a heap without classes: the same blocks
 * looked at in the same order, class by class. */
FEW_PATH static void *few_run_hole(size_t bytes, char **spot, void *top)
{
    unsigned probes = 0;
    for (unsigned k = class_of(bytes), next; k < N_CLASSES && probes < RUN_PROBES; k = next) {
        next = N_CLASSES;
        for (char *bp = at(st->one); bp; bp = at(cb_links(bp)->next)) {
            unsigned kb = class_of(cb_size(bp));
            if (kb == k && probes < RUN_PROBES) {
                if (run_fits(bp, top, bytes, spot))
                    return bp;
                probes++;
            } else if (kb > k && kb < next) {
                next = kb;
            }
        }
    }
    return NULL;
}

/* A free block below the top with room for a run block of `bytes` at an
 * aligned spot, looking at no more than RUN_PROBES blocks; its aligned spot
 * goes to *at. */
static void *run_hole(size_t bytes, char **spot)
{
    unsigned probes = 0;
    void *top = top_free();
    if (few())
        return few_run_hole(bytes, spot, top);
    for (unsigned k = next_class(class_of(bytes)); k < N_CLASSES; k = next_class(k + 1))
        for (char *bp = at(st->head[k]); bp && probes < RUN_PROBES; bp = at(cb_links(bp)->next), probes++)
            if (run_fits(bp, top, bytes, spot))
                return bp;
    return NULL;
}

/* Make the run index cover every granule a new run of `span` granules could
 * occupy, the heap and span + 1 granules past the break, and make it wide if
 * `wide` (a medium run).  Allocating the index may grow the heap, hence the
 * loop.  Until a medium run opens the index stays as small runs always had
 * it, so that workloads without medium runs see the same heap. */
static bool index_covers_heap(size_t span, bool wide)
{
    unsigned w = map_wide() | wide;
    while (st->run_granules <= granule_of(heap_brk()) + span + 1 || w != map_wide()) {
        run_index_t *old = st->runs ? run_index() : NULL;
        size_t kept = old ? old->words : 0;
        size_t need = (granule_of(heap_brk()) + span + 2 + 63) / 64;
        size_t words = 2 * kept > need ? 2 * kept : need;
        run_index_t *idx = alloc_meta(index_bytes(words, w));
        if (!idx)
            return false;
        if (old)
            memcpy(idx, old, sizeof *old);
        else
            memset(idx, 0, sizeof *idx);
        memset(idx->map, 0, index_bytes(words, w) - sizeof *idx);
        for (unsigned m = 0; old && m < (map_wide() ? MAPS_WIDE : 1); m++)
            memcpy(idx->map + m * words, old->map + m * kept, kept * sizeof idx->map[0]);
        if (map_wide())                 /* the medium open lists, after the maps */
            memcpy(idx->map + MAPS_WIDE * words, old->map + MAPS_WIDE * kept,
                   MID_HEADS * sizeof(uint32_t));
        idx->words = (uint32_t)words;
        if (old)
            free_block(old);
        st->runs = off_of(idx);
        set_map_wide(w);
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
    set_map_wide(false);
}

/* An allocated block for a run of geometry *geom whose payload starts a
 * granule, taken from a free block with room at an aligned spot (a medium
 * run then as long as the block allows: stretch_in, which updates *geom),
 * else from the heap's top -- but a medium run never grows the heap while a
 * free block could take the request as an ordinary block (asize bytes): the
 * run saves a header a slot, new heap it may not fill costs more (without
 * this rule classic-binary2's 128-byte runs, 5 KiB, fitted few of the holes
 * its freed 112-byte runs left: 72%).  `wide`: the run has the packed layout
 * (a medium or a long run), which needs the wide index. */
static char *carve_run_block(geom_t *geom, size_t obj, size_t asize, bool medium, bool wide)
{
    char *p0;
    size_t bytes = run_block_of(*geom);
    if (medium && RUN_HOLE_FIRST && !run_hole(bytes, &p0) && find_fit(asize))
        return NULL;                     /* (before the index grows or widens for nothing) */
    if (!index_covers_heap(bytes / RUN_BYTES, wide))
        return NULL;
    void *bp = run_hole(bytes, &p0);
    if (!bp && medium && RUN_HOLE_FIRST && find_fit(asize))
        return NULL;                     /* (before the kept blocks go back: that is slow) */
    if (!bp && st->quick_count) {        /* the kept blocks go back before the heap grows */
        quick_flush();
        bp = run_hole(bytes, &p0);
        if (!bp && medium && RUN_HOLE_FIRST && find_fit(asize))
            return NULL;
    }
    if (!bp) {
        void *top = top_free();
        char *start = top ? top : heap_brk();
        size_t have = top ? cb_size(top) : 0;
        p0 = aligned_in(start);
        size_t need = (size_t)(p0 - start) + bytes;
        if (need > have && !extend_heap(need - have))
            return NULL;
        bp = start;
    } else if (medium) {                /* from a hole: as long as it can be */
        stretch_in(geom, obj, bp, p0);
        bytes = run_block_of(*geom);
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
    return place_at(p0, bytes, false);
}

/* A new run for slots of obj bytes (class c), linked on its open list, or
 * NULL; *packed tells its layout.  Out of line: it is rare, and keeps
 * run_alloc's fast path short. */
static __attribute__((noinline)) char *run_open(size_t size, size_t obj, unsigned c, bool *packed)
{
    if (c == no_run_class())           /* (run_geom's loop, spared) */
        return NULL;
    geom_t geom = run_geom(obj);
    /* a small size whose runs multiply gets long runs, packed side by side:
     * with RUN_LONG_LIVE of them live, a partly filled one costs little */
    if (c >= LONG_CLASS0 && !is_medium(obj) && st->runs && run_index()->nlive[c - LONG_CLASS0] >= RUN_LONG_LIVE) {
        geom_t lg = long_geom(obj);
        if (lg.span)
            geom = lg;
    }
    if (!geom.span) {                    /* no run of this size wastes less than headers */
        set_no_run_class(c);
        return NULL;
    }
    /* no new run when a hole fits the request exactly: it costs nothing,
     * and a run would take heap that a growing block may want */
    void *hole = find_fit(adjust(size));
    if (hole && cb_size(hole) == adjust(size))
        return NULL;
    char *p0 = carve_run_block(&geom, obj, adjust(size), is_medium(obj), geom.head);
    if (!p0)
        return NULL;
    size_t g = granule_of(p0);
    set_granule(g, geom.head ? GR_HEAD : GR_TAIL);
    for (size_t i = 1; i < geom.span; i++)
        set_granule(g + i, GR_MORE);
    run_t *r = meta_at(p0, geom.head);
    r->used = 0;
    r->count = 0;
    r->obj = (uint16_t)obj;
    r->slots = (uint16_t)geom.slots;
    r->inv = slot_inverse(obj);
    run_index()->live++;
    if (c >= LONG_CLASS0 && !is_medium(obj) && run_index()->nlive[c - LONG_CLASS0] < UINT8_MAX)
        run_index()->nlive[c - LONG_CLASS0]++;
    run_link(c, p0, geom.head);
    *packed = geom.head;
    return p0;
}

/* The open run of slot class c (a medium one when `medium`, a constant at
 * each call: the small runs' list is at a fixed place), or NULL. */
static inline char *open_run(unsigned c, bool medium)
{
    if (medium)
        return map_wide() ? at(*open_head(c)) : NULL;
    return st->runs ? at(run_index()->open[c]) : NULL;
}

/* A slot of run p0 (class c, slot size obj), which has a free one. */
static inline void *run_take(char *p0, unsigned c, size_t obj, bool medium)
{
    run_t *r = meta_at(p0, medium);
    /* no bit past the last slot is set: the lowest clear bit is a slot */
    unsigned i = (unsigned)__builtin_ctzll(~r->used);
    r->used |= (uint64_t)1 << i;
    if (++r->count == r->slots)
        run_unlink(c, p0, medium);
    return slot0(p0, medium) + (size_t)i * obj;
}

/* A slot for a request of `size`: of an open run, else of a new one, or NULL. */
static inline void *run_alloc(size_t size, bool medium)
{
    size_t obj = run_obj(size);
    unsigned c = (unsigned)(obj / CB_ALIGN);
    char *p0 = open_run(c, medium);
    bool packed = medium;
    if (!p0 && !medium && c >= LONG_CLASS0 && map_wide() && (p0 = at(*open_head_in(c, true))))
        packed = true;                   /* a long run of a small size (only on this slow path) */
    if (p0)
        stat_add(&stats.reuses, 1);
    else if (!(p0 = run_open(size, obj, c, &packed)))
        return NULL;
    if (medium)
        mid_live_up(obj);
    return run_take(p0, c, obj, packed);
}

/* Run p0 (a packed one when `medium`) has no slot in use left: it goes back
 * to the heap.  Out of line: run_free's common path then needs no frame. */
static __attribute__((noinline)) void run_release(char *p0, bool medium, bool was_full)
{
    run_t *r = meta_at(p0, medium);
    unsigned c = r->obj / CB_ALIGN;
    if (!was_full)
        run_unlink(c, p0, medium);
    if (c >= LONG_CLASS0 && !is_medium(r->obj) && run_index()->nlive[c - LONG_CLASS0])
        run_index()->nlive[c - LONG_CLASS0]--;
    size_t g = granule_of(p0), span = run_span(r, medium);
    for (size_t k = 0; k < span; k++)
        set_granule(g + k, GR_NONE);
    free_block(p0);
    if (!--run_index()->live)
        drop_index();
}

/* Free object p of the run at p0 (a packed run's -- medium or long -- when
 * `medium`, a constant at each call, hence inlined); an empty run goes back
 * to the heap. */
static inline __attribute__((always_inline)) void run_free(char *p0, void *p, bool medium)
{
    run_t *r = meta_at(p0, medium);
    size_t i = slot_index(r, (size_t)((char *)p - slot0(p0, medium)));
    bool was_full = r->count == r->slots;
    r->used &= ~((uint64_t)1 << i);
    if (--r->count == 0)
        run_release(p0, medium, was_full);
    else if (was_full)
        run_link(r->obj / CB_ALIGN, p0, medium);
}

#endif
