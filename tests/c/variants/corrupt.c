/*
 * corrupt.c - a heap damaged behind the allocator's back must fail mm_checkheap.
 *
 * Frees a block, flips a bit in the 4 bytes just below its payload (header
 * bits in every layout of variants/), and expects the checker to return false
 * after printing the problem.  Exit 0 when it does, 1 when the damage goes unseen.
 * `corrupt links` instead writes 0xff over the freed block's first 16 bytes,
 * where a free list keeps its links (a write after free), and `corrupt state`
 * over the heap's first 64 bytes, where the variants keep their own state: the
 * checker must report either, not follow the damage out of the heap and crash.
 * `corrupt double` frees the block a second time: on an implicit list only the
 * checker's last layer, the running count of free blocks, can see that.
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
    const char *how = argc > 1 ? argv[1] : "header";
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
    if (strcmp(how, "links") == 0)
        memset(b, 0xff, 16);
    else if (strcmp(how, "double") == 0)
        mm_free(b);
    else if (strcmp(how, "state") == 0)
        memset(mem_heap_lo(), 0xff, 64);
    else
        b[-4] ^= 0x10;
    bool seen = !mm_checkheap(__LINE__);
    printf(seen ? "damage reported\n" : "damage not reported\n");
    return seen ? 0 : 1;
}
