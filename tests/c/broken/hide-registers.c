/* hide-registers.c - red team: block sizes kept in registers xmm8-xmm15 between calls
 * (128 bytes: 32 slots).  The audit reads memory; the kernel saves and restores
 * a process's vector registers, and the driver's code between two calls (the
 * channel, memlib) does not use xmm8-15 here.  realloc copies with a loop of
 * its own (libc's AVX memcpy might use them).  Inline asm moves no more than
 * registers: no system call.  The child now clears the vector registers after
 * every call. */
#include "bump.h"
#define HIDDEN_SLOTS 32
typedef struct { uint32_t s[HIDDEN_SLOTS]; } table_t;
static inline void load(table_t *t)
{
    __asm__ volatile("movdqu %%xmm8, 0(%0)\n\tmovdqu %%xmm9, 16(%0)\n\tmovdqu %%xmm10, 32(%0)\n\tmovdqu %%xmm11, 48(%0)\n\t"
                     "movdqu %%xmm12, 64(%0)\n\tmovdqu %%xmm13, 80(%0)\n\tmovdqu %%xmm14, 96(%0)\n\tmovdqu %%xmm15, 112(%0)"
                     :: "r"(t) : "memory");
}
static inline void store(const table_t *t)
{
    __asm__ volatile("movdqu 0(%0), %%xmm8\n\tmovdqu 16(%0), %%xmm9\n\tmovdqu 32(%0), %%xmm10\n\tmovdqu 48(%0), %%xmm11\n\t"
                     "movdqu 64(%0), %%xmm12\n\tmovdqu 80(%0), %%xmm13\n\tmovdqu 96(%0), %%xmm14\n\tmovdqu 112(%0), %%xmm15"
                     :: "r"(t) : "memory", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}
static inline size_t rt_slot(const void *p) { return ((size_t)((const char *)p - (const char *)mem_heap_lo()) / MM_ALIGNMENT) % HIDDEN_SLOTS; }
int mm_init(void) { table_t t = {{0}}; store(&t); return 0; }
void *mm_malloc(size_t size)
{
    table_t t;
    load(&t);
    char *p = mem_sbrk((intptr_t)align_up(size ? size : 1));
    if (p == (void *)-1)
        return NULL;
    t.s[rt_slot(p)] = (uint32_t)size;
    store(&t);
    return p;
}
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size)
{
    if (!p)
        return mm_malloc(size);
    if (!size)
        return NULL;
    table_t t;
    load(&t);
    size_t old = t.s[rt_slot(p)];
    char *q = mm_malloc(size);
    if (q)
        for (size_t i = 0; i < old && i < size; i++)
            ((volatile char *)q)[i] = ((char *)p)[i];
    return q;
}
