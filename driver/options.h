/*
 * options.h - the driver's command line.
 */
#ifndef DRIVER_OPTIONS_H
#define DRIVER_OPTIONS_H

#include <getopt.h>
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
    long run_limit;        /* --run-limit seconds, 0 for none */
    size_t max_heap;       /* -M */
    int min_samples;       /* -r */
    const char *json;      /* --json FILE | - | fd:N */
    int secret_fd;         /* --secret-fd, -1 when absent */
    const char *baseline_in, *baseline_out;
    bool parse_only, describe;
} options_t;

enum { OPTIONS_RUN, OPTIONS_EXIT_OK, OPTIONS_EXIT_USAGE };

/* --run-limit's largest value (alarm's seconds are an unsigned int); mmgrade caps its own at it. */
enum { RUN_LIMIT_MAX = 2147483647 };

/* A program's command line: its name (in messages), its -h text (a printf format given
 * the default time limit and sample count), and the flags it takes (getopt's). */
typedef struct {
    const char *name;
    const char *usage;
    const char *shorts;
    const struct option *longs;
} options_program_t;

/* mdriver's whole command line; mmreplay's, a part of it (-t, -f, -T, -M, --json, -h). */
extern const options_program_t OPTIONS_MDRIVER, OPTIONS_REPLAY;

/* Parse argv into *o; on a mistake print one line to stderr and return OPTIONS_EXIT_USAGE. */
int options_parse(int argc, char **argv, options_t *o);
/* The same for program p: a flag it does not take is an unknown option. */
int options_parse_as(const options_program_t *p, int argc, char **argv, options_t *o);
void options_free(options_t *o);
/* S as a whole number from lo to hi, in digits only (a flag's value, or an MDRIVER_ variable's): false
 * when it is not (" 5", "+5", "5x"). */
bool options_int(const char *s, long lo, long hi, long *out);
/* An MDRIVER_ variable's value, NULL when it is unset or empty: an empty value sets nothing (as
 * POSIX takes an empty LANG), so `MDRIVER_CPUS= cmd` or a wrapper's `VAR=$(UNSET)` is no setting. */
const char *options_env(const char *name);

#endif
