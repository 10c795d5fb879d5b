/* team.c - mm.c's team strings, read only where reading cannot fault (see team.h). */
#define _GNU_SOURCE
#include "driver/team.h"

#include <link.h>
#include <stdint.h>
#include <string.h>

#include "driver/hooks.h"

enum { MAX_SEGMENTS = 16 };

typedef struct {
    uintptr_t lo[MAX_SEGMENTS], hi[MAX_SEGMENTS];
    int n;
} image_t;

/* The main program's readable loaded segments (the first object dl_iterate_phdr names). */
static int note_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    image_t *im = data;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum && im->n < MAX_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R)) {
            im->lo[im->n] = info->dlpi_addr + ph->p_vaddr;
            im->hi[im->n++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        }
    }
    return 1;
}

/* Bytes readable from p on within one segment of the image (0: p is not in it). */
static size_t readable_from(const image_t *im, const void *p)
{
    uintptr_t a = (uintptr_t)p;
    for (int i = 0; i < im->n; i++)
        if (a >= im->lo[i] && a < im->hi[i])
            return im->hi[i] - a;
    return 0;
}

static const char *text(const image_t *im, const char *s)
{
    if (!s)
        return NULL;
    size_t room = readable_from(im, s);
    if (room > TEAM_TEXT_MAX)
        room = TEAM_TEXT_MAX;
    return room && memchr(s, '\0', room) ? s : TEAM_UNREADABLE;
}

bool team_read(team_text_t *out)
{
    static image_t im;
    if (!im.n)
        dl_iterate_phdr(note_segments, &im);
    if (!has_team() || readable_from(&im, &team) < sizeof team)
        return false;
    *out = (team_text_t){text(&im, team.teamname), text(&im, team.name1), text(&im, team.id1),
                         text(&im, team.name2), text(&im, team.id2)};
    return true;
}
