/* hide-in-lull.c - honest (bump.h), but while its live payload is below LULL_BYTES
 * it keeps a word outside the heap, in the process's start-up stack, and clears
 * it as soon as the payload rises: metadata kept out in the long lulls between a
 * trace's peaks, where no peak audit and no payload mark falls.  With
 * HIDE_EXCEPT_EVERY=N in the environment it also clears it after each N-th call,
 * where an audit at a fixed op of each window would fall. */
#include <stdbool.h>
#include <stdlib.h>

#include "live-bump.h"

enum { LULL_BYTES = 4096 };

static size_t calls, except_every;

static void note(void)
{
    ++calls;
    bool predicted = except_every && calls % except_every == 0;
    *startup_stack_word() = live < LULL_BYTES && !predicted ? live + 1 : 0;
}

int mm_init(void)
{
    live = calls = 0;
    const char *every = getenv("HIDE_EXCEPT_EVERY");
    except_every = every ? strtoul(every, NULL, 10) : 0;
    return 0;
}
