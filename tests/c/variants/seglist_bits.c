/*
 * seglist_bits.c - the segregated lists' class bitmap must agree with the lists.
 *
 * find_fit trusts core->nonempty to say which classes hold blocks: a bit lost
 * hides a class's blocks (the heap grows instead), a bit left behind sends the
 * search to an empty list.  This includes a seglist variant whole, to reach the
 * state no caller sees, damages the bitmap three ways and expects mm_checkheap
 * to report each.  Prints one line per case; exit 0 when all are reported.
 */
#include "variants/segregated.c"

#include "driver/heap.h"

static bool reported(const char *what, uint32_t damaged)
{
    uint32_t kept = core->nonempty;
    core->nonempty = damaged;
    bool seen = !mm_checkheap(__LINE__);
    core->nonempty = kept;
    printf("%s: %s\n", what, seen ? "reported" : "not reported");
    return seen;
}

int main(void)
{
    mem_init();
    heap_restart(true);
    if (mm_init() != 0)
        return 1;
    void *a = mm_malloc(200), *b = mm_malloc(200), *c = mm_malloc(200);
    if (!a || !b || !c)
        return 1;
    mm_free(b);
    if (!mm_checkheap(__LINE__))
        return 1;
    unsigned k = class_of(blk_size(b));
    unsigned empty = k == 0 ? 1 : 0;
    if (!(core->nonempty >> k & 1) || core->head[empty])
        return 1;
    bool ok = reported("the freed block's class cleared", core->nonempty & ~(1u << k));
    ok &= reported("an empty class set", core->nonempty | 1u << empty);
    ok &= reported("a bit past the last class", core->nonempty | 1u << CORE_CLASSES);
    return ok && mm_checkheap(__LINE__) ? 0 : 1;
}
