/* hide-flag-df.c - one block's size, one bit, kept in RFLAGS's DF bit (direction),
 * which only string instructions read (hide-flag.h). */
#define FLAG_BIT (1u << 10)
#include "hide-flag.h"
