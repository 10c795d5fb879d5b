/*
 * best-choice.h - which requests the runs serve (included by best.c, in the
 * middle of it: it uses best's state, its blocks and the runs of best-runs.h).
 *
 * A small request goes to a run once enough small blocks live to fill runs.
 * A medium one only when its size has shown that runs would pay: at 16-byte
 * alignment by the headers its live ordinary blocks cost (earns_run, counted
 * with the MID_MARK bit), at 8 by leading a majority vote over the medium
 * requests that need new space.  Everything else takes an ordinary block.
 */
#ifndef BEST_CHOICE_H
#define BEST_CHOICE_H

/* A small block: one a small run's slot may stand for (every size such a run
 * serves is at most this). */
static inline bool is_small_block(size_t bsize) { return bsize <= RUN_SMALL_MAX + CB_ALIGN; }

/* Note a request of size bytes (asize as a block); does it go to a small run? */
static inline bool takes_run(size_t size, size_t asize)
{
    note_request(asize);
    if (!is_small_block(asize))
        return false;
    st->small_live++;
    /* runs pay off once enough small blocks live to fill them */
    return wants_run(size) && st->small_live >= RUN_MIN_LIVE;
}

/* A medium block: one a medium run's slot may stand for. */
static inline bool is_mid_block(size_t bsize)
{
    return !is_small_block(bsize) && bsize <= RUN_MAX_OBJ + CB_ALIGN;
}

/* Has a medium run of this request's slot size a free slot? */
static inline bool mid_open(size_t size, size_t asize)
{
    return is_mid_block(asize) && map_wide() && wants_run(size)
           && open_run((unsigned)(run_obj(size) / CB_ALIGN), true);
}

/* At 8-byte alignment (no MID_MARK), the medium size runs are for: a majority
 * vote (Boyer and Moore's) over the
 * medium requests that need new space -- not served by a quick list or an
 * open run -- so that runs open for the size a workload keeps asking fresh
 * space for, while malloc's and free's fast paths do nothing more than before
 * medium runs.  A request of another size takes a vote from the leader, and
 * so does a free of the leader's size that reaches the free lists (without
 * that: suite +0.09 instead of +0.14, classic-binary2 92.5% instead of 93.4%).
 * A run fills when most requests want its size; when many sizes mix, partly
 * filled runs of each cost more than the headers they save (every medium
 * size in runs: suite -0.36 points). */
static inline void vote(size_t bsize)
{
    /* selects, not branches: with sizes mixed at random, branches on the
     * vote were mispredicted often */
    unsigned b = (unsigned)(bsize / CB_ALIGN), lead = lead_size(), n = st->lead_count;
    bool same = b == lead, take = !same && n == 0;
    set_lead_size(take ? b : lead);
    st->lead_count = (uint16_t)(same ? n + (n < UINT16_MAX) : take ? 1 : n - 1);
}

/* A block of bsize bytes was freed (any size: only a medium one can match
 * the leader, which is 0 until a medium request votes). */
static inline void mid_freed(size_t bsize)
{
    if (!MID_MARK && bsize / CB_ALIGN == lead_size() && st->lead_count)
        st->lead_count--;
}

/* Has the medium slot size obj earned runs (16-byte alignment)?  Its live
 * blocks' headers (one alignment unit each) must come to RUN_EARN / 4 of a
 * run's bytes (run_geom's run: one stretched over a hole costs no new heap),
 * what a run half filled wastes.  Between the two rules tried before: every
 * medium size in runs lost 1.8 points (partly filled runs of sizes with few
 * live blocks: at lab64-syn-struct's peak 38 KB of them against 25 KB of
 * headers saved); runs for the vote's leader alone left every other size's
 * headers unpaid (lab64-syn-struct and -string: 2-3% of the heap at its
 * peak).  Measured against the vote: suite +0.10, held-out +0.05; over 16
 * origin layouts +0.02 and +0.05 (held-out better at all 16; lab64-syn-struct
 * +1.1, -string +0.7, lab64-cbit-a -0.55, classic-binary -0.1).  Before
 * long and stretched runs: a quarter of a run +0.03 / +0.11
 * (small heaps lose); three quarters or a whole run -0.01..+0.03; runs for
 * such a size allowed to grow the heap while a hole fits the request -0.23 /
 * -0.29 (classic-binary2 93.5% -> 86%).  The count saturates at 255, a byte
 * a size (sizes whose runs span 8 granules need 255, not 256). */
static bool earns_run(size_t obj)
{
    if (!MID_MARK || few())
        return false;
    size_t n = *mid_live_of_obj(obj);
    if (n * CB_ALIGN * 4 < (size_t)RUN_EARN * 2 * RUN_BYTES)     /* (a medium run spans 2 granules or more) */
        return false;
    geom_t g = run_geom(obj);
    size_t need = (size_t)RUN_EARN * g.span * RUN_BYTES / (CB_ALIGN * 4);
    return g.span && n >= (need < UINT8_MAX ? need : UINT8_MAX);
}

/* A medium request that no kept block or open run serves: does a slot of a
 * new run take it (its size earned runs at 16-byte alignment, leads the vote
 * at 8)?  mid_slow: that slot, else NULL, out of line, off the malloc paths
 * that need no new space. */
static inline bool mid_takes_run(size_t size, size_t asize)
{
    if (!MID_MARK)
        vote(asize);
    if (!wants_run(size))
        return false;
    return (!MID_MARK && st->lead_count >= RUN_MID_LIVE && asize / CB_ALIGN == lead_size()) || earns_run(run_obj(size));
}

static __attribute__((noinline)) void *mid_slow(size_t size, size_t asize)
{
    return mid_takes_run(size, asize) ? run_alloc(size, true) : NULL;
}

/* An ordinary block for a medium request that a run's slot would have served
 * without a header: marked and counted. */
static inline void mid_mark(void *bp, size_t size, size_t asize)
{
    if (MID_MARK && bp && is_mid_block(asize) && wants_run(size) && !few()) {
        *cb_hdr(bp) |= MID_MARK;
        mid_live_up(asize - CB_ALIGN);
    }
}

static inline void *mid_request(size_t size, size_t asize)
{
    return is_mid_block(asize) ? mid_slow(size, asize) : NULL;
}

#endif
