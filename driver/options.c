/*
 * options.c - parse the command line (classic flags plus the kit's own).
 *
 * getopt's result is kept in an int: the classic driver stored it in a char,
 * which on an unsigned-char platform never equals -1.
 */
#define _GNU_SOURCE
#include "driver/options.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "driver/heap.h"
#include "driver/output.h"
#include "driver/shown.h"

#ifndef MDRIVER_KIT_DIR
#define MDRIVER_KIT_DIR "."
#endif

static const char usage[] =
    "usage: mdriver [-t DIR] [-f FILE]... [-c] [-l] [-v|-V] [-g] [-T SECS] [-M BYTES] [-r N]\n"
    "               [--json FILE|-|fd:N] [--secret-fd N] [--baseline FILE] [--save-baseline FILE]\n"
    "               [--run-limit SECS] [--parse-only] [--describe]\n"
    "Replays malloc traces against the allocator built in (mm.c or a variant), checks every\n"
    "result, and scores space utilization and throughput against libc malloc timed in the same run.\n"
    "  -t DIR      run every .rep / .rep.gz trace in DIR but hidden (.name) ones\n"
    "              (default: ./traces if the current folder has one, else the kit's traces/)\n"
    "  -f FILE     run this trace (repeatable; with -t, both; each file once)\n"
    "  -c          run the allocator's mm_checkheap after every op\n"
    "  -l          also show the timing spread of the allocator and libc (timed unless --baseline)\n"
    "  -v, -V      explain failures and show the allocator's output; -V adds progress and statistics\n"
    "  -g          print the classic 'correct:N' and 'perfidx:N' lines for autograders\n"
    "  -T SECS     per-trace time limit for all passes together (default %d)\n"
    "  --run-limit SECS  stop the whole run after SECS seconds, as Ctrl-C does (default: none)\n"
    "  -M BYTES    maximum heap, with K/M/G suffixes (default 20M, at most 4G)\n"
    "  -r N        at least N timing samples per trace (default %d)\n"
    "  -a          accepted and ignored (classic flag)\n"
    "  --json DEST write the machine-readable result (schema 1) to a file, - (stdout) or fd:N\n"
    "  --secret-fd N  read one line from fd N after the last trace and put it in the JSON\n"
    "  --save-baseline FILE / --baseline FILE  store libc's timings / reuse them instead of timing libc\n"
    "  --parse-only   read the traces and report the parse rate, replay nothing\n"
    "  --describe     print the scoring constants and the outcome vocabulary as JSON\n"
    "example: ./mdriver -V -t traces\n"
    "Ctrl-C (or SIGTERM, SIGHUP, --run-limit) stops the run: the traces completed are reported, marked partial, no index\n"
    "(one it was started with ignored, as by nohup, stays ignored)\n"
    "exit status: 0 every trace valid, 1 some trace failed, 2 usage or trace-file error, 128+signal interrupted\n";

static const char replay_usage[] =
    "usage: mmreplay [-t DIR] [-f FILE]... [-T SECS] [-M BYTES] [--json FILE|-|fd:N]\n"
    "Replays malloc traces in-process against the allocator built in and prints each trace's\n"
    "utilization: fast, for research on trusted allocators.  Not a judge: no sandbox, no payload\n"
    "or audit checks, no timing (mdriver is the judge).  Each result gets the cheap checks (NULL,\n"
    "alignment, inside the heap, overlap); each trace runs in a child of its own.\n"
    "  -t DIR      run every .rep / .rep.gz trace in DIR but hidden (.name) ones\n"
    "              (default: ./traces if the current folder has one, else the kit's traces/)\n"
    "  -f FILE     run this trace (repeatable; with -t, both; each file once)\n"
    "  -T SECS     per-trace time limit (default %d)\n"
    "  -M BYTES    maximum heap, with K/M/G suffixes (default 20M, at most 4G)\n"
    "  --json DEST write the result (mdriver's per-trace fields, no timing) to a file, - (stdout) or fd:N\n"
    "example: build/best-a16/mmreplay -t traces   (make replay VARIANT=best)\n"
    "exit status: 0 every trace valid, 1 some trace failed, 2 usage or trace-file error\n";

enum { OPT_JSON = 1000, OPT_SECRET_FD, OPT_BASELINE, OPT_SAVE_BASELINE, OPT_PARSE_ONLY, OPT_DESCRIBE, OPT_RUN_LIMIT };

static const struct option mdriver_longs[] = {
    {"json", required_argument, NULL, OPT_JSON},
    {"secret-fd", required_argument, NULL, OPT_SECRET_FD},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"save-baseline", required_argument, NULL, OPT_SAVE_BASELINE},
    {"parse-only", no_argument, NULL, OPT_PARSE_ONLY},
    {"describe", no_argument, NULL, OPT_DESCRIBE},
    {"run-limit", required_argument, NULL, OPT_RUN_LIMIT},
    {"help", no_argument, NULL, 'h'},
    {0, 0, 0, 0},
};

static const struct option replay_longs[] = {
    {"json", required_argument, NULL, OPT_JSON},
    {"help", no_argument, NULL, 'h'},
    {0, 0, 0, 0},
};

const options_program_t OPTIONS_MDRIVER = {"mdriver", usage, ":t:f:clvVgT:M:r:ah", mdriver_longs};
const options_program_t OPTIONS_REPLAY = {"mmreplay", replay_usage, ":t:f:T:M:h", replay_longs};

static const options_program_t *program = &OPTIONS_MDRIVER;  /* the one parsing now: messages name it */

static void print_usage(FILE *to)
{
    fprintf(to, program->usage, MDRIVER_DEFAULT_TIME_LIMIT, MDRIVER_DEFAULT_MIN_SAMPLES);
}

static int complain(const char *fmt, const char *arg)
{
    char one_line[8192];
    fprintf(stderr, "%s: ", program->name);
    fprintf(stderr, fmt, shown(arg, one_line, sizeof one_line));
    fprintf(stderr, " (%s -h for help)\n", program->name);
    return OPTIONS_EXIT_USAGE;
}

static bool add_file(options_t *o, const char *path)
{
    char **files = realloc(o->files, (o->num_files + 1) * sizeof *files);
    if (!files)
        return false;
    o->files = files;
    o->files[o->num_files++] = strdup(path);
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Hidden names (.x.rep, a zip's ._x.rep) are skipped, as ls skips them. */
static bool is_trace_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' &&
           ((n > 4 && strcmp(name + n - 4, ".rep") == 0) || (n > 7 && strcmp(name + n - 7, ".rep.gz") == 0));
}

static int add_dir(options_t *o, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return complain("-t %s: cannot open the trace directory", dir);
    size_t first = o->num_files;
    for (struct dirent *e; (e = readdir(d));) {
        if (!is_trace_name(e->d_name))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        add_file(o, path);
    }
    closedir(d);
    if (o->num_files == first)
        return complain("-t %s: no .rep or .rep.gz traces in this directory", dir);
    qsort(o->files + first, o->num_files - first, sizeof *o->files, by_name);
    return OPTIONS_RUN;
}

/* strtol and strtoull skip leading blanks and take a sign: a number here starts with a digit. */
static inline bool starts_with_digit(const char *s) { return *s >= '0' && *s <= '9'; }

static bool parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (!starts_with_digit(s))
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return false;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    }
    if (*end == 'i' && end[1] == 'B')
        end += 2;
    else if (*end == 'B')
        end++;
    if (*end || v == 0 || v > (HEAP_LIMIT >> shift))
        return false;
    *out = (size_t)v << shift;
    return true;
}

bool options_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    if (!starts_with_digit(s))
        return false;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

const char *options_env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* How the i-th trace was given, for a message: "-f FILE" or "FILE from -t DIR".  The -f
 * files come first; dir_end[k] is one past the last file -t dirs[k] added. */
static void origin(const options_t *o, size_t i, size_t num_f, const char *const *dirs, const size_t *dir_end,
                   char *buf, size_t len)
{
    size_t k = 0;
    char file[4200], dir[4200];
    shown(o->files[i], file, sizeof file);
    if (i < num_f) {
        snprintf(buf, len, "-f %s", file);
        return;
    }
    while (dir_end[k] <= i)
        k++;
    snprintf(buf, len, "%s from -t %s", file, shown(dirs[k], dir, sizeof dir));
}

/* What makes two paths one trace: the file's device and inode (those of a dangling link itself);
 * for a path that names nothing, its folder's and its last name, so that `-f x.rep -f ./x.rep`
 * of a missing x.rep is one line, not two "cannot open" ones; for one in no folder, its text. */
typedef struct {
    dev_t dev;
    ino_t ino;
    const char *name;  /* NULL for a file */
} trace_id_t;

static trace_id_t trace_id(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 || lstat(path, &st) == 0)
        return (trace_id_t){st.st_dev, st.st_ino, NULL};
    const char *slash = strrchr(path, '/');
    char folder[4200];
    snprintf(folder, sizeof folder, "%.*s", slash ? (int)(slash - path + 1) : 1, slash ? path : ".");
    if (stat(folder, &st) == 0)
        return (trace_id_t){st.st_dev, st.st_ino, slash ? slash + 1 : path};
    return (trace_id_t){0, 0, path};
}

static bool same_trace(const trace_id_t *a, const trace_id_t *b)
{
    if (a->dev != b->dev || a->ino != b->ino)
        return false;
    return a->name && b->name ? !strcmp(a->name, b->name) : a->name == b->name;
}

/* A trace given twice would be run and scored twice (or said missing twice): refused. */
static bool duplicate_trace(const options_t *o, size_t num_f, const char *const *dirs, const size_t *dir_end)
{
    trace_id_t *id = calloc(o->num_files ? o->num_files : 1, sizeof *id);
    bool dup = false;
    for (size_t i = 0; id && i < o->num_files && !dup; i++) {
        id[i] = trace_id(o->files[i]);
        for (size_t j = 0; j < i && !dup; j++) {
            if (!same_trace(&id[j], &id[i]))
                continue;
            char first[8200], again[8200];
            origin(o, j, num_f, dirs, dir_end, first, sizeof first);
            origin(o, i, num_f, dirs, dir_end, again, sizeof again);
            fprintf(stderr, "%s: the same trace given twice: %s and %s; each trace is run once (%s -h for help)\n",
                    program->name, first, again, program->name);
            dup = true;
        }
    }
    free(id);
    return dup;
}

/* An output that is one of the inputs would be emptied before it is read: refused. */
static bool output_clobbers_input(const options_t *o, const char *flag, const char *dest)
{
    if (!dest || !strcmp(dest, "-") || !strncmp(dest, "fd:", 3))
        return false;
    const char *other = strcmp(flag, "--json") ? o->json : o->baseline_out;
    for (size_t i = 0; i <= o->num_files + 1; i++) {
        const char *input = i < o->num_files ? o->files[i] : i == o->num_files ? o->baseline_in : other;
        const char *what = i < o->num_files      ? "the trace"
                           : i == o->num_files ? "the baseline"
                           : strcmp(flag, "--json") ? "also the output of --json" : "also the output of --save-baseline";
        if (input && (same_file(dest, input) || (input == other && !strcmp(dest, input)))) {
            char dest_shown[4200], input_shown[4200];
            fprintf(stderr, "%s: %s %s: that file is %s %s; refusing to overwrite it (%s -h for help)\n",
                    program->name, flag, shown(dest, dest_shown, sizeof dest_shown), what,
                    shown(input, input_shown, sizeof input_shown), program->name);
            return true;
        }
    }
    return false;
}

/* A baseline saved to the file or pipe stdout or stderr writes to (`--save-baseline /dev/stdout >
 * run.txt`) was renamed over that file, the table or the messages written to it lost, or mixed
 * with them in a pipe: refused.  A terminal or /dev/null is written directly, as before. */
static bool baseline_on_std_stream(const char *dest)
{
    struct stat st, std;
    if (!dest || stat(dest, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return false;
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
        if (fstat(fd, &std) != 0 || std.st_dev != st.st_dev || std.st_ino != st.st_ino)
            continue;
        char dest_shown[4200];
        fprintf(stderr, "%s: --save-baseline %s: that is where %s goes; a baseline is a file of its own "
                "(%s -h for help)\n", program->name, shown(dest, dest_shown, sizeof dest_shown),
                fd == STDOUT_FILENO ? "stdout (the table)" : "stderr (the messages)", program->name);
        return true;
    }
    return false;
}

/* An option with a value given twice would keep only the last silently: refused. */
static bool set_once(const char **slot, const char *flag, const char *value)
{
    if (*slot) {
        complain("%s given twice", flag);
        return false;
    }
    *slot = value;
    return true;
}

/* --save-baseline is written after the last trace: a destination that cannot
 * take it is found now, not minutes later, without touching an earlier baseline. */
static bool baseline_writable(const char *path)
{
    if (replace_check(path))
        return true;
    const char *why = strerror(errno);
    char one_line[4200];
    fprintf(stderr, "%s: --save-baseline %s: cannot write there: %s (%s -h for help)\n", program->name,
            shown(path, one_line, sizeof one_line), why, program->name);
    return false;
}

/* The long option of p that getopt_long refused for the value given it (`--parse-only=3`): it
 * leaves the option's val in optopt, where an unknown short option leaves its letter, which is
 * none of p's, and an unknown long option 0.  NULL for those. */
static const struct option *long_given_a_value(const options_program_t *p, int opt)
{
    bool short_option = opt > 0 && opt < 0x100 && opt != ':' && strchr(p->shorts, opt);
    if (opt < 0x100 && !short_option)
        return NULL;
    for (const struct option *l = p->longs; l->name; l++)
        if (l->val == opt && l->has_arg == no_argument)
            return l;
    return NULL;
}

/* The option's text as given on a command line: "-f", "--json". */
static const char *flag_text(const options_program_t *p, int c, char *buf, size_t len)
{
    for (const struct option *l = p->longs; l->name; l++)
        if (l->val == c && c >= 0x100)
            return snprintf(buf, len, "--%s", l->name), buf;
    return snprintf(buf, len, "-%c", c), buf;
}

/* An option that names a file or a folder given "" (an unset variable: -f "$TRACE") reached the
 * open as ":0: cannot open", naming nothing: refused in one line naming the option. */
static int empty_name(const options_program_t *p, int c)
{
    char flag[64];
    flag_text(p, c, flag, sizeof flag);
    return complain(c == 't' ? "%s '': an empty argument, which names no directory"
                             : "%s '': an empty argument, which names no file", flag);
}

static bool names_a_file(int c)
{
    return c == 't' || c == 'f' || c == OPT_JSON || c == OPT_BASELINE || c == OPT_SAVE_BASELINE;
}

int options_parse(int argc, char **argv, options_t *o) { return options_parse_as(&OPTIONS_MDRIVER, argc, argv, o); }

int options_parse_as(const options_program_t *p, int argc, char **argv, options_t *o)
{
    program = p;
    memset(o, 0, sizeof *o);
    o->time_limit = MDRIVER_DEFAULT_TIME_LIMIT;
    o->max_heap = MDRIVER_DEFAULT_MAX_HEAP;
    o->min_samples = MDRIVER_DEFAULT_MIN_SAMPLES;
    o->secret_fd = -1;
    const char *given_T = NULL, *given_M = NULL, *given_r = NULL, *given_secret = NULL, *given_run = NULL;  /* for set_once */
    const char *dirs[64];  /* every -t, in order */
    size_t num_dirs = 0, dir_end[64], num_f;
    long n;
    opterr = 0;
    int c;  /* int, not char: see the file comment */
    while ((c = getopt_long(argc, argv, p->shorts, p->longs, NULL)) != -1) {
        if (names_a_file(c) && optarg && !*optarg)
            return empty_name(p, c);
        switch (c) {
        case 't':
            if (num_dirs == sizeof dirs / sizeof *dirs)
                return complain("-t %s: too many trace directories", optarg);
            dirs[num_dirs++] = optarg;
            break;
        case 'f': add_file(o, optarg); break;
        case 'c': o->check_heap = true; break;
        case 'l': o->libc_rows = true; break;
        case 'v': if (o->verbosity < 1) o->verbosity = 1; break;
        case 'V': o->verbosity = 2; break;
        case 'g': o->grade_lines = true; break;
        case 'a': break;
        case 'T':
            if (!set_once(&given_T, "-T", optarg))
                return OPTIONS_EXIT_USAGE;
            if (!options_int(optarg, 1, 24 * 3600, &n))
                return complain("-T %s: the time limit must be whole seconds from 1 to 86400", optarg);
            o->time_limit = (double)n;
            break;
        case 'M':
            if (!set_once(&given_M, "-M", optarg))
                return OPTIONS_EXIT_USAGE;
            if (!parse_size(optarg, &o->max_heap))
                return complain("-M %s: the maximum heap must be a size from 1 byte to 4G (e.g. 20M)", optarg);
            break;
        case 'r':
            if (!set_once(&given_r, "-r", optarg))
                return OPTIONS_EXIT_USAGE;
            if (!options_int(optarg, 1, MDRIVER_MAX_SAMPLES, &n))
                return complain("-r %s: the number of timing samples must be from 1 to 25", optarg);
            o->min_samples = (int)n;
            break;
        case OPT_JSON:
            if (!set_once(&o->json, "--json", optarg))
                return OPTIONS_EXIT_USAGE;
            break;
        case OPT_SECRET_FD:
            if (!set_once(&given_secret, "--secret-fd", optarg))
                return OPTIONS_EXIT_USAGE;
            if (!options_int(optarg, 0, 1 << 20, &n))
                return complain("--secret-fd %s: not a file descriptor number", optarg);
            if (fcntl((int)n, F_GETFD) == -1)
                return complain("--secret-fd %s: not an open file descriptor", optarg);
            if ((fcntl((int)n, F_GETFL) & O_ACCMODE) == O_WRONLY)
                return complain("--secret-fd %s: not open for reading", optarg);
            o->secret_fd = (int)n;
            break;
        case OPT_RUN_LIMIT:
            if (!set_once(&given_run, "--run-limit", optarg))
                return OPTIONS_EXIT_USAGE;
            if (!options_int(optarg, 1, RUN_LIMIT_MAX, &n))
                return complain("--run-limit %s: the run's time limit must be whole seconds from 1 to 2147483647",
                                optarg);  /* RUN_LIMIT_MAX */
            o->run_limit = n;
            break;
        case OPT_BASELINE:
            if (!set_once(&o->baseline_in, "--baseline", optarg))
                return OPTIONS_EXIT_USAGE;
            break;
        case OPT_SAVE_BASELINE:
            if (!set_once(&o->baseline_out, "--save-baseline", optarg))
                return OPTIONS_EXIT_USAGE;
            break;
        case OPT_PARSE_ONLY: o->parse_only = true; break;
        case OPT_DESCRIBE: o->describe = true; break;
        case 'h': print_usage(stdout); return OPTIONS_EXIT_OK;
        case ':': return complain("%s needs an argument", argv[optind - 1]);
        default: {
            const struct option *valued = long_given_a_value(p, optopt);
            if (valued)
                return complain("--%s takes no value", valued->name);
            if (optopt) {
                char flag[3] = {'-', (char)optopt, '\0'};
                return complain("unknown option %s", flag);
            }
            return complain("unknown option %s", argv[optind - 1]);
        }
        }
    }
    if (optind < argc)
        return complain("unexpected argument '%s' (traces go after -f, directories after -t)", argv[optind]);
    if (o->baseline_in && o->baseline_out)
        return complain("%s", "--baseline and --save-baseline exclude each other");
    /* --parse-only replays nothing: it has no result, libc timing, baseline, run or table to write, use
     * or shape (-M stays: a trace's sizes are judged against the heap it would get). */
    const char *unused = o->json ? "--json" : o->baseline_in ? "--baseline" : o->baseline_out ? "--save-baseline"
                       : given_run ? "--run-limit" : given_T ? "-T" : given_r ? "-r" : o->check_heap ? "-c"
                       : o->libc_rows ? "-l" : o->grade_lines ? "-g" : o->verbosity == 2 ? "-V" : o->verbosity ? "-v"
                       : NULL;
    if (o->parse_only && unused)
        return complain("--parse-only and %s exclude each other (--parse-only replays nothing)", unused);
    /* --describe runs nothing: an option for a run would be dropped without a word. */
    const char *run_only = num_dirs ? "-t" : o->num_files ? "-f" : o->json ? "--json" : given_secret ? "--secret-fd"
                         : given_run ? "--run-limit"
                         : o->baseline_in ? "--baseline" : o->baseline_out ? "--save-baseline"
                         : o->parse_only ? "--parse-only" : given_T ? "-T" : given_M ? "-M" : given_r ? "-r"
                         : o->check_heap ? "-c" : o->libc_rows ? "-l" : o->grade_lines ? "-g"
                         : o->verbosity == 2 ? "-V" : o->verbosity ? "-v" : NULL;
    if (o->describe && run_only)
        return complain("--describe and %s exclude each other (--describe runs no trace)", run_only);
    if (o->describe)
        return OPTIONS_RUN;
    /* The secret is read to be echoed in the JSON: without --json it was dropped without a word. */
    if (given_secret && !o->json)
        return complain("%s", "--secret-fd needs --json (the secret is echoed in the JSON)");
    num_f = o->num_files;
    for (size_t i = 0; i < num_dirs; i++) {
        if (add_dir(o, dirs[i]) != OPTIONS_RUN)
            return OPTIONS_EXIT_USAGE;
        dir_end[i] = o->num_files;
    }
    if (!num_dirs && o->num_files == 0) {
        struct stat st;
        const char *fallback = stat("traces", &st) == 0 && S_ISDIR(st.st_mode) ? "traces" : MDRIVER_KIT_DIR "/traces";
        if (add_dir(o, fallback) != OPTIONS_RUN)
            return OPTIONS_EXIT_USAGE;
        dirs[num_dirs] = fallback;
        dir_end[num_dirs++] = o->num_files;
    }
    if (duplicate_trace(o, num_f, dirs, dir_end))
        return OPTIONS_EXIT_USAGE;
    if (output_clobbers_input(o, "--json", o->json) || output_clobbers_input(o, "--save-baseline", o->baseline_out))
        return OPTIONS_EXIT_USAGE;
    if (baseline_on_std_stream(o->baseline_out))
        return OPTIONS_EXIT_USAGE;
    if (o->baseline_out && !baseline_writable(o->baseline_out))
        return OPTIONS_EXIT_USAGE;
    return OPTIONS_RUN;
}

void options_free(options_t *o)
{
    for (size_t i = 0; i < o->num_files; i++)
        free(o->files[i]);
    free(o->files);
}
