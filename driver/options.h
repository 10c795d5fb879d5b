/*
 * options.h - the driver's command line.
 */
#ifndef DRIVER_OPTIONS_H
#define DRIVER_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char **files;          /* traces to run, in order */
    size_t num_files;
    int verbosity;         /* 0 table, 1 -v failures and output, 2 -V progress and stats */
    bool grade_lines;      /* -g */
    bool libc_rows;        /* -l: show timing spread for the allocator and libc */
    bool check_heap;       /* -c */
    double time_limit;     /* -T */
    size_t max_heap;       /* -M */
    int min_samples;       /* -r */
    const char *json;      /* --json FILE | - | fd:N */
    int secret_fd;         /* --secret-fd, -1 when absent */
    const char *baseline_in, *baseline_out;
    bool parse_only, describe;
} options_t;

enum { OPTIONS_RUN, OPTIONS_EXIT_OK, OPTIONS_EXIT_USAGE };

/* Parse argv into *o; on a mistake print one line to stderr and return OPTIONS_EXIT_USAGE. */
int options_parse(int argc, char **argv, options_t *o);
void options_free(options_t *o);

#endif
