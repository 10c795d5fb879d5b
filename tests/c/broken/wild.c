/* wild.c - segv.c writing through a garbage pointer, one no process may hold
 * (non-canonical: the CPU faults without saying where), as a size or link read
 * from a payload or a corrupted header gives. */
#define WILD_ADDRESS 0xdeadbeefdeadbeefull
#include "segv.c"
