/*
 * corrupt.c - a heap damaged behind the allocator's back must fail mm_checkheap.
 *
 * Frees a block, flips a bit in the 4 bytes just below its payload (header
 * bits in every layout of variants/), and expects the checker to return false
 * after printing the problem.  Exit 0 when it does, 1 when the damage goes unseen.
 * `corrupt links` instead writes 0xff over the freed block's first 16 bytes,
 * where a free list keeps its links (a write after free): the checker must
 * report it, not follow the links out of the heap.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "driver/heap.h"
#include "memlib.h"
#include "mm.h"

bool mm_checkheap(int lineno);

int main(int argc, char **argv)
{
    bool links = argc > 1 && strcmp(argv[1], "links") == 0;
    mem_init();
    heap_restart(true);
    if (mm_init() != 0)
        return 1;
    unsigned char *a = mm_malloc(200), *b = mm_malloc(200), *c = mm_malloc(200);
    if (!a || !b || !c || !mm_checkheap(__LINE__))
        return 1;
    mm_free(b);
    if (!mm_checkheap(__LINE__))
        return 1;
    if (links)
        memset(b, 0xff, 16);
    else
        b[-4] ^= 0x10;
    bool seen = !mm_checkheap(__LINE__);
    printf(seen ? "damage reported\n" : "damage not reported\n");
    return seen ? 0 : 1;
}
