/*
 * best-pins.h - pins, in variants/best.c (included after best-runs.h: it uses
 * the free lists and place_in).
 *
 * On heaps of random sizes a small block that exactly fills a sliver just
 * below a large block becomes a pin: when the large block and the one below
 * the sliver die, their holes cannot merge, and a large request grows the heap
 * beside two holes that together would hold it (lab64-syn-array: a 48-byte
 * block between holes of 1,920 and 23,024 bytes).  So a small request (at
 * most half the running mean) whose best fit it would fill (no rest) just
 * below a large block (over twice the mean) takes another hole if one is near
 * at hand (unpin_fit).  Over 16 origin layouts: suite +0.07, held-out +0.04
 * (lab64-syn-array +1.7, lab64-syn-mix +0.8); 165 extra seeds +0.25.  The
 * test sits in place_in's no-split branch, where the hole's size and the
 * header above it are read anyway, and only for malloc's fits from the free
 * lists (realloc's too: less on the extra seeds); so only the searches cost:
 * 2.2% more allocator instructions on the suite at 16 bytes leaving out the
 * chaotic traces (8-10% on lab64-syn-array and -mix), 4.3% at 8.  Wider rules
 * gained more for far more instructions: every small request (up to the
 * mean, not half), extra seeds +0.33 for 7.8%. */
#ifndef BEST_PINS_H
#define BEST_PINS_H

/* bp0, the best fit of a small request of asize bytes, is a sliver below a
 * large block: the best hole not below one, of the first class that has
 * one, among the next PIN_PROBES blocks that fit; else bp0.  (The slivers
 * passed over stay at the head of their list, and the next request of their
 * size passes over them again: moving them to the list's end costs more.) */
static void *unpin_fit(size_t asize, void *bp0)
{
    size_t mean = st->mean;
    unsigned probes = 0;
    for (unsigned k = next_class(class_of(asize)); k < N_CLASSES - 1; k = next_class(k + 1)) {
        void *best = NULL;
        size_t best_size = (size_t)-1;
        for (char *bp = at(st->head[k]); bp; bp = at(cb_links(bp)->next)) {
            size_t size = cb_size(bp);
            if (size < asize || size >= best_size)
                continue;
            if (!below_large(bp, mean)) {
                best = bp;
                best_size = size;
                if (size == asize || is_exact(k))
                    break;
            }
            if (++probes >= PIN_PROBES)
                break;
        }
        if (best)
            return best;
        if (probes >= PIN_PROBES)
            break;
    }
    return bp0;
}

/* place_in's pin: the small request goes to the bottom of unpin_fit's hole. */
static __attribute__((noinline)) void *unpin_place(void *bp, size_t asize)
{
    bp = unpin_fit(asize, bp);
    return place_in(bp, asize, false, class_of(cb_size(bp)), true, false);
}

#endif
