/* hide-dso-handle.c - the sizes of 8 blocks, a byte each, kept in __dso_handle, a
 * word of the C runtime's in the driver's own data that any code linked into the
 * program can name and that only exit() reads.  Private memory of the driver's,
 * which the parent copied before mm_init: a change there is tampering. */
#include <stdint.h>

enum { SLOTS = 8, FIELD_BITS = 8 };

#include "hide-fields.h"

extern void *__dso_handle;

static inline uint64_t load(void) { return (uint64_t)(uintptr_t)__dso_handle; }
static inline void store(uint64_t v) { __dso_handle = (void *)(uintptr_t)v; }
