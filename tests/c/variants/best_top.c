/*
 * best_top.c - best's heap growth counts a free block at the top of the heap.
 *
 * best's list search looks at no more than BEST_PROBES blocks of a class, so
 * it can miss a free block at the heap's top that fits.  grow_for then grew
 * the heap by the request less that block, below zero: the sbrk failed and a
 * request the heap could serve came back NULL (or, for an exact fit, the heap
 * grew by a block it did not need).  alloc_meta, which takes the run index's
 * block, searched the same way and subtracted the same way: its cases call it
 * directly.  This includes best.c whole, to shape the top block through its
 * state and to reach alloc_meta.  Exit 0 when every case passes.
 */
#include "variants/best.c"

#include <stdlib.h>

#include "driver/heap.h"

enum { BLOCKS = 2 * (BEST_PROBES + 40), TOP = 624 };

/* A fresh heap: BLOCKS / 2 free 592-byte blocks ahead of a free TOP-byte block
 * at the heap's top on the list of their class [576, 640), then malloc(request),
 * or alloc_meta(request) when `meta`. */
static bool top_case(size_t request, bool meta, const char *what)
{
    heap_restart(true);
    if (mm_init() != 0)
        return false;
    char **s = malloc(BLOCKS * sizeof *s);
    for (int i = 0; i < BLOCKS; i++)
        s[i] = mm_malloc(588);
    /* small requests take the bottom of the top block: leave TOP bytes of it */
    while (top_free() && cb_size(top_free()) >= TOP + 48)
        mm_malloc(44);
    if (top_free() && cb_size(top_free()) > TOP)
        mm_malloc(cb_size(top_free()) - TOP - CB_WSIZE);
    bool shaped = top_free() && cb_size(top_free()) == TOP;
    for (int i = 0; i < BLOCKS; i += 2)
        mm_free(s[i]);
    free(s);
    size_t heap = mem_heapsize();
    void *p = meta ? alloc_meta(request) : mm_malloc(request);
    bool ok = shaped && p && mem_heapsize() == heap && mm_checkheap(__LINE__);
    printf("%s: %s%s\n", what, shaped ? "" : "top block not shaped, ", ok ? "ok" : p ? "heap grew" : "NULL");
    return ok;
}

int main(void)
{
    mem_init();
    bool ok = top_case(604, false, "top block larger than the request");
    ok &= top_case(TOP - CB_WSIZE, false, "top block the request's size");
    ok &= top_case(604, true, "alloc_meta, top block larger than the request");
    ok &= top_case(TOP - CB_WSIZE, true, "alloc_meta, top block the request's size");
    return ok ? 0 : 1;
}
