/* hide-flag-nt.c - one block's size, one bit, kept in RFLAGS's NT bit (nested
 * task), which 64-bit code may set and nothing there reads (hide-flag.h). */
#define FLAG_BIT (1u << 14)
#include "hide-flag.h"
