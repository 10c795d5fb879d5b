/* hide-channel.c - keeps its block sizes in the last KiB of the channel page,
 * past the answer: bytes of a page the driver shares with the trace's process
 * that no one writes, and that the parent's copy of the child's private memory
 * never held.  The parent checks at each audit that they are still zero. */
#define TABLE_SLOTS 256  /* 1 KiB at the page's end */
#include "hide-stack.h"
#include "channel-page.h"

static uint32_t *table;

/* Found at the first call after mm_init, as hide-answer.c finds it. */
static uint32_t *hidden_table(void)
{
    if (!table) {
        channel_shared_t *page = find_channel_page();
        table = page ? (uint32_t *)((char *)page + 4096) - TABLE_SLOTS : (uint32_t *)mem_heap_lo();
    }
    return table;
}

int mm_init(void) { table = NULL; return 0; }
