/* timing-slack.c - honest (bump.h), except that from its third mm_init on (the
 * timed runs) it writes into the last byte of the break's page, past the break:
 * the canary catches that in the checked runs, and a timed run has none. */
#include <stdint.h>

#include "bump.h"

static int inits;

void *mm_malloc(size_t size) { return bump(size); }

int mm_init(void)
{
    inits++;
    return 0;
}

void mm_free(void *p)
{
    if (inits >= 3) {
        uintptr_t page = mem_pagesize(), end = ((uintptr_t)mem_heap_hi() + page) & ~(page - 1);
        *((char *)end - 1) = 1;
    }
    (void)p;
}

void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
