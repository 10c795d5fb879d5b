/* hide-thread-block.c - red team: keeps its block sizes in glibc's thread
 * descriptor at the thread pointer, in words the child never uses (576 bytes
 * at tp + 128), found with no symbol and no system call.  The audit skipped
 * the whole descriptor once; now only the kernel's rseq area. */
#define TABLE_SLOTS 144
#include "hide-stack.h"

static uint32_t *hidden_table(void) { return (uint32_t *)((char *)__builtin_thread_pointer() + 128); }

int mm_init(void) { return 0; }
