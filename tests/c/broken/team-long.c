/* team-long.c - a team name of 292 characters. */
#include "bump.h"

#define A10 "aaaaaaaaaa"
#define A100 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10

team_t team = {A100 A100 "bbbbbbbbbb" A10 A10 A10 A10 A10 A10 A10 A10 "zz", "Ada", "", "", ""};

int mm_init(void) { return 0; }
void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
