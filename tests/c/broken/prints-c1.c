/* prints-c1.c - correct, but prints the 8-bit terminal controls as UTF-8 text: CSI (U+009B)
 * "2J", which clears a terminal that takes it as ESC [ does, and OSC (U+009D) setting the
 * window's title. */
#include <stdio.h>

#include "bump.h"

int mm_init(void)
{
    printf("before\xc2\x9b" "2J|\xc2\x9d" "0;pwned\x07|after\n");
    return 0;
}

void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
