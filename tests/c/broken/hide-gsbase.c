/* hide-gsbase.c - red team: the sizes of 8 blocks, 4 bits each, kept in the GS
 * segment's base between calls.  Where the kernel lets user code write it
 * (FSGSBASE, Linux 5.9 and later), wrgsbase is one instruction, no system call
 * the sandbox could refuse, and nothing on x86-64 Linux reads GS: 47 bits that
 * outlive every call.  The child now puts the base back after each call. */
#include <stdint.h>

enum { SLOTS = 8, FIELD_BITS = 4 };

#include "hide-fields.h"

static inline uint64_t load(void) { uint64_t v; __asm__ volatile("rdgsbase %0" : "=r"(v)); return v; }
static inline void store(uint64_t v) { __asm__ volatile("wrgsbase %0" :: "r"(v)); }
