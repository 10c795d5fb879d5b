/*
 * globals.h - the allocator's own writable data, as the program started with it.
 *
 * mm_init must reset the allocator's state, but the driver cannot tell state
 * from a table kept on purpose: a placement table memorized in one run and
 * replayed in a later timed one could sit in the allocator's .bss.  The linker
 * places the allocator's .data and .bss between those of driver/mark/first.c
 * and driver/mark/last.c (input sections keep the command line's order), so the
 * child can copy them at its start, before any allocator code runs, and put them
 * back before each timed run: a timed run starts as a fresh process would.  An
 * allocator that passed the second checked run places blocks the same from
 * either start.  (Not in AddressSanitizer builds: the copy would cross the
 * redzones ASan puts between globals.)
 */
#ifndef DRIVER_GLOBALS_H
#define DRIVER_GLOBALS_H

#include <stdbool.h>

/* Copy the allocator's data as it is now; false when out of memory or not possible. */
bool globals_keep(void);
/* Put it back, and zero the allocator's .bss. */
void globals_restore(void);

#endif
