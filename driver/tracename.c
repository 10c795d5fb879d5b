/* tracename.c - a trace's name (see tracename.h). */
#include "driver/tracename.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names a piped trace may not take: the run's files' and earlier pipes'.  Kept for
 * the process's life (a pipe's trace is read once, and may be run later). */
static char **taken;
static size_t n_taken;

static void take(const char *name)
{
    char **more = realloc(taken, (n_taken + 1) * sizeof *taken);
    if (!more)
        return;
    taken = more;
    if ((taken[n_taken] = strdup(name)))
        n_taken++;
}

static bool is_taken(const char *name)
{
    for (size_t i = 0; i < n_taken; i++)
        if (!strcmp(taken[i], name))
            return true;
    return false;
}

void tracename_of_path(const char *path, char *buf, size_t len)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(buf, len, "%s", base);
    for (const char *suffix = ".gz"; suffix; suffix = suffix[1] == 'g' ? ".rep" : NULL) {
        size_t n = strlen(buf), k = strlen(suffix);
        if (n > k && strcmp(buf + n - k, suffix) == 0)
            buf[n - k] = '\0';
    }
}

void tracename_reserve(char *const *paths, size_t n)
{
    char name[256];
    for (size_t i = 0; i < n; i++) {
        tracename_of_path(paths[i], name, sizeof name);
        take(name);
    }
}

static inline bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == '+';
}

/* NAME of a first line "# NAME: ..." that fits in size bytes, into buf; false when there is none.
 * Only name characters: a baseline file separates its fields by spaces. */
static bool first_line_name(const char *bytes, size_t len, char *buf, size_t size)
{
    size_t i = 0, n = 0;
    if (!len || bytes[0] != '#')
        return false;
    for (i = 1; i < len && bytes[i] == ' '; i++)
        ;
    while (i + n < len && name_char(bytes[i + n]))
        n++;
    if (!n || n >= size || i + n == len || bytes[i + n] != ':')
        return false;
    memcpy(buf, bytes + i, n);
    buf[n] = '\0';
    return true;
}

void tracename_of_pipe(const char *path, const char *bytes, size_t len, char *buf, size_t size)
{
    if (!first_line_name(bytes, len, buf, size) || is_taken(buf)) {
        char base[256];
        tracename_of_path(path, base, sizeof base);
        bool number = base[0] && strspn(base, "0123456789") == strlen(base);
        snprintf(buf, size, "%s%s", number ? "fd" : "", base);
    }
    take(buf);
}
