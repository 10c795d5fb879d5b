/*
 * team.h - mm.c's optional `team_t team` as the driver may read it.
 *
 * The team struct and the strings it points to are the allocator's data, read
 * by the parent (the header line, the JSON), where a stray pointer would crash
 * the driver itself.  A pointer is followed only when the string it names lies
 * in the program's own loaded image (the allocator's data and string literals
 * are there) and ends within TEAM_TEXT_MAX bytes of it; any other is shown as
 * TEAM_UNREADABLE.
 */
#ifndef DRIVER_TEAM_H
#define DRIVER_TEAM_H

#include <stdbool.h>

enum { TEAM_TEXT_MAX = 65536 };
#define TEAM_UNREADABLE "(unreadable)"

/* The five strings of mm.c's team; NULL where the allocator's pointer is NULL. */
typedef struct {
    const char *teamname, *name1, *id1, *name2, *id2;
} team_text_t;

/* False when mm.c defines no team (or the struct itself is not readable). */
bool team_read(team_text_t *out);

#endif
