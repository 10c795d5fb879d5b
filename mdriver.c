/*
 * mdriver.c - replay malloc traces against an allocator, check it, score it.
 *
 *   options  (driver/options.c)   what to run
 *   per trace, in a child process (driver/child.c):
 *     check    (driver/check.c)   two correctness passes, from mm_init each time
 *     utilization (driver/utilization.c), of the first correctness pass
 *     measure  (driver/measure.c) timing of the allocator and of libc
 *   score    (driver/score.c)     the performance index
 *   report   (driver/report.c)    the table; result (driver/result.c) the JSON for programs
 *   interrupt (driver/interrupt.c) Ctrl-C stops the run, which reports the traces completed
 *
 * main only wires these together.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "driver/allocator.h"
#include "driver/audit.h"
#include "driver/baseline.h"
#include "driver/clock.h"
#include "driver/cpus.h"
#include "driver/heap.h"
#include "driver/interrupt.h"
#include "driver/describe.h"
#include "driver/result.h"
#include "driver/options.h"
#include "driver/output.h"
#include "driver/report.h"
#include "driver/score.h"
#include "driver/shown.h"
#include "driver/tracename.h"

static double now(void) { return monotonic_seconds(); }

static void machine_info(run_info_t *info, char *host, size_t hostlen, char *cpu, size_t cpulen, char *date,
                         size_t datelen)
{
    if (gethostname(host, hostlen))
        snprintf(host, hostlen, "unknown");
    snprintf(cpu, cpulen, "unknown cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            snprintf(cpu, cpulen, "%s", strchr(line, ':') + 2);
            cpu[strcspn(cpu, "\n")] = '\0';
            break;
        }
    if (f)
        fclose(f);
    time_t t = time(NULL);
    strftime(date, datelen, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    info->hostname = host;
    info->cpu = cpu;
    info->date = date;
}

/* A trace read before its turn, for the baseline's check: a pipe can be read only
 * once, so what it gave (the trace or the error) is kept for its run.  Only such
 * inputs are kept; regular files are read again, so a folder of big traces is still
 * held one trace at a time. */
typedef struct {
    bool held, ok;
    trace_t t;
    char err[sizeof ((trace_run_t *)0)->bad_trace];
} early_trace_t;

static void early_free(early_trace_t *early, size_t n)
{
    for (size_t i = 0; early && i < n; i++)
        if (early[i].held && early[i].ok)
            trace_free(&early[i].t);
    free(early);
}

/* False when an interrupt stopped the trace (or came while it was read): it is not completed.
 * progress: -V's stream, or NULL; index and count number the trace there. */
static bool run_trace(const options_t *o, const baseline_t *cached, const char *path, early_trace_t *early,
                      trace_run_t *r, FILE *progress, size_t index, size_t count)
{
    double began = now();
    trace_t t;
    bool loaded;
    if (early && early->held) {
        r->path = path;
        snprintf(r->bad_trace, sizeof r->bad_trace, "%s", early->err);
        t = early->t;
        early->held = false;  /* the run frees it */
        loaded = run_take(r, "mdriver", &t, early->ok);
    } else
        loaded = run_load(r, path, o->max_heap, "mdriver", &t);
    if (interrupt_signal()) {  /* a gzip killed by Ctrl-C leaves no bad trace */
        if (loaded)
            trace_free(&t);
        return false;
    }
    if (progress)
        report_progress_start(progress, r, index, count);
    if (!loaded)
        return true;
    bool time_libc = trace_scores_throughput(&t) && !cached;
    child_plan_t plan = {
        .run_allocator = true,
        .check_heap = o->check_heap,
        .util = trace_scores_util(&t),
        .time_mm = trace_scores_throughput(&t),
        .time_libc = time_libc,
        .min_samples = o->min_samples,
        .time_limit = o->time_limit,
    };
    child_run(&t, &plan, &r->result);
    if (r->result.interrupted) {
        if (progress)
            report_progress_stopped(progress);
        trace_free(&t);
        return false;
    }
    const child_report_t *rep = &r->result.report;
    r->outcome = rep->verdict.outcome;
    run_note_op(r, &t);
    if (time_libc && rep->libc_time.n) {
        r->libc = rep->libc_time;
        r->has_libc = true;
    } else if (time_libc && o->libc_rows) {
        /* The allocator failed before timing; -l still wants libc's row. */
        child_result_t libc_only;
        child_plan_t plan2 = {.time_libc = true, .min_samples = o->min_samples, .time_limit = o->time_limit};
        child_run(&t, &plan2, &libc_only);
        r->has_libc = libc_only.report.libc_time.n > 0;
        r->libc = libc_only.report.libc_time;
        child_result_free(&libc_only);
    }
    const baseline_entry_t *e = cached && trace_scores_throughput(&t) ? baseline_find(cached, t.name) : NULL;
    if (e) {  /* matched before any trace ran (baseline_ready) */
        r->libc = (timing_t){.seconds = e->seconds, .n = 1, .samples = {e->seconds}};
        r->has_libc = true;
    }
    trace_free(&t);
    r->seconds = now() - began;
    return true;
}

/* The baseline, read whole and matched with every trace that scores throughput
 * before any of them runs: a problem with it is reported first, not after the run.
 * early[i] keeps the trace of an input that is not a regular file (see early_trace_t). */
static bool baseline_ready(const options_t *o, baseline_t *b, early_trace_t *early)
{
    char err[BASELINE_ERROR_MAX], where[BASELINE_PATH_SHOWN], name[sizeof ((trace_t *)0)->name * 4];
    shown(o->baseline_in, where, sizeof where);
    if (!baseline_read(o->baseline_in, b, err, sizeof err)) {
        fprintf(stderr, "mdriver: %s\n", err);
        return false;
    }
    for (size_t i = 0; i < o->num_files && !interrupt_signal(); i++) {  /* interrupted: no trace runs */
        early_trace_t *e = &early[i];
        bool keep = !trace_is_regular(o->files[i]);
        trace_t t;
        e->ok = trace_load(o->files[i], o->max_heap, &t, e->err, sizeof e->err);
        if (keep) {
            e->held = true;
            e->t = t;
        }
        if (!e->ok)
            continue;  /* malformed: reported as such when its turn comes */
        const baseline_entry_t *timed = trace_scores_throughput(&t) ? baseline_find(b, t.name) : NULL;
        bool found = !trace_scores_throughput(&t) || (timed && baseline_matches(timed, t.num_ops, trace_fingerprint(&t)));
        shown(t.name, name, sizeof name);
        if (!timed && !found)
            fprintf(stderr, "mdriver: %s:0: no timing for trace %s (taken on other traces?)\n", where, name);
        else if (!found)
            fprintf(stderr, "mdriver: %s:%zu: the timing for trace %s was taken of other ops (%zu then, %zu now%s): "
                    "the trace changed since; save a new baseline with --save-baseline\n", where, timed->line,
                    name, timed->ops, t.num_ops, timed->ops == t.num_ops ? ", but not the same ones" : "");
        if (!keep)
            trace_free(&t);
        if (!found) {
            baseline_free(b);
            return false;
        }
    }
    return true;
}

/* Parse rate in CPU time (steady on a busy machine) and wall time (which also
 * counts a gzip child's work). */
static int parse_only(const options_t *o)
{
    int status = 0;
    double total_cpu = 0, total_wall = 0;
    size_t total_ops = 0, i;
    for (i = 0; i < o->num_files; i++) {
        trace_t t;
        char err[TRACE_ERROR_MAX];
        double wall = now(), cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
        bool loaded = trace_load(o->files[i], o->max_heap, &t, err, sizeof err);
        if (interrupt_signal()) {  /* a read cut short is not a bad trace */
            if (loaded)
                trace_free(&t);
            break;
        }
        if (!loaded) {
            fprintf(stderr, "mdriver: %s\n", err);
            status = 2;
            continue;
        }
        cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
        wall = now() - wall;
        char name[512];
        printf("%-28s %10zu ops  %8.3f s cpu %8.3f s wall  %7.2f Mops/s (cpu) %7.2f Mops/s (wall)\n",
               shown(t.name, name, sizeof name),
               t.num_ops, cpu, wall, cpu > 0 ? t.num_ops / cpu / 1e6 : 0, wall > 0 ? t.num_ops / wall / 1e6 : 0);
        total_cpu += cpu;
        total_wall += wall;
        total_ops += t.num_ops;
        trace_free(&t);
    }
    printf("%-28s %10zu ops  %8.3f s cpu %8.3f s wall  %7.2f Mops/s (cpu) %7.2f Mops/s (wall)\n", "total", total_ops,
           total_cpu, total_wall, total_cpu > 0 ? total_ops / total_cpu / 1e6 : 0,
           total_wall > 0 ? total_ops / total_wall / 1e6 : 0);
    if (i < o->num_files) {
        char name[512];
        fflush(stdout);
        char why[80];
        fprintf(stderr, "mdriver: %s during trace %zu of %zu (%s): the total is of the traces above\n",
                interrupt_describe(interrupt_signal(), why, sizeof why), i + 1, o->num_files,
                shown(o->files[i], name, sizeof name));
        status = 128 + interrupt_signal();
    }
    return status;
}

/* One line from the secret fd, read only now that no allocator code will run again.
 * False, with why, when the line does not fit in buf, or cannot be read (the descriptor of
 * a folder): a secret cut short would not match, nor would the empty one a failed read gave. */
static bool read_secret(int fd, char *buf, size_t len, char *why, size_t whylen)
{
    size_t n = 0;
    for (;;) {
        char c, stop[80];
        /* A writer that never writes held the finished run for good, deaf to Ctrl-C and --run-limit:
         * a signal ends the wait (what is there already is read, as the grader's secret is). */
        struct pollfd ready = {.fd = fd, .events = POLLIN};
        if (poll(&ready, 1, 0) == 0 && interrupt_poll(&ready, 1, -1) < 0 && errno == EINTR && interrupt_signal())
            return snprintf(why, whylen, "%s before the secret came",
                            interrupt_describe(interrupt_signal(), stop, sizeof stop)), false;
        ssize_t got = read(fd, &c, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return snprintf(why, whylen, "cannot read it: %s", strerror(errno)), false;
        if (got == 0 || c == '\n')
            break;
        if (n + 1 == len)
            return snprintf(why, whylen, "the secret is longer than %zu bytes", len - 1), false;
        buf[n++] = c;
    }
    buf[n] = '\0';
    return true;
}

/* An MDRIVER_ variable's value (NULL: none or a good one) that the driver does not
 * take: one line, before any trace, since running on as if unset would measure or
 * test something else than was asked.  True when refused. */
static bool setting_refused(const char *var, const char *value, const char *accepted)
{
    if (!value)
        return false;
    char one_line[256];
    fprintf(stderr, "mdriver: %s=%s: %s\n", var, shown(value, one_line, sizeof one_line), accepted);
    return true;
}

/* The exit status, once stdout is known to have taken what was printed (a full disk
 * or a closed pipe loses the table: that is a failure, said on stderr). */
static int finish(int status)
{
    return stdout_done("mdriver") ? status : 2;
}

int main(int argc, char **argv)
{
    /* First: a Ctrl-C while the traces are read (a large one takes seconds; --baseline
     * and --parse-only read them before any run) is reported, not the driver's death. */
    interrupt_install();
    options_t o;
    int parsed = options_parse(argc, argv, &o);
    /* Every early return frees the options too: a sanitizer build treats a leak as an error exit. */
    if (parsed != OPTIONS_RUN) {
        options_free(&o);
        return parsed == OPTIONS_EXIT_OK ? finish(0) : 2;
    }
    output_hold_std_fds();  /* after the options: --secret-fd 0 names a closed stdin as closed */
    if (o.run_limit)
        interrupt_arm((unsigned)o.run_limit);
    tracename_reserve(o.files, o.num_files);
    if (o.describe) {
        json_write_description(stdout);
        options_free(&o);
        return finish(0);
    }
    if (o.parse_only) {
        int parse_status = parse_only(&o);
        options_free(&o);
        return finish(parse_status);
    }
    char windows[160];
    snprintf(windows, sizeof windows, "a whole number of ops from 1 to %d, the most between two audits (unset: %d, "
             "or 1/%d of a longer run)", AUDIT_WINDOW, AUDIT_WINDOW, AUDITS_PER_RUN);
    if (setting_refused("MDRIVER_CPUS", cpus_unknown_setting(), "together or apart (unset: the driver chooses)") ||
        setting_refused("MDRIVER_AUDIT_WINDOW", audit_window_unknown_setting(), windows)) {
        options_free(&o);
        return 2;
    }
    heap_configure(o.max_heap);
    baseline_t cached = {0};
    early_trace_t *early = o.baseline_in ? calloc(o.num_files, sizeof *early) : NULL;
    if (o.baseline_in && (!early || !baseline_ready(&o, &cached, early))) {
        if (!early)
            fprintf(stderr, "mdriver: out of memory\n");
        early_free(early, o.num_files);
        options_free(&o);
        return 2;
    }

    result_out_t json_out = {0};
    char json_shown[4200], baseline_shown[4200];  /* the paths in messages, on one line */
    shown(o.json ? o.json : "", json_shown, sizeof json_shown);
    shown(o.baseline_out ? o.baseline_out : "", baseline_shown, sizeof baseline_shown);
    if (o.json && !result_open(&json_out, o.json)) {
        fprintf(stderr, "mdriver: --json %s: cannot write there: %s\n", json_shown, strerror(errno));
        early_free(early, o.num_files);
        baseline_free(&cached);
        options_free(&o);
        return 2;
    }
    /* --json - and --json fd:1 both take stdout: the table then goes to stderr. */
    FILE *text = o.json && result_on_stdout(&json_out) ? stderr : stdout;
    char host[256], cpu[256], date[64];
    run_info_t info = {.allocator = allocator_file, .baseline = o.baseline_in ? "cached" : "measured"};
    machine_info(&info, host, sizeof host, cpu, sizeof cpu, date, sizeof date);
    if (o.baseline_in)
        info.baseline_source = cached.source;
    report_header(text, &o, &info);

    trace_run_t *runs = calloc(o.num_files, sizeof *runs);
    if (!runs) {
        fprintf(stderr, "mdriver: out of memory\n");
        return 2;
    }
    size_t done = 0;
    FILE *progress = o.verbosity >= 2 ? text : NULL;
    while (done < o.num_files && !interrupt_signal() &&
           run_trace(&o, o.baseline_in ? &cached : NULL, o.files[done], early ? &early[done] : NULL, &runs[done],
                     progress, done, o.num_files)) {
        if (progress)
            report_progress_end(progress, &runs[done]);
        done++;
    }

    int status = 0;
    summary_t s;
    score_runs(runs, done, &s);
    if (done < o.num_files)  /* only an interrupt stops the loop early */
        s.interrupted = (interruption_t){interrupt_signal(), (int)o.num_files, o.files[done]};
    report_table(text, &o, runs, done, &s);
    if (o.grade_lines && !summary_partial(&s))
        report_grade_lines(text, &s);
    if (o.baseline_out && summary_partial(&s)) {
        fprintf(stderr, "mdriver: --save-baseline %s: not written: the run was interrupted (a file there is "
                "left as it was)\n", baseline_shown);
    } else if (o.baseline_out && !baseline_save(o.baseline_out, &info, runs, o.num_files)) {
        fprintf(stderr, "mdriver: --save-baseline %s: cannot write: %s\n", baseline_shown, strerror(errno));
        status = 2;
    }
    char secret[256], unread[128];
    if (o.json && o.secret_fd >= 0 && !read_secret(o.secret_fd, secret, sizeof secret, unread, sizeof unread)) {
        fprintf(stderr, "mdriver: --secret-fd %d: %s; no JSON written\n", o.secret_fd, unread);
        status = 2;
    } else if (o.json) {
        if (o.secret_fd >= 0)
            info.secret = secret;
        FILE *json = result_begin(&json_out);
        if (json)
            json_write_result(json, &o, &info, runs, done, &s);
        if (!json || !result_end(&json_out)) {
            fprintf(stderr, "mdriver: --json %s: write failed: %s\n", json_shown, strerror(errno));
            status = 2;
        }
    }
    if (summary_partial(&s)) {
        char name[512];
        fflush(text);
        char why[80];
        fprintf(stderr, "mdriver: %s during trace %zu of %zu (%s): %s the %zu completed, with no "
                "performance index\n", interrupt_describe(s.interrupted.signal, why, sizeof why), done + 1, o.num_files,
                shown(o.files[done], name, sizeof name), o.json && !status ? "the table and the JSON hold" :
                "the table holds", done);
    }
    for (size_t i = 0; i < o.num_files; i++)
        child_result_free(&runs[i].result);
    free(runs);
    early_free(early, o.num_files);
    baseline_free(&cached);
    options_free(&o);
    if (status == 0 && s.bad_traces)
        status = 2;
    if (status == 0 && s.failed)
        status = 1;
    if (summary_partial(&s))
        status = 128 + s.interrupted.signal;  /* as a shell reports a command its signal ended */
    return finish(status);
}
