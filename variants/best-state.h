/*
 * best-state.h - the state of variants/best.c: where placement counts from,
 * the one struct that holds every mutable field (in the heap, at its top),
 * and the accessors of its packed fields.
 *
 * Part of best.c, kept apart to keep each file about one idea: it uses best.c's
 * tuning and run constants and compact.h's block layout, and is included by
 * best.c alone, after them.
 */
#ifndef VARIANTS_BEST_STATE_H
#define VARIANTS_BEST_STATE_H

/* Placement reckons addresses from an origin ORIGIN_GAP bytes below the first
 * block, not from the heap's start: runs' granules and the heap's size as
 * the rules see it (heap_span) count from there.  Every placement is then
 * independent of the state's size, so the state can shrink without moving
 * any block relative to the granules (such shifts alone move the suite's
 * average by +-0.2 points: docs/results.md).  Another layout (MM_LAYOUT,
 * config.h) moves the origin by 64 bytes a step, over a run's 1 KiB granule. */
enum { ORIGIN_GAP = 608 + 64 * (MM_LAYOUT % 16) };

/* Medium sizes earn runs by their live blocks (see earns_run): an ordinary
 * block whose request a run's slot would have served without a header carries
 * MID_MARK, a header bit spare at 16-byte alignment only (sizes are multiples
 * of 16), and is counted in st->mid_live with the live slots of medium runs.
 * At 8-byte alignment there is no spare bit (and no count): the vote decides. */
enum {
    MID_MARK = CB_ALIGN >= 16 ? 8 : 0,
    MID_COUNTED = MID_MARK ? RUN_CLASSES - SMALL_CLASSES : 0,
};
_Static_assert(!MID_MARK || (MID_MARK & (CB_ALLOC | CB_PREV_ALLOC | 4)) == 0, "a spare header bit");

/* All mutable state, in one struct at the top of the heap, just above the
 * epilogue: extend_heap moves it up (the new block takes its old place).
 * The lab's rule on globals (the grader enforces it on students: at most 128
 * writable bytes) holds here too, so that best's figures compare with
 * theirs: its metadata lives in the heap and counts against utilization like
 * any block.  The run index (best-runs.h) is an allocated block of its own
 * that exists while runs may be needed.  The globals are the pointer to the
 * state, the statistics and a count of calls (100 bytes).
 *
 * A heap with few free and kept blocks needs no size classes: it starts with
 * only the fields up to `one` and `kept` (44 bytes), its free blocks on one
 * list and its kept blocks on another, both searched whole.  Once more than
 * FEW_MAX blocks are free or kept, the heap is large (FEW_HEAP_SHIFT) or it
 * has served FEW_MALLOCS mallocs, the
 * class tables (another 436 bytes, over `kept`) are added at the state's end
 * and the lists dealt out to them (add_classes); they stay.  The searches of
 * the one list give the block the classes would (the smallest that fits, the
 * newest of its size; the lowest for a huge block), so the placements are
 * the same either way (ORIGIN_GAP makes them independent of where the state
 * lies), and the small heaps (a few KiB: the tables were a tenth of one)
 * save the tables' bytes.  The cost: the state's copy at each growth (about
 * 70 instructions once classed), a test of few() per call on the hot paths. */
struct best {
    char *base;                    /* the origin: offsets count from here */
    size_t mean;                   /* running mean of recent block sizes, x16 */
    uint32_t runs;                 /* the run index (an offset), while there is one */
    uint32_t run_granules;         /* granules its map covers (0 without one) */
    uint32_t free_count;
    uint32_t small_live;           /* about how many small blocks are live */
    uint32_t one;                  /* without class tables: every free block, LIFO;
                                      with them CLASSED */
    uint8_t quick_count;           /* blocks on all the quick lists (at most N_QUICK * QUICK_DEPTH) */
    uint8_t mid;                   /* medium runs: MID_WIDE while the run index has MAP_MORE
                                      and the medium open lists; below it the medium block
                                      size / alignment that leads the vote (lead_size) ... */
    uint16_t lead_count;           /* ... by this much (see vote) */
    union {
        uint32_t kept;             /* without them: every kept block, LIFO */
        struct {                   /* the class tables */
            uint64_t map[MAP_WORDS];       /* bit k set <=> head[k] != 0 */
            uint32_t head[N_CLASSES];      /* list heads, as offsets */
            uint32_t quick[N_QUICK];       /* quick lists: freed blocks kept allocated, LIFO */
            uint8_t quick_len[N_QUICK];
            uint8_t no_run_class;          /* the last run class found to have no geometry
                                              (a cache: a heap without the tables has none) */
            uint8_t mid_live[MID_COUNTED];  /* per medium slot size: marked blocks and
                                              medium run slots live (saturating) */
        };
    };
};

/* 480 bytes with the tables: at 16-byte alignment the heap's first 12 bytes
 * are padding below the first block, and 12 + 4 (the first header) + 480 is
 * what the state cost at the bottom (496): no heap grew by the move.  The
 * medium sizes' live counts, added since, pay for themselves in headers. */
_Static_assert(sizeof(struct best) <= 480 + (MID_COUNTED + 7) / 8 * 8,
               "the state at the top costs no more than at the bottom, but mid_live");

enum {
    TABLES = offsetof(struct best, map),         /* where the class tables start */
    FEW_BYTES = offsetof(struct best, kept) + sizeof(uint32_t),  /* the state without them */
    FEW_MAX = 8,               /* free and kept blocks a heap without classes may have */
    FEW_HEAP_SHIFT = 7,        /* ... and its size: below 128 times the tables' bytes */
    FEW_MALLOCS = 1 << 16,     /* ... and the mallocs it serves: a heap still that small after
                                  so many is a long-lived program's, whose time is worth more
                                  than the tables' bytes (a malloc+free loop as the process's
                                  malloc ran 2.2x glibc's time on one list, 1.25x classed) */
};
static const uint32_t CLASSED = UINT32_MAX;     /* st->one once the class tables exist */

/* The medium runs' fields fit where the 44-byte state had room (quick_count
 * was 32 bits; the tables had a byte of padding): the state without the
 * tables is no longer, with them no larger.  Medium runs work with or
 * without the tables (the vote and the wide index are in the first 44
 * bytes), only the cache no_run_class needs them. */
enum { MID_WIDE = 0x80 };
_Static_assert(FEW_BYTES <= 44, "the medium runs' fields do not lengthen the state without the tables");
_Static_assert(N_QUICK * QUICK_DEPTH <= UINT8_MAX, "quick_count holds every kept block");
_Static_assert((RUN_MAX_OBJ + CB_ALIGN) / CB_ALIGN < (int)MID_WIDE && RUN_CLASSES <= UINT8_MAX,
               "the medium sizes / alignment fit below MID_WIDE, the run classes in no_run_class");

static struct best *st;
static mm_stats_t stats;
static uint32_t few_mallocs;       /* mallocs served without the class tables */

/* ------------------------------------------------------------ offsets and fields */

static inline void *at(uint32_t off) { return off ? st->base + off : NULL; }
static inline uint32_t off_of(const void *bp) { return (uint32_t)((const char *)bp - st->base); }
/* The blocks end where the state begins: it lies at the top of the heap. */
static inline char *heap_brk(void) { return (char *)st; }
static inline bool is_epilogue(const void *bp) { return cb_size(bp) == 0; }
static inline char *first_block(void) { return st->base + ORIGIN_GAP; }
/* The heap's size as placement sees it: from the origin to the break. */
static inline size_t heap_span(void) { return (size_t)(heap_brk() - st->base); }

/* Without the class tables: a branch the classed heap always predicts; the
 * paths it leads to are kept out of line. */
static inline bool few(void) { return __builtin_expect(st->one != CLASSED, 0); }
static inline size_t state_bytes(void) { return few() ? FEW_BYTES : sizeof *st; }
#define FEW_PATH __attribute__((noinline, cold))

/* Medium runs' fields: the flag and the vote's leader in st->mid; the cache
 * of a class without a run, kept only with the tables (0: no class). */
static inline bool map_wide(void) { return st->mid & MID_WIDE; }
static inline void set_map_wide(bool wide) { st->mid = (uint8_t)((st->mid & ~MID_WIDE) | (wide ? MID_WIDE : 0)); }
static inline unsigned lead_size(void) { return st->mid & ~MID_WIDE; }
static inline void set_lead_size(unsigned b) { st->mid = (uint8_t)((st->mid & MID_WIDE) | b); }
static inline unsigned no_run_class(void) { return few() ? 0 : st->no_run_class; }
static inline void set_no_run_class(unsigned c)
{
    if (!few())
        st->no_run_class = (uint8_t)c;
}

/* mid_live's slot for a medium block of bsize bytes (one whose slot is bsize
 * less the alignment), or for a slot of obj bytes. */
static inline uint8_t *mid_live_of_obj(size_t obj) { return &st->mid_live[obj / CB_ALIGN - SMALL_CLASSES]; }
static inline void mid_live_up(size_t obj)
{
    if (MID_MARK && !few()) {
        uint8_t *n = mid_live_of_obj(obj);
        *n += *n < UINT8_MAX;
    }
}
static inline void mid_live_down(size_t obj)
{
    if (MID_MARK && !few()) {
        uint8_t *n = mid_live_of_obj(obj);
        *n -= *n > 0;
    }
}
/* Ordinary block bp stops being a live or kept block of its size. */
static inline void mid_unmark(void *bp)
{
    if (MID_MARK && (*cb_hdr(bp) & MID_MARK)) {
        *cb_hdr(bp) &= ~(cb_word_t)MID_MARK;
        mid_live_down(cb_size(bp) - CB_ALIGN);
    }
}

#endif
