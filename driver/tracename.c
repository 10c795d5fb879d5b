/* tracename.c - a trace's name (see tracename.h). */
#include "driver/tracename.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/trace.h"

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

/* Drop a file's .rep / .rep.gz (or .gz) from the name in buf, never the whole of it. */
static void strip_suffixes(char *buf)
{
    for (const char *suffix = ".gz"; suffix; suffix = suffix[1] == 'g' ? ".rep" : NULL) {
        size_t n = strlen(buf), k = strlen(suffix);
        if (n > k && strcmp(buf + n - k, suffix) == 0)
            buf[n - k] = '\0';
    }
}

/* The last k components of path (the whole of it, a leading '/' too, when it has no more),
 * without .rep / .rep.gz unless keep_suffix.  True when path has
 * more components than that: a longer name could still tell it from another. */
static bool path_suffix(const char *path, size_t k, bool keep_suffix, char *buf, size_t len)
{
    size_t start = strlen(path), taken = 0;
    while (taken < k) {
        while (start > 0 && path[start - 1] == '/')
            start--;
        if (!start)
            break;
        while (start > 0 && path[start - 1] != '/')
            start--;
        taken++;
    }
    size_t before = start;
    while (before > 0 && path[before - 1] == '/')
        before--;
    if (!before)
        start = 0;
    snprintf(buf, len, "%s", path + start);
    if (!keep_suffix)
        strip_suffixes(buf);
    return before > 0;
}

/* path without its "." components and repeated '/' (-t dir/ gives dir//x.rep, -t . ./x.rep):
 * they tell no file from another.  NULL when out of memory. */
static char *tidy(const char *path)
{
    char *out = malloc(strlen(path) + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    if (path[0] == '/')
        out[n++] = '/';
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        size_t len = strcspn(p, "/");
        if (len && !(len == 1 && p[0] == '.')) {
            if (n && out[n - 1] != '/')
                out[n++] = '/';
            memcpy(out + n, p, len);
            n += len;
        }
        p += len;
    }
    out[n] = '\0';
    return out;
}

/* The run's files and their names: unique in the run (tracename_reserve). */
typedef struct {
    char *path;        /* as given */
    char *tidy;        /* as named */
    char *stem;        /* tidy, less .rep / .rep.gz */
    char name[TRACE_NAME_MAX];
    size_t depth;      /* components in the name */
    bool suffix;       /* the name keeps .rep / .rep.gz */
    bool deeper;       /* the path has more components than the name */
} run_name_t;

static run_name_t *run_names;
static size_t n_run_names;

static void name_at(run_name_t *r)
{
    r->deeper = path_suffix(r->tidy, r->depth, r->suffix, r->name, sizeof r->name);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(run_names[*(const size_t *)a].name, run_names[*(const size_t *)b].name);
}

static bool twins(const run_name_t *a, const run_name_t *b) { return !strcmp(a->stem, b->stem); }

/* Every name that two files share is made longer, for each of them, by a folder at a time
 * (a/x and b/x) until they differ; files whose paths differ only in .rep / .rep.gz, which
 * no folder tells apart, keep it (a/x.rep, a/x.rep.gz).  False when out of memory. */
static bool make_unique(void)
{
    size_t *order = malloc((n_run_names ? n_run_names : 1) * sizeof *order);
    if (!order)
        return false;
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < n_run_names; i++)
            order[i] = i;
        qsort(order, n_run_names, sizeof *order, by_name);
        for (size_t lo = 0, hi; lo < n_run_names; lo = hi) {
            for (hi = lo + 1; hi < n_run_names && !strcmp(run_names[order[hi]].name, run_names[order[lo]].name); hi++)
                ;
            for (size_t k = lo; hi - lo > 1 && k < hi; k++) {
                run_name_t *r = &run_names[order[k]];
                bool other = false, twin = false;
                for (size_t m = lo; m < hi; m++) {
                    if (m == k)
                        continue;
                    if (twins(r, &run_names[order[m]]))
                        twin = true;
                    else
                        other = true;
                }
                if (other && r->deeper)
                    r->depth++;
                else if (twin && !r->suffix)
                    r->suffix = true;
                else
                    continue;
                name_at(r);
                changed = true;
            }
        }
    }
    free(order);
    return true;
}

static void file_name(const char *path, char *buf, size_t len)
{
    path_suffix(path, 1, false, buf, len);
}

void tracename_of_path(const char *path, char *buf, size_t len)
{
    for (size_t i = 0; i < n_run_names; i++)
        if (!strcmp(run_names[i].path, path)) {
            snprintf(buf, len, "%s", run_names[i].name);
            return;
        }
    file_name(path, buf, len);
}

void tracename_reserve(char *const *paths, size_t n)
{
    run_names = calloc(n ? n : 1, sizeof *run_names);
    for (size_t i = 0; run_names && i < n; i++) {
        run_names[i] = (run_name_t){.path = strdup(paths[i]), .tidy = tidy(paths[i]), .stem = tidy(paths[i]),
                                    .depth = 1};
        if (!run_names[i].path || !run_names[i].tidy || !run_names[i].stem)
            break;
        strip_suffixes(run_names[i].stem);
        name_at(&run_names[i]);
        n_run_names++;
    }
    if (!make_unique())
        n_run_names = 0;  /* out of memory: the files' own names */
    for (size_t i = 0; i < n_run_names; i++)
        take(run_names[i].name);
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
        char base[TRACE_NAME_MAX];
        file_name(path, base, sizeof base);
        bool number = base[0] && strspn(base, "0123456789") == strlen(base);
        snprintf(buf, size, "%s%s", number ? "fd" : "", base);
    }
    take(buf);
}
