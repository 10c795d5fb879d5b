/* team-pointers.c - a team struct whose strings are not strings: one pointer
 * near NULL, one into the simulated heap, one fine.  The parent reads them. */
#include "bump.h"

team_t team = {(char *)1, (char *)0x500000000010, "ada@example.edu", NULL, ""};

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
