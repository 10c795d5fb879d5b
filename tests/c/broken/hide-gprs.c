/* hide-gprs.c - red team: the sizes of 8 blocks, a byte each, kept in register r8
 * between calls.  r8 is caller-saved, so the allocator may leave anything in it,
 * and the driver's code between two calls (the channel, memlib) left it alone on
 * gcc 12 (r9 too; the others were overwritten or are the caller's to keep).  No
 * header: the sizes are nowhere else.  The child now zeroes every register a
 * call may leave changed after each call. */
#include "bump.h"  /* for align_up: the blocks themselves get no header here */

static inline uint64_t load(void) { uint64_t v; __asm__ volatile("mov %%r8, %0" : "=r"(v)); return v; }
static inline void store(uint64_t v) { __asm__ volatile("mov %0, %%r8" :: "r"(v) : "r8"); }
static inline unsigned slot(const void *p) { return ((size_t)((const char *)p - (const char *)mem_heap_lo()) / MM_ALIGNMENT) % 8; }

static char *grab(uint64_t *t, size_t size)
{
    char *p = mem_sbrk((intptr_t)align_up(size ? size : 1));
    if (p == (void *)-1)
        return NULL;
    *t &= ~((uint64_t)0xff << (8 * slot(p)));
    *t |= (uint64_t)(size & 0xff) << (8 * slot(p));
    return p;
}

int mm_init(void) { store(0); return 0; }
void *mm_malloc(size_t size) { uint64_t t = load(); char *p = grab(&t, size); store(t); return p; }
void mm_free(void *p) { uint64_t t = load(); (void)p; store(t); }
void *mm_realloc(void *p, size_t size)
{
    uint64_t t = load();
    char *q = NULL;
    if (!p)
        q = grab(&t, size);
    else if (size) {
        size_t old = (t >> (8 * slot(p))) & 0xff;
        if ((q = grab(&t, size)))
            for (size_t i = 0; i < old && i < size; i++)
                ((volatile char *)q)[i] = ((char *)p)[i];
    }
    store(t);
    return q;
}
