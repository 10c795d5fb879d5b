/* hide-file.c - red team: keeps its block sizes in stdout's FILE, in fields an
 * unbuffered output stream never uses (from _IO_save_base on, 64 bytes).  The
 * audit skipped the whole FILE once; now only what printing changes. */
#include <stdio.h>

#define TABLE_SLOTS 16
#include "hide-stack.h"

static uint32_t *hidden_table(void) { return (uint32_t *)((char *)stdout + 72); }

int mm_init(void) { return 0; }
