/*
 * hide-tagged.h - for hide-fields.h's word kept in several registers at once:
 * stored in each, tagged in its top byte (the fields take 56 bits at most), and
 * read back from the first that still holds the tag, so that any one of them
 * the driver's code between two calls leaves alone keeps the word.
 */
#ifndef BROKEN_HIDE_TAGGED_H
#define BROKEN_HIDE_TAGGED_H

#include <stdint.h>

static const uint64_t TAG = 0xA5ull << 56, TAG_MASK = 0xFFull << 56;

static inline uint64_t tagged(uint64_t word) { return word | TAG; }

/* The word in the first of the N registers' values R that holds the tag, else 0. */
static inline uint64_t first_tagged(const uint64_t *r, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if ((r[i] & TAG_MASK) == TAG)
            return r[i] & ~TAG_MASK;
    return 0;
}

#endif
