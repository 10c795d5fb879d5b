/* baseline.c - store and reuse libc timings (format in baseline.h). */
#define _GNU_SOURCE
#include "driver/baseline.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/output.h"
#include "driver/shown.h"

/* The first line of a baseline file of this driver's method. */
static const char HEADER_LINE[] = "mdriver-baseline 3";

/* A trace is kept in the file by its name as shown (shown.h), control characters escaped: a
 * name is a file's, which may hold a newline, and a timing is one line.  Names are compared in
 * that form.  Two names of a run meet in it only when one holds a backslash and an `n` where the
 * other holds a newline: the file then keeps the first one's timing, and the other's ops tell
 * it from that one (baseline_matches). */
typedef char kept_name_t[sizeof ((baseline_entry_t *)0)->name];

/* Whether runs[0..i) already hold a timing for the trace of runs[i]: the reader refuses a second one. */
static bool saved_before(const trace_run_t *runs, size_t i)
{
    kept_name_t name, other;
    shown(runs[i].name, name, sizeof name);
    for (size_t k = 0; k < i; k++)
        if (runs[k].has_libc && !strcmp(shown(runs[k].name, other, sizeof other), name))
            return true;
    return false;
}

bool baseline_save(const char *path, const run_info_t *info, const trace_run_t *runs, size_t n)
{
    replace_t out;
    FILE *f = replace_begin(&out, path);
    if (!f)
        return false;
    fprintf(f, "%s\nmachine %s | %s\ndate %s\nalignment %d\n", HEADER_LINE, info->hostname, info->cpu, info->date,
            MM_ALIGNMENT);
    kept_name_t name;
    for (size_t i = 0; i < n; i++)
        if (runs[i].has_libc && !saved_before(runs, i))
            fprintf(f, "trace %s %zu %016" PRIx64 " %.9g\n", shown(runs[i].name, name, sizeof name), runs[i].ops,
                    runs[i].fingerprint, runs[i].libc.seconds);
    return replace_commit(&out);
}

/* The last field of rest, cut off at its space (NULL when rest has no other field). */
static char *last_field(char *rest)
{
    char *space = strrchr(rest, ' ');
    if (!space || space == rest)
        return NULL;
    *space = '\0';
    return space + 1;
}

/* An unsigned number in base 10 or 16 filling all of text, no sign. */
static bool whole_number(const char *text, int base, unsigned long long *value)
{
    char *end;
    errno = 0;
    *value = strtoull(text, &end, base);
    return !errno && end != text && !*end && text[0] != '-' && text[0] != '+';
}

/* "NAME OPS FINGERPRINT SECONDS", split at the last three spaces: a trace's name may hold spaces. */
static bool parse_trace_line(char *rest, baseline_entry_t *e)
{
    char *seconds_text = last_field(rest);
    char *fingerprint_text = seconds_text ? last_field(rest) : NULL;
    char *ops_text = fingerprint_text ? last_field(rest) : NULL;
    unsigned long long ops, fingerprint;
    if (!ops_text || strlen(rest) >= sizeof e->name || !whole_number(ops_text, 10, &ops)
        || strlen(fingerprint_text) != 16 || !whole_number(fingerprint_text, 16, &fingerprint))
        return false;
    char *end;
    double seconds = strtod(seconds_text, &end);
    /* From a nanosecond (no replay is faster: a sample has microseconds of wake-ups; 1e-320 made
     * libc's ops/s inf) to 1e9 s (past that, inf, is no measurement); NaN fails both. */
    if (end == seconds_text || *end || !(seconds >= 1e-9) || seconds > 1e9)
        return false;
    shown(rest, e->name, sizeof e->name);  /* as kept: a name an older driver wrote may hold a tab */
    e->ops = (size_t)ops;
    e->fingerprint = fingerprint;
    e->seconds = seconds;
    return true;
}

/* Opened without waiting (a FIFO would wait for a writer) and only if it is a regular file;
 * `where` is the path as messages show it. */
static FILE *open_regular(const char *path, const char *where, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    struct stat st;
    if (fd < 0) {
        snprintf(err, errlen, "%s:0: cannot open the baseline: %s", where, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(err, errlen, "%s:0: cannot open the baseline: not a regular file", where);
        return NULL;
    }
    fcntl(fd, F_SETFL, 0);
    FILE *f = fdopen(fd, "r");
    if (!f)
        close(fd);
    return f;
}

/* fgets, but returning the line's length (newline included, at most size - 1 bytes; -1 at the end
 * of the file): fgets's result ends at a NUL byte, and such a line passed for one cut short. */
static ssize_t read_line(FILE *f, char *line, size_t size)
{
    size_t n = 0;
    int c = 0;
    while (n + 1 < size && c != '\n' && (c = getc(f)) != EOF)
        line[n++] = (char)c;
    line[n] = '\0';
    return n || c != EOF ? (ssize_t)n : -1;
}

bool baseline_read(const char *path, baseline_t *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    char where[BASELINE_PATH_SHOWN];  /* the path on one line in messages */
    shown(path, where, sizeof where);
    FILE *f = open_regular(path, where, err, errlen);
    if (!f)
        return false;
    char line[sizeof b->entries->name + 128], machine[512] = "", date[64] = "";  /* a trace line and its name */
    size_t lineno = 0, cap = 0;
    size_t seen[3] = {0};  /* the line of the machine, date and alignment lines, 0 until read */
    static const char *const header_names[3] = {"machine", "date", "alignment"};
    bool ok = true;
    ssize_t got;
    while (ok && (got = read_line(f, line, sizeof line)) >= 0) {
        lineno++;
        size_t len = (size_t)got;
        if (memchr(line, '\0', len)) {
            snprintf(err, errlen, "%s:%zu: the line holds a NUL byte (a baseline is text)", where, lineno);
            ok = false;
            break;
        }
        if (!len || line[len - 1] != '\n') {
            /* What an interrupted save or a cut copy leaves: its last number may be cut too. */
            snprintf(err, errlen, "%s:%zu: the line does not end (a baseline cut short, or a line over %zu bytes)",
                     where, lineno, sizeof line - 2);
            ok = false;
            break;
        }
        line[len - 1] = '\0';
        int header = !strncmp(line, "machine ", 8) ? 0 : !strncmp(line, "date ", 5) ? 1
                     : !strncmp(line, "alignment ", 10) ? 2 : -1;
        if (lineno > 1 && header >= 0 && seen[header]) {
            snprintf(err, errlen, "%s:%zu: a second %s line (the first is line %zu)", where, lineno,
                     header_names[header], seen[header]);
            ok = false;
            break;
        }
        if (header >= 0)
            seen[header] = lineno;
        unsigned long long alignment;
        if (lineno == 1 && !strcmp(line, "mdriver-baseline 1")) {
            snprintf(err, errlen, "%s:1: an older mdriver's baseline, whose libc timings paid for page faults this "
                     "driver's do not: time libc again, or save a new baseline with --save-baseline", where);
            ok = false;
        } else if (lineno == 1 && !strcmp(line, "mdriver-baseline 2")) {
            snprintf(err, errlen, "%s:1: an older mdriver's baseline, which knows a trace only by its name and op "
                     "count, not its ops: time libc again, or save a new baseline with --save-baseline", where);
            ok = false;
        } else if (lineno == 1 && strcmp(line, HEADER_LINE) != 0) {
            snprintf(err, errlen, "%s:1: not an mdriver baseline file", where);
            ok = false;
        } else if (!strncmp(line, "machine ", 8)) {
            snprintf(machine, sizeof machine, "%.511s", line + 8);
        } else if (!strncmp(line, "date ", 5)) {
            snprintf(date, sizeof date, "%.63s", line + 5);
        } else if (header == 2 && whole_number(line + 10, 10, &alignment)) {  /* sscanf's %d wrapped a long one */
            if (alignment != MM_ALIGNMENT) {
                snprintf(err, errlen, "%s:%zu: the baseline was taken with %llu-byte alignment, this driver uses %d",
                         where, lineno, alignment, MM_ALIGNMENT);
                ok = false;
            }
        } else if (!strncmp(line, "trace ", 6)) {
            if (b->n == cap) {
                cap = cap ? 2 * cap : 16;
                baseline_entry_t *more = realloc(b->entries, cap * sizeof *more);
                if (!more) {
                    snprintf(err, errlen, "%s:%zu: out of memory", where, lineno);
                    ok = false;
                    break;
                }
                b->entries = more;
            }
            baseline_entry_t *e = &b->entries[b->n];
            const baseline_entry_t *first;
            if (!parse_trace_line(line + 6, e)) {
                snprintf(err, errlen, "%s:%zu: cannot read this line (expected: trace NAME OPS FINGERPRINT SECONDS)",
                         where, lineno);
                ok = false;
            } else if (!seen[0] || !seen[1] || !seen[2]) {
                snprintf(err, errlen, "%s:%zu: a trace line before the machine, date and alignment lines", where,
                         lineno);
                ok = false;
            } else if ((first = baseline_find(b, e->name))) {
                snprintf(err, errlen, "%s:%zu: a second timing for trace %s (the first is line %zu)", where, lineno,
                         e->name, first->line);  /* kept as shown: one line */
                ok = false;
            } else {
                e->line = lineno;
                b->n++;
            }
        } else if (lineno > 1 && line[0]) {
            snprintf(err, errlen, "%s:%zu: cannot read this line", where, lineno);
            ok = false;
        }
    }
    if (ok && lineno == 0) {
        snprintf(err, errlen, "%s:0: the baseline is empty", where);
        ok = false;
    }
    for (int k = 0; ok && k < 3; k++)
        if (!seen[k]) {
            snprintf(err, errlen, "%s:%zu: no %s line (--save-baseline writes machine, date and alignment lines)",
                     where, lineno, header_names[k]);
            ok = false;
        }
    fclose(f);
    snprintf(b->source, sizeof b->source, "cached in %s, taken on %s at %s", path, machine, date);
    if (!ok)
        baseline_free(b);
    return ok;
}

const baseline_entry_t *baseline_find(const baseline_t *b, const char *name)
{
    kept_name_t kept;
    shown(name, kept, sizeof kept);
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->entries[i].name, kept))
            return &b->entries[i];
    return NULL;
}

void baseline_free(baseline_t *b)
{
    free(b->entries);
    b->entries = NULL;
    b->n = 0;
}
