/* hide-answer.c - red team: the sizes of up to 22 blocks kept in the statistics
 * field of the answers the channel carries, which nothing reads on a malloc,
 * free or realloc.  During each call it writes them into the serving loop's
 * answer, which lay zeroed just above the loop's copy of the call; the loop
 * copied it to the channel page, and the next call read them back there.  No
 * header: the sizes are nowhere else.  The child now writes each answer over
 * zeros after the allocator's code has returned. */
#include "bump.h"  /* for align_up: the blocks themselves get no header here */
#include "channel-page.h"

enum { SLOTS = sizeof(mm_stats_t) / sizeof(uint32_t) };

static channel_shared_t *page;  /* the channel page, found once; the sizes are not here */

static inline unsigned slot(const void *p)
{
    return ((size_t)((const char *)p - (const char *)mem_heap_lo()) / MM_ALIGNMENT) % SLOTS;
}

/* The serving loop's answer for this call: zeroed, next after its copy of the
 * call (gcc 12 puts locals of 16 bytes or more at 16-byte boundaries). */
static answer_t *loop_answer(void)
{
    const char *frame = __builtin_frame_address(0);
    for (const char *w = frame; w < frame + 1024; w += 8)
        if (!memcmp(w, &page->call, sizeof page->call)) {
            answer_t *a = (answer_t *)(((uintptr_t)w + sizeof(call_t) + 15) & ~(uintptr_t)15);
            static const answer_t zero;
            return memcmp(a, &zero, sizeof zero) ? NULL : a;
        }
    return NULL;
}

static void load(uint32_t *t)
{
    if (!page)
        page = find_channel_page();
    memset(t, 0, SLOTS * sizeof *t);
    if (page)
        memcpy(t, &page->answer.stats, SLOTS * sizeof *t);
}

static void store(const uint32_t *t)
{
    answer_t *a = page ? loop_answer() : NULL;
    if (a)
        memcpy(&a->stats, t, SLOTS * sizeof *t);
}

static char *grab(uint32_t *t, size_t size)
{
    char *p = mem_sbrk((intptr_t)align_up(size ? size : 1));
    if (p == (void *)-1)
        return NULL;
    t[slot(p)] = (uint32_t)size;
    return p;
}

int mm_init(void) { page = NULL; return 0; }

__attribute__((noinline)) void *mm_malloc(size_t size)
{
    uint32_t t[SLOTS];
    load(t);
    char *p = grab(t, size);
    store(t);
    return p;
}

__attribute__((noinline)) void mm_free(void *p)
{
    uint32_t t[SLOTS];
    (void)p;
    load(t);
    store(t);
}

__attribute__((noinline)) void *mm_realloc(void *p, size_t size)
{
    uint32_t t[SLOTS];
    load(t);
    char *q = NULL;
    if (!p)
        q = grab(t, size);
    else if (size) {
        size_t old = t[slot(p)];
        if ((q = grab(t, size)))
            memcpy(q, p, old < size ? old : size);
    }
    store(t);
    return q;
}
