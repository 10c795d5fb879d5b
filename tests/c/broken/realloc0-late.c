/* realloc0-late.c - honest in the checked runs, where it keeps the last block
 * freed and hands it out again when it fits; its realloc(p, 0) returns a block
 * (which the driver accepts and frees).  In the timed runs (mm_init's third call
 * on), after such a realloc, a request of TRIGGER bytes gets a fresh block at the
 * break instead: the timed run differs from the checked ones only past that op. */
#include <stdbool.h>

#include "bump.h"

static char *spare;
static bool after_zero;
static int inits;

int mm_init(void)
{
    inits++;
    spare = NULL;
    after_zero = false;
    return 0;
}

void *mm_malloc(size_t size)
{
    if (spare && block_size(spare) >= size && !(inits >= 3 && after_zero && size == TRIGGER)) {
        char *p = spare;
        spare = NULL;
        return p;
    }
    return bump(size);
}

void mm_free(void *p)
{
    if (p)
        spare = p;
}

void *mm_realloc(void *p, size_t size)
{
    if (p && !size) {
        mm_free(p);
        void *q = mm_malloc(0);
        after_zero = true;
        return q;
    }
    return copy_realloc(p, size);
}
