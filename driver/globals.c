/* globals.c - the allocator's writable data, kept and put back (see globals.h). */
#include "driver/globals.h"

#include <string.h>

#include "driver/pages.h"

extern char mm_globals_data_first, mm_globals_data_last, mm_globals_bss_first, mm_globals_bss_last;

static char *kept;
static size_t kept_len;

#ifdef __SANITIZE_ADDRESS__
bool globals_keep(void) { return false; }
void globals_restore(void) {}
#else
static inline char *data_from(void) { return &mm_globals_data_first + 1; }
static inline size_t data_len(void) { return (size_t)(&mm_globals_data_last - data_from()); }
static inline char *bss_from(void) { return &mm_globals_bss_first + 1; }
static inline size_t bss_len(void) { return (size_t)(&mm_globals_bss_last - bss_from()); }

bool globals_keep(void)
{
    if (&mm_globals_data_last < data_from() || &mm_globals_bss_last < bss_from())
        return false;  /* a linker that did not keep the order */
    kept_len = data_len();
    kept = pages_alloc(kept_len ? kept_len : 1);
    if (!kept)
        return false;
    memcpy(kept, data_from(), kept_len);
    return true;
}

void globals_restore(void)
{
    if (!kept)
        return;
    memcpy(data_from(), kept, kept_len);
    memset(bss_from(), 0, bss_len());
}
#endif
