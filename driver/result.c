/* result.c - the result documents of a run of traces (see result.h). */
#include "driver/result.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "driver/hooks.h"
#include "driver/interrupt.h"
#include "driver/json.h"
#include "driver/options.h"
#include "driver/outcome.h"
#include "driver/team.h"

static void write_timing(json_t *j, const char *key, bool present, const timing_t *t, size_t ops)
{
    if (!present || t->n == 0)
        return json_null(j, key);
    json_open(j, key, '{');
    json_number(j, "seconds", t->seconds);
    json_number(j, "ops_per_sec", t->seconds > 0 ? (double)ops / t->seconds : 0);
    json_open(j, "samples", '[');
    for (int i = 0; i < t->n; i++)
        json_number(j, NULL, t->samples[i]);
    json_close(j, ']');
    if (t->has_faults) {
        json_open(j, "page_faults", '[');
        for (int i = 0; i < t->n; i++)
            json_integer(j, NULL, t->faults[i]);
        json_close(j, ']');
    }
    json_close(j, '}');
}

static void write_stats(json_t *j, const mm_stats_t *st)
{
    json_open(j, "stats", '{');
#define MM_STATS_JSON(name, what) json_integer(j, #name, (long long)st->name);
    MM_STATS_FIELDS(MM_STATS_JSON)
#undef MM_STATS_JSON
    json_close(j, '}');
}

/* What both programs say of a trace: what it is, what happened, its utilization. */
static void trace_fields(json_t *j, const trace_run_t *r)
{
    const child_report_t *rep = &r->result.report;
    bool bad = r->outcome == OUTCOME_BAD_TRACE;
    json_string(j, "name", r->name);
    json_string(j, "path", r->path);
    json_integer(j, "weight", r->weight);
    json_integer(j, "ops", (long long)r->ops);
    json_string(j, "outcome", outcome_name(r->outcome));
    json_string(j, "message", bad ? r->bad_trace : rep->verdict.message);
    int64_t at = bad ? -1 : rep->verdict.op_index;
    if (at >= 0)
        json_integer(j, "op_index", at);
    else
        json_null(j, "op_index");
    json_string(j, "op", bad || at < 0 ? NULL : r->op_text);
    if (rep->has_util) {
        json_number(j, "utilization", rep->util.util);
        json_number(j, "ideal_utilization", rep->util.ideal);
        json_integer(j, "peak_payload", (long long)rep->util.peak_payload);
        json_integer(j, "heap_high_water", (long long)rep->util.heap_high_water);
    } else {
        json_null(j, "utilization");
        json_null(j, "ideal_utilization");
        if (bad || r->peak_payload == UINT64_MAX)
            json_null(j, "peak_payload");
        else  /* a trace's own: 0 says it scores no utilization */
            json_integer(j, "peak_payload", (long long)r->peak_payload);
        json_null(j, "heap_high_water");
    }
}

static void write_trace(json_t *j, const trace_run_t *r)
{
    const child_report_t *rep = &r->result.report;
    bool bad = r->outcome == OUTCOME_BAD_TRACE;
    json_open(j, NULL, '{');
    trace_fields(j, r);
    write_timing(j, "timing", !bad && run_ok(r), &rep->mm_time, r->ops);
    write_timing(j, "libc", r->has_libc, &r->libc, r->ops);
    if (rep->has_stats)
        write_stats(j, &rep->stats);
    else
        json_null(j, "stats");
    const child_result_t *res = &r->result;
    size_t from = child_output_tail_start(res), tail = res->output_tail_len - from;
    json_string_n(j, "output", res->output ? res->output : "", res->output_len);
    /* what was left out between the first bytes and the last: a reader must be able to say so */
    json_integer(j, "output_cut", (long long)(res->output_total - res->output_len - tail));
    /* the last lines, printed just before a crash: what a student debugging with printf looks for */
    json_string_n(j, "output_tail", res->output_tail + from, tail);
    json_close(j, '}');
}

static void settings_fields(json_t *j, const options_t *o)
{
    json_integer(j, "alignment", MM_ALIGNMENT);
    json_integer(j, "max_heap", (long long)o->max_heap);
    json_number(j, "time_limit", o->time_limit);
}

static void summary_counts(json_t *j, const summary_t *s)
{
    json_integer(j, "traces", s->traces);
    json_integer(j, "valid", s->valid);
    json_integer(j, "failed", s->failed);
    json_integer(j, "bad_traces", s->bad_traces);
    if (s->has_utilization)
        json_number(j, "utilization", s->utilization);
    else
        json_null(j, "utilization");   /* no trace scores it: 0 would read as measured */
}

/* null, or the signal that cut the run short and how far it had got. */
static void write_interruption(json_t *j, const interruption_t *in)
{
    if (!in->signal)
        return json_null(j, "interrupted");
    json_open(j, "interrupted", '{');
    json_string(j, "signal", interrupt_name(in->signal));
    json_integer(j, "signal_number", in->signal);
    json_string(j, "during", in->during);
    json_integer(j, "planned", in->planned);
    json_close(j, '}');
}

/* A document's opening: schema 1, and which program wrote it. */
static json_t document_start(FILE *out, const char *tool)
{
    json_t j = {.out = out};
    json_open(&j, NULL, '{');
    json_integer(&j, "schema", 1);
    json_string(&j, "tool", tool);
    return j;
}

void json_write_result(FILE *out, const options_t *o, const run_info_t *info, const trace_run_t *runs, size_t n,
                       const summary_t *s)
{
    json_t j = document_start(out, "mdriver");
    json_string(&j, "secret", info->secret);
    write_interruption(&j, &s->interrupted);

    json_open(&j, "allocator", '{');
    json_string(&j, "name", info->allocator);
    team_text_t t;
    if (team_read(&t)) {
        json_open(&j, "team", '{');
        json_string(&j, "teamname", t.teamname);
        json_string(&j, "name1", t.name1);
        json_string(&j, "id1", t.id1);
        json_string(&j, "name2", t.name2);
        json_string(&j, "id2", t.id2);
        json_close(&j, '}');
    } else {
        json_null(&j, "team");
    }
    json_bool(&j, "has_checkheap", has_checkheap());
    json_bool(&j, "has_stats", has_stats());
    json_close(&j, '}');

    json_open(&j, "settings", '{');
    settings_fields(&j, o);
    if (o->run_limit)
        json_integer(&j, "run_limit", o->run_limit);
    else
        json_null(&j, "run_limit");
    json_integer(&j, "min_samples", o->min_samples);
    json_bool(&j, "check_heap", o->check_heap);
    json_string(&j, "baseline", info->baseline);
    json_string(&j, "baseline_source", info->baseline_source);
    json_close(&j, '}');

    json_open(&j, "scoring", '{');
    json_number(&j, "util_weight", MM_UTIL_WEIGHT);
    json_number(&j, "throughput_cap", MM_THROUGHPUT_CAP);
    json_string(&j, "estimator", "mean of the 3 fastest thread-CPU-time samples (K-best, K=3, 2% tolerance); libc topped up to the allocator's number of samples");
    json_close(&j, '}');

    json_open(&j, "machine", '{');
    json_string(&j, "hostname", info->hostname);
    json_string(&j, "cpu", info->cpu);
    json_string(&j, "date", info->date);
    json_close(&j, '}');

    json_open(&j, "traces", '[');
    for (size_t i = 0; i < n; i++)
        write_trace(&j, &runs[i]);
    json_close(&j, ']');

    json_open(&j, "summary", '{');
    summary_counts(&j, s);
    if (s->throughput > 0) {
        json_number(&j, "throughput_ops_per_sec", s->throughput);
        json_number(&j, "libc_ops_per_sec", s->libc_throughput);
        json_number(&j, "throughput_ratio", s->ratio);
    } else {
        json_null(&j, "throughput_ops_per_sec");
        json_null(&j, "libc_ops_per_sec");
        json_null(&j, "throughput_ratio");
    }
    if (!summary_has_index(s)) {  /* part of a suite, or no trace that scores */
        json_null(&j, "util_points");
        json_null(&j, "throughput_points");
        json_null(&j, "perf_index");
    } else {
        json_number(&j, "util_points", s->util_points);
        json_number(&j, "throughput_points", s->throughput_points);
        json_number(&j, "perf_index", s->perf_index);
    }
    json_close(&j, '}');
    json_close(&j, '}');
    fputc('\n', out);
}

void json_write_replay(FILE *out, const options_t *o, const run_info_t *info, const trace_run_t *runs, size_t n,
                       const summary_t *s)
{
    json_t j = document_start(out, "mmreplay");
    json_open(&j, "allocator", '{');
    json_string(&j, "name", info->allocator);
    json_close(&j, '}');
    json_open(&j, "settings", '{');
    settings_fields(&j, o);
    json_close(&j, '}');
    json_open(&j, "traces", '[');
    for (size_t i = 0; i < n; i++) {
        json_open(&j, NULL, '{');
        trace_fields(&j, &runs[i]);
        json_close(&j, '}');
    }
    json_close(&j, ']');
    json_open(&j, "summary", '{');
    summary_counts(&j, s);
    json_close(&j, '}');
    json_close(&j, '}');
    fputc('\n', out);
}

/* stdout or stderr when dest names the file or pipe it writes to (`--json /dev/stdout > run.txt`):
 * replaced whole, that file lost what the stream had written to it, and a pipe got the table and
 * the JSON mixed.  NULL otherwise (a terminal or /dev/null is written directly, as before). */
static FILE *std_stream_named(const char *dest)
{
    struct stat st, std;
    if (stat(dest, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return NULL;
    FILE *streams[] = {stdout, stderr};
    for (size_t i = 0; i < sizeof streams / sizeof *streams; i++)
        if (fstat(fileno(streams[i]), &std) == 0 && std.st_dev == st.st_dev && std.st_ino == st.st_ino)
            return streams[i];
    return NULL;
}

bool result_open(result_out_t *out, const char *dest)
{
    memset(out, 0, sizeof *out);
    out->dest = dest;
    if (!strcmp(dest, "-")) {
        out->stream = stdout;
        return true;
    }
    if (!strncmp(dest, "fd:", 3)) {
        long fd;
        if (!options_int(dest + 3, 0, INT_MAX, &fd)) {
            errno = EINVAL;  /* what the caller reports when the number itself is bad */
            return false;
        }
        /* fd:1 and fd:2 are stdout and stderr themselves: closed at the end, they would
         * take the table or the messages that follow with them. */
        out->stream = fd == STDOUT_FILENO ? stdout : fd == STDERR_FILENO ? stderr : fdopen((int)fd, "w");
        return out->stream != NULL;
    }
    if ((out->stream = std_stream_named(dest)))
        return true;
    return replace_check(dest);
}

bool result_on_stdout(const result_out_t *out)
{
    return out->stream && fileno(out->stream) == STDOUT_FILENO;
}

FILE *result_begin(result_out_t *out)
{
    return out->stream ? out->stream : replace_begin(&out->file, out->dest);
}

bool result_end(result_out_t *out)
{
    if (!out->stream)
        return replace_commit(&out->file);
    bool ok = fflush(out->stream) == 0 && !ferror(out->stream);
    int e = errno;
    if (out->stream != stdout && out->stream != stderr)
        ok = fclose(out->stream) == 0 && ok;  /* fd:N: the reader waits for its end */
    else {
        clearerr(out->stream);  /* reported once, by the caller, as --json's failure */
        errno = e;
    }
    out->stream = NULL;
    return ok;
}
