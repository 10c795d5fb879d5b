/* baseline.c - store and reuse libc timings (format in baseline.h). */
#include "driver/baseline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool baseline_save(const char *path, const run_info_t *info, const trace_run_t *runs, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fprintf(f, "mdriver-baseline 1\nmachine %s | %s\ndate %s\nalignment %d\n", info->hostname, info->cpu, info->date,
            MM_ALIGNMENT);
    for (size_t i = 0; i < n; i++)
        if (runs[i].has_libc)
            fprintf(f, "trace %s %zu %.9g\n", runs[i].name, runs[i].ops, runs[i].libc.seconds);
    return fclose(f) == 0;
}

bool baseline_load(const char *path, trace_run_t *runs, size_t n, char *source, size_t source_len, char *err,
                   size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s:0: cannot open the baseline: %s", path, strerror(errno));
        return false;
    }
    char line[1024], machine[512] = "an unknown machine", date[64] = "an unknown date";
    size_t lineno = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        char name[128];
        size_t ops;
        double seconds;
        int alignment;
        if (lineno == 1 && strcmp(line, "mdriver-baseline 1") != 0) {
            snprintf(err, errlen, "%s:1: not an mdriver baseline file", path);
            ok = false;
        } else if (!strncmp(line, "machine ", 8)) {
            snprintf(machine, sizeof machine, "%.511s", line + 8);
        } else if (!strncmp(line, "date ", 5)) {
            snprintf(date, sizeof date, "%.63s", line + 5);
        } else if (sscanf(line, "alignment %d", &alignment) == 1) {
            if (alignment != MM_ALIGNMENT) {
                snprintf(err, errlen, "%s:%zu: the baseline was taken with %d-byte alignment, this driver uses %d",
                         path, lineno, alignment, MM_ALIGNMENT);
                ok = false;
            }
        } else if (sscanf(line, "trace %127s %zu %lf", name, &ops, &seconds) == 3) {
            for (size_t i = 0; i < n; i++)
                if (!strcmp(runs[i].name, name) && runs[i].ops == ops && seconds > 0) {
                    runs[i].has_libc = true;
                    runs[i].libc.seconds = runs[i].libc.samples[0] = seconds;
                    runs[i].libc.n = 1;
                }
        } else if (lineno > 1 && line[0]) {
            snprintf(err, errlen, "%s:%zu: cannot read this line", path, lineno);
            ok = false;
        }
    }
    fclose(f);
    for (size_t i = 0; ok && i < n; i++)
        if (runs[i].outcome != OUTCOME_BAD_TRACE && !runs[i].has_libc) {
            snprintf(err, errlen, "%s:%zu: no timing for trace %s with %zu ops", path, lineno, runs[i].name,
                     runs[i].ops);
            ok = false;
        }
    snprintf(source, source_len, "cached in %s, taken on %s at %s", path, machine, date);
    return ok;
}
