/*
 * mmreplay.c - the utilization of a trusted allocator on traces, fast.
 *
 *   options  (driver/options.c)   what to run: mdriver's flags -t -f -T -M --json
 *   per trace (driver/replay.c)   the allocator called in-process in a child of its
 *                                 own, each result given the cheap checks (ledger.c)
 *   score    (driver/score.c)     the average utilization, as mdriver takes it
 *   result   (driver/result.c)    the JSON: mdriver's per-trace fields, no timing
 *
 * A research tool, not a judge: mdriver is (no sandbox here, no payload or audit
 * checks, no timing).  main only wires these together.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "driver/allocator.h"
#include "driver/heap.h"
#include "driver/options.h"
#include "driver/output.h"
#include "driver/replay.h"
#include "driver/result.h"
#include "driver/score.h"
#include "driver/shown.h"
#include "driver/tracename.h"

static void run_file(const options_t *o, const char *path, trace_run_t *r)
{
    trace_t t;
    if (!run_load(r, path, o->max_heap, "mmreplay", &t))
        return;
    child_report_t *rep = &r->result.report;
    replay_trace(&t, o->time_limit, rep);
    r->outcome = rep->verdict.outcome;
    run_note_op(r, &t);
    trace_free(&t);
}

static void print_header(FILE *out, const options_t *o)
{
    fprintf(out, "mmreplay: allocator %s, %d-byte alignment, heap limit %zu bytes (utilization only; mdriver is "
            "the judge)\n\n%3s  %-22s %-17s %7s %7s %15s\n", allocator_file, MM_ALIGNMENT, o->max_heap, "#",
            "trace", "result", "util", "ideal", "heap high-water");
}

static void print_line(FILE *out, const trace_run_t *r, size_t i)
{
    const child_report_t *rep = &r->result.report;
    fprintf(out, "%3zu  ", i);
    shown_column(out, r->name, 22);
    fprintf(out, " %-17s", outcome_name(r->outcome));
    if (rep->has_util)
        fprintf(out, " %6.1f%% %6.1f%% %15llu\n", 100 * rep->util.util, 100 * rep->util.ideal,
                (unsigned long long)rep->util.heap_high_water);
    else
        fprintf(out, " %7s %7s %15s\n", "-", "-", "-");
    if (r->outcome == OUTCOME_BAD_TRACE)
        fprintf(out, "      %s\n", r->bad_trace);
    else if (!run_ok(r))
        fprintf(out, "      %s\n", rep->verdict.message);
    fflush(out);
}

int main(int argc, char **argv)
{
    options_t o;
    int parsed = options_parse_as(&OPTIONS_REPLAY, argc, argv, &o);
    if (parsed != OPTIONS_RUN) {
        options_free(&o);
        return parsed == OPTIONS_EXIT_OK ? (stdout_done("mmreplay") ? 0 : 2) : 2;
    }
    tracename_reserve(o.files, o.num_files);
    heap_configure(o.max_heap);
    result_out_t json_out = {0};
    char json_shown[4200];  /* the path in messages, on one line */
    shown(o.json ? o.json : "", json_shown, sizeof json_shown);
    if (o.json && !result_open(&json_out, o.json)) {
        fprintf(stderr, "mmreplay: --json %s: cannot write there: %s\n", json_shown, strerror(errno));
        options_free(&o);
        return 2;
    }
    FILE *text = o.json && result_on_stdout(&json_out) ? stderr : stdout;  /* the lines then go to stderr */
    trace_run_t *runs = calloc(o.num_files ? o.num_files : 1, sizeof *runs);
    if (!runs) {
        fprintf(stderr, "mmreplay: out of memory\n");
        return 2;
    }
    print_header(text, &o);
    for (size_t i = 0; i < o.num_files; i++) {
        run_file(&o, o.files[i], &runs[i]);
        print_line(text, &runs[i], i);
    }
    summary_t s;
    score_runs(runs, o.num_files, &s);
    if (s.has_utilization)
        fprintf(text, "%3s  %-22s %2d ok, %2d failed  %6.1f%%   (average over the traces that score utilization)\n",
                "", "total", s.valid, s.failed, 100 * s.utilization);
    else
        fprintf(text, "%3s  %-22s %2d ok, %2d failed  %7s   (no trace scores utilization)\n", "", "total", s.valid,
                s.failed, "-");
    int status = s.bad_traces ? 2 : s.failed ? 1 : 0;
    FILE *json = o.json ? result_begin(&json_out) : NULL;
    if (json)
        json_write_replay(json, &o, &(run_info_t){.allocator = allocator_file}, runs, o.num_files, &s);
    if (o.json && (!json || !result_end(&json_out))) {
        fprintf(stderr, "mmreplay: --json %s: write failed: %s\n", json_shown, strerror(errno));
        status = 2;
    }
    free(runs);
    options_free(&o);
    return stdout_done("mmreplay") ? status : 2;  /* the table lost (a full disk) is a failure */
}
