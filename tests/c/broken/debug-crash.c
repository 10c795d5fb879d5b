/* debug-crash.c - printf debugging: a numbered line for every mm_malloc, and a last line
 * before a TRIGGER-byte request writes through a wild pointer (address 0x10). */
#include <stdio.h>

#include "bump.h"

static char *volatile wild = (char *)0x10;
static int calls;

int mm_init(void) { calls = 0; return 0; }

void *mm_malloc(size_t size)
{
    printf("mm_malloc #%d (%zu bytes)\n", ++calls, size);
    if (size == TRIGGER) {
        printf("last words before the crash\n");
        *wild = 1;
    }
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
