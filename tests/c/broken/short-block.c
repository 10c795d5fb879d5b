/* short-block.c - blocks end in a footer word its heap checker verifies; a TRIGGER-byte block
 * forgets the footer's room, so its footer sits in the payload's last byte: the driver's fill
 * of that payload breaks it (a student's size arithmetic one word short). */
#include <stdbool.h>
#include <stdio.h>

#include "bump.h"

enum { FOOTER = MM_ALIGNMENT };

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    size_t stride = HDR + align_up(size) + (size == TRIGGER ? 0 : FOOTER);
    char *b = mem_sbrk((intptr_t)stride);
    if (b == (void *)-1)
        return NULL;
    ((size_t *)b)[0] = size;    /* where bump.h's block_size reads it */
    ((size_t *)b)[1] = stride;
    *(size_t *)(b + stride - sizeof(size_t)) = stride;
    return b + HDR;
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }

bool mm_checkheap(int lineno)
{
    for (char *b = mem_heap_lo(); b < (char *)mem_heap_hi(); b += ((size_t *)b)[1]) {
        size_t stride = ((size_t *)b)[1];
        if (*(size_t *)(b + stride - sizeof(size_t)) != stride) {
            printf("line %d: footer of the block at %p broken\n", lineno, (void *)b);
            return false;
        }
    }
    return true;
}
