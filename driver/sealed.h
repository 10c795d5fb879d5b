/*
 * sealed.h - driver records that allocator code cannot write.
 *
 * The allocator runs in the trace's own process, so any driver variable it can
 * find it can change: the red team found the child's report by its shape in
 * .bss, or simply kept the pointer the driver handed to mm_stats.  A sealed
 * record is a static object alone in pages of its own (SEALED_BYTES, aligned to
 * them), read-only whenever allocator code can run; the driver opens it only
 * around its own writes (sealed_put), with no allocator call in between.  Its
 * address is the program's, not a pointer kept in memory an allocator could
 * redirect, and the parent knows it too (to name a write there that faulted).
 * memlib.c keeps its state pages by the same rule.
 */
#ifndef DRIVER_SEALED_H
#define DRIVER_SEALED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A whole number of pages at every page size Linux uses (4 KiB to 64 KiB), so
 * that mprotect of a record's own pages touches nothing else.  A record is
 * declared aligned(SEALED_BYTES) and exactly SEALED_BYTES long. */
enum { SEALED_BYTES = 1 << 16 };

/* Read-only (true) or writable (false); exits should mprotect fail. */
void sealed_seal(void *rec, bool seal);
/* Copy n bytes from src to dst, which lies in the sealed record rec: open, write, close. */
void sealed_put(void *rec, void *dst, const void *src, size_t n);
/* True when addr lies in rec's pages (for messages about a write there). */
static inline bool sealed_contains(const void *rec, uintptr_t addr)
{
    return addr >= (uintptr_t)rec && addr - (uintptr_t)rec < SEALED_BYTES;
}

#endif
