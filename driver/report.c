/* report.c - text output for people (see report.h). */
#include "driver/report.h"

#include <string.h>

#include "config.h"
#include "driver/hooks.h"
#include "driver/interrupt.h"
#include "driver/shown.h"
#include "driver/team.h"

static double kops(size_t ops, const timing_t *t)
{
    return t->n && t->seconds > 0 ? (double)ops / t->seconds / 1e3 : 0;
}

/* Kops of the slowest and fastest samples: the spread behind the estimate. */
static double slowest(size_t ops, const timing_t *t)
{
    double worst = 0;
    for (int i = 0; i < t->n; i++)
        worst = t->samples[i] > worst ? t->samples[i] : worst;
    return worst > 0 ? (double)ops / worst / 1e3 : 0;
}

static double fastest(size_t ops, const timing_t *t)
{
    double best = t->n ? t->samples[0] : 0;
    for (int i = 1; i < t->n; i++)
        best = t->samples[i] < best ? t->samples[i] : best;
    return best > 0 ? (double)ops / best / 1e3 : 0;
}

enum { TEAM_SHOWN = 40 };  /* characters of a team string on the header line */

void report_header(FILE *out, const options_t *o, const run_info_t *info)
{
    fprintf(out, "mdriver: allocator %s", info->allocator);
    team_text_t t;
    if (team_read(&t) && t.teamname) {
        /* the allocator's text: escaped and cut, so that the header stays one line */
        fputs(" (team ", out);
        shown_cut(out, t.teamname, TEAM_SHOWN);
        if (t.name1) {
            fputs(": ", out);
            shown_cut(out, t.name1, TEAM_SHOWN);
        }
        fputc(')', out);
    }
    fprintf(out, ", %d-byte alignment, heap limit %zu bytes%s\n", MM_ALIGNMENT, o->max_heap,
            o->check_heap ? (has_checkheap() ? ", mm_checkheap after every op" : ", -c ignored: no mm_checkheap") : "");
    char source[4096];  /* the baseline's path and machine, on one line */
    if (info->baseline_source)
        fprintf(out, "libc baseline: %s\n", shown(info->baseline_source, source, sizeof source));
    else
        fprintf(out, "libc baseline: timed in this run on %s (%s)\n", info->hostname, info->cpu);
}

void report_progress_start(FILE *out, const trace_run_t *r, size_t index, size_t count)
{
    fprintf(out, "  [%zu/%zu] ", index + 1, count);
    shown_column(out, r->name, 24);
    fflush(out);
}

void report_progress_stopped(FILE *out)
{
    fputs(" interrupted\n", out);
    fflush(out);
}

void report_progress_end(FILE *out, const trace_run_t *r)
{
    fprintf(out, " %s", outcome_name(r->outcome));
    if (r->outcome != OUTCOME_BAD_TRACE)
        fprintf(out, " (%.2f s)", r->seconds);
    fputc('\n', out);
    fflush(out);
}

static void print_stats(FILE *out, const trace_run_t *r)
{
    const mm_stats_t *st = &r->result.report.stats;
    fprintf(out, "      stats:");
#define MM_STATS_PRINT(name, what) fprintf(out, " %s=%llu", #name, (unsigned long long)st->name);
    MM_STATS_FIELDS(MM_STATS_PRINT)
#undef MM_STATS_PRINT
    fputc('\n', out);
}

/* Lines of the allocator's output quoted under its row: the first few, then the last ones,
 * where a crash's cause is printed. */
enum { OUTPUT_LINES = 12, OUTPUT_FIRST_LINES = 4 };

/* Quotes at most max lines of [p, end); returns where it stopped. */
static const char *print_lines(FILE *out, const char *p, const char *end, int max)
{
    for (int lines = 0; p < end && lines < max; lines++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = (size_t)((nl ? nl : end) - p);
        /* Control bytes (escape sequences, \r, NUL) could redraw or cut the table: shown as '?',
         * as is a C1 control (two bytes of UTF-8). */
        fputs("        | ", out);
        for (size_t k = 0; k < len && k < 150; k++) {
            bool c1 = shown_is_c1(p + k, len - k);
            fputc(c1 || (unsigned char)p[k] < 0x20 || p[k] == 0x7f ? '?' : p[k], out);
            k += c1;
        }
        fputc('\n', out);
        p += len + (nl != NULL);
    }
    return p;
}

/* Where the last max lines of [p, end) begin. */
static const char *last_lines(const char *p, const char *end, int max)
{
    const char *at = end > p && end[-1] == '\n' ? end - 1 : end;
    for (int lines = 0; at > p; at--)
        if (at[-1] == '\n' && ++lines == max)
            break;
    return at;
}

static void print_output(FILE *out, const child_result_t *res)
{
    const char *head = res->output, *head_end = head + res->output_len;
    if (!res->output_tail_len && last_lines(head, head_end, OUTPUT_LINES) == head) {
        fprintf(out, "      the allocator printed %zu bytes:\n", res->output_total);
        print_lines(out, head, head_end, OUTPUT_LINES);
        return;
    }
    fprintf(out, "      the allocator printed %zu bytes (the first and the last lines shown):\n", res->output_total);
    const char *shown = print_lines(out, head, head_end, OUTPUT_FIRST_LINES);
    const char *from = shown, *to = head_end;
    if (res->output_tail_len) {
        from = res->output_tail + child_output_tail_start(res);
        to = res->output_tail + res->output_tail_len;
    }
    const char *last = last_lines(from, to, OUTPUT_LINES - OUTPUT_FIRST_LINES);
    size_t hidden = res->output_total - (size_t)(shown - head) - (size_t)(to - last);
    if (hidden)
        fprintf(out, "        | [... %zu bytes not shown ...]\n", hidden);
    print_lines(out, last, to, OUTPUT_LINES - OUTPUT_FIRST_LINES);
}

static void print_row(FILE *out, const options_t *o, const trace_run_t *r, size_t i)
{
    const child_report_t *rep = &r->result.report;
    fprintf(out, "%3zu  ", i);
    shown_column(out, r->name, 22);
    fprintf(out, " %-17s", outcome_name(r->outcome));
    if (rep->has_util)
        fprintf(out, " %6.1f%% %6.1f%%", 100 * rep->util.util, 100 * rep->util.ideal);
    else
        fprintf(out, " %7s %7s", "-", "-");
    fprintf(out, " %9zu", r->ops);
    double mine = run_ok(r) ? kops(r->ops, &rep->mm_time) : 0, libc = r->has_libc ? kops(r->ops, &r->libc) : 0;
    if (mine > 0)
        fprintf(out, " %10.0f", mine);
    else
        fprintf(out, " %10s", "-");
    if (libc > 0)
        fprintf(out, " %10.0f", libc);
    else
        fprintf(out, " %10s", "-");
    if (mine > 0 && libc > 0)
        fprintf(out, " %6.2f", mine / libc);
    if (o->libc_rows && mine > 0 && libc > 0) {
        fprintf(out, "   Kops range %.0f-%.0f (%d samples), ", slowest(r->ops, &rep->mm_time),
                fastest(r->ops, &rep->mm_time), rep->mm_time.n);
        /* A saved baseline keeps libc's estimate only: no samples, so no spread to show. */
        if (o->baseline_in)
            fputs("libc from the baseline (no samples this run)", out);
        else
            fprintf(out, "libc %.0f-%.0f (%d)", slowest(r->ops, &r->libc), fastest(r->ops, &r->libc), r->libc.n);
    }
    fputc('\n', out);
    if (r->outcome == OUTCOME_BAD_TRACE)
        fprintf(out, "      %s\n", r->bad_trace);
    else if (!run_ok(r))
        fprintf(out, "      %s\n", rep->verdict.message);
    if (o->verbosity >= 1 && r->result.output_total)
        print_output(out, &r->result);
    if (o->verbosity >= 2 && rep->has_stats)
        print_stats(out, r);
}

void report_table(FILE *out, const options_t *o, const trace_run_t *runs, size_t n, const summary_t *s)
{
    fprintf(out, "\n%3s  %-22s %-17s %7s %7s %9s %10s %10s %6s\n", "#", "trace", "result", "util", "ideal", "ops",
            "Kops", "libc Kops", "ratio");
    for (size_t i = 0; i < n; i++)
        print_row(out, o, &runs[i], i);
    char label[32] = "total";
    if (summary_partial(s))
        snprintf(label, sizeof label, "partial: %d of %d", s->traces, s->interrupted.planned);
    fprintf(out, "%3s  %-22s %2d ok, %2d failed  ", "", label, s->valid, s->failed);
    if (s->has_utilization)
        fprintf(out, "%6.1f%% %7s %9s", 100 * s->utilization, "", "");
    else
        fprintf(out, "%7s %7s %9s", "-", "", "");
    if (s->throughput > 0)
        fprintf(out, " %10.0f %10.0f %6.2f\n", s->throughput / 1e3, s->libc_throughput / 1e3, s->ratio);
    else
        fprintf(out, " %10s %10s %6s\n", "-", "-", "-");
    if (s->bad_traces)
        fprintf(out, "%d trace file(s) could not be run (malformed, or too big for the -M heap) and were left out "
                "of the score.\n", s->bad_traces);
    for (size_t i = 0; i < n; i++)
        if (!run_ok(&runs[i]) && runs[i].outcome != OUTCOME_BAD_TRACE) {
            char name[512];
            fprintf(out, "%d trace(s) failed%s (first: %s, %s).\n", s->failed,
                    summary_has_index(s) ? " and score 0" : "",   /* no index: there is no score */
                    shown(runs[i].name, name, sizeof name), outcome_name(runs[i].outcome));
            break;
        }
    if (summary_partial(s)) {
        char why[80];
        fprintf(out, "\nPerf index: none: the run was %s after %d of %d traces, and an index is "
                "over every trace\n", interrupt_describe(s->interrupted.signal, why, sizeof why), s->traces,
                s->interrupted.planned);
        return;
    }
    if (s->valid + s->failed == 0) {   /* 0.0/100 would read as a score of the allocator */
        fprintf(out, "\nPerf index: none: no trace could be run\n");
        return;
    }
    if (!summary_has_index(s)) {
        fprintf(out, "\nPerf index: none: no trace scores utilization or throughput (weight 0, no ops, or "
                "weight 2 with no payload)\n");
        return;
    }
    fprintf(out, "\nPerf index = %.1f (util) + %.1f (thru) = %.1f/100", s->util_points, s->throughput_points,
            s->perf_index);
    if (s->throughput > 0)
        fprintf(out, "   [throughput %.2fx libc]", s->ratio);
    fputc('\n', out);
}

void report_grade_lines(FILE *out, const summary_t *s)
{
    fprintf(out, "correct:%d\n", s->valid);
    fprintf(out, "perfidx:%.0f\n", s->perf_index);  /* 0 with no index: autograders read the line */
}
