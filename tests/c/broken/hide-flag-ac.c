/* hide-flag-ac.c - one block's size, one bit, kept in RFLAGS's AC bit (alignment
 * check), which faults only misaligned accesses, and the driver's code between
 * two calls makes none (hide-flag.h). */
#define FLAG_BIT (1u << 18)
#include "hide-flag.h"
