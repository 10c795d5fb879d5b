/* hide-flags.c - red team: the size of one block, one bit, kept in RFLAGS's ID
 * bit between calls.  A process may flip it (it tells the CPUID instruction is
 * there), the kernel keeps it across system calls, and no code of the driver's
 * reads or writes it.  The child now clears the flags a call may leave set after
 * each call (hide-flag.h). */
#define FLAG_BIT (1u << 21)
#include "hide-flag.h"
