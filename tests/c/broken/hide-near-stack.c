/* hide-near-stack.c - red team: keeps its block sizes in the stack 896 bytes
 * below the API function's frame, within the margin the parent's wipe leaves
 * below the idle child's frames.  The child now clears that margin itself
 * after every call. */
#define TABLE_SLOTS 128
#include "hide-stack.h"

static __attribute__((always_inline)) inline uint32_t *hidden_table(void)
{
    return (uint32_t *)((char *)__builtin_frame_address(0) - 896);
}

int mm_init(void) { return 0; }
