/* json.c - JSON writer and the driver's result document (see json.h). */
#include "driver/json.h"

#include <math.h>
#include <string.h>

#include "config.h"
#include "driver/audit.h"
#include "driver/hooks.h"
#include "driver/outcome.h"
#include "driver/sandbox.h"

static void separate(json_t *j, const char *key)
{
    if (j->need_comma[j->depth])
        fputc(',', j->out);
    j->need_comma[j->depth] = true;
    if (key) {
        json_string_n(&(json_t){.out = j->out}, NULL, key, strlen(key));
        fputc(':', j->out);
    }
}

void json_open(json_t *j, const char *key, char bracket)
{
    separate(j, key);
    fputc(bracket, j->out);
    j->need_comma[++j->depth] = false;
}

void json_close(json_t *j, char bracket)
{
    j->depth--;
    fputc(bracket, j->out);
}

/* The code point of the well-formed UTF-8 sequence at s (n bytes left), and its
 * length in *used; 0 in *used when the bytes are not UTF-8. */
static unsigned utf8_decode(const unsigned char *s, size_t n, size_t *used)
{
    static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len = s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    unsigned cp = len ? s[0] & (0x7f >> len) : 0;
    *used = 0;
    if (!len || len > n)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[k] & 0x3f);
    }
    if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
        return 0;
    *used = len;
    return cp;
}

void json_string_n(json_t *j, const char *key, const char *value, size_t len)
{
    if (j->depth || key)
        separate(j, key);
    fputc('"', j->out);
    size_t used;
    unsigned cp;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)value[i];
        if (c == '"' || c == '\\')
            fprintf(j->out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", j->out);
        else if (c == '\t')
            fputs("\\t", j->out);
        else if (c >= 0x80 && (cp = utf8_decode((const unsigned char *)value + i, len - i, &used), used)) {
            /* UTF-8 text (a team member's name, a trace path) as its code point, still in ASCII */
            if (cp > 0xffff)
                fprintf(j->out, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
            else
                fprintf(j->out, "\\u%04x", cp);
            i += used - 1;
        } else if (c < 0x20 || c >= 0x7f)  /* keeps the document ASCII whatever the bytes */
            fprintf(j->out, "\\u%04x", c);
        else
            fputc(c, j->out);
    }
    fputc('"', j->out);
}

void json_string(json_t *j, const char *key, const char *value)
{
    if (!value)
        return json_null(j, key);
    json_string_n(j, key, value, strlen(value));
}

void json_number(json_t *j, const char *key, double value)
{
    separate(j, key);
    if (isfinite(value))
        fprintf(j->out, "%.9g", value);
    else
        fputs("null", j->out);
}

void json_integer(json_t *j, const char *key, long long value)
{
    separate(j, key);
    fprintf(j->out, "%lld", value);
}

void json_bool(json_t *j, const char *key, bool value)
{
    separate(j, key);
    fputs(value ? "true" : "false", j->out);
}

void json_null(json_t *j, const char *key)
{
    separate(j, key);
    fputs("null", j->out);
}

/* ------------------------------------------------------------ the documents */

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

static void write_trace(json_t *j, const trace_run_t *r)
{
    const child_report_t *rep = &r->result.report;
    bool bad = r->outcome == OUTCOME_BAD_TRACE;
    json_open(j, NULL, '{');
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
        json_null(j, "peak_payload");
        json_null(j, "heap_high_water");
    }
    write_timing(j, "timing", !bad && run_ok(r), &rep->mm_time, r->ops);
    write_timing(j, "libc", r->has_libc, &r->libc, r->ops);
    if (rep->has_stats)
        write_stats(j, &rep->stats);
    else
        json_null(j, "stats");
    json_string_n(j, "output", r->result.output ? r->result.output : "", r->result.output_len);
    json_close(j, '}');
}

void json_write_result(FILE *out, const options_t *o, const run_info_t *info, const trace_run_t *runs, size_t n,
                       const summary_t *s)
{
    json_t j = {.out = out};
    json_open(&j, NULL, '{');
    json_integer(&j, "schema", 1);
    json_string(&j, "tool", "mdriver");
    json_string(&j, "secret", info->secret);

    json_open(&j, "allocator", '{');
    json_string(&j, "name", info->allocator);
    if (has_team()) {
        json_open(&j, "team", '{');
        json_string(&j, "teamname", team.teamname);
        json_string(&j, "name1", team.name1);
        json_string(&j, "id1", team.id1);
        json_string(&j, "name2", team.name2);
        json_string(&j, "id2", team.id2);
        json_close(&j, '}');
    } else {
        json_null(&j, "team");
    }
    json_bool(&j, "has_checkheap", has_checkheap());
    json_bool(&j, "has_stats", has_stats());
    json_close(&j, '}');

    json_open(&j, "settings", '{');
    json_integer(&j, "alignment", MM_ALIGNMENT);
    json_integer(&j, "max_heap", (long long)o->max_heap);
    json_number(&j, "time_limit", o->time_limit);
    json_integer(&j, "min_samples", o->min_samples);
    json_bool(&j, "check_heap", o->check_heap);
    json_string(&j, "baseline", info->baseline);
    json_string(&j, "baseline_source", info->baseline_source);
    json_close(&j, '}');

    json_open(&j, "scoring", '{');
    json_number(&j, "util_weight", MM_UTIL_WEIGHT);
    json_number(&j, "throughput_cap", MM_THROUGHPUT_CAP);
    json_string(&j, "estimator", "mean of the 3 fastest thread-CPU-time samples (K-best, K=3, 2% tolerance)");
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
    json_integer(&j, "traces", s->traces);
    json_integer(&j, "valid", s->valid);
    json_integer(&j, "failed", s->failed);
    json_integer(&j, "bad_traces", s->bad_traces);
    json_number(&j, "utilization", s->utilization);
    if (s->throughput > 0) {
        json_number(&j, "throughput_ops_per_sec", s->throughput);
        json_number(&j, "libc_ops_per_sec", s->libc_throughput);
        json_number(&j, "throughput_ratio", s->ratio);
    } else {
        json_null(&j, "throughput_ops_per_sec");
        json_null(&j, "libc_ops_per_sec");
        json_null(&j, "throughput_ratio");
    }
    json_number(&j, "util_points", s->util_points);
    json_number(&j, "throughput_points", s->throughput_points);
    json_number(&j, "perf_index", s->perf_index);
    json_close(&j, '}');
    json_close(&j, '}');
    fputc('\n', out);
}

void json_write_description(FILE *out)
{
    json_t j = {.out = out};
    json_open(&j, NULL, '{');
    json_integer(&j, "schema", 1);
    json_integer(&j, "alignment", MM_ALIGNMENT);
    json_integer(&j, "default_max_heap", MDRIVER_DEFAULT_MAX_HEAP);
    json_number(&j, "util_weight", MM_UTIL_WEIGHT);
    json_number(&j, "throughput_cap", MM_THROUGHPUT_CAP);
    json_bool(&j, "seccomp", sandbox_available());
    json_bool(&j, "audit", audit_available());
    json_open(&j, "outcomes", '[');
    for (int o = 0; o < OUTCOME_COUNT; o++) {
        json_open(&j, NULL, '{');
        json_string(&j, "name", outcome_name((outcome_t)o));
        json_string(&j, "explanation", outcome_explanation((outcome_t)o));
        json_close(&j, '}');
    }
    json_close(&j, ']');
    json_open(&j, "stats_fields", '[');
#define MM_STATS_DESCRIBE(name, what) \
    json_open(&j, NULL, '{');         \
    json_string(&j, "name", #name);   \
    json_string(&j, "meaning", what); \
    json_close(&j, '}');
    MM_STATS_FIELDS(MM_STATS_DESCRIBE)
#undef MM_STATS_DESCRIBE
    json_close(&j, ']');
    json_close(&j, '}');
    fputc('\n', out);
}
