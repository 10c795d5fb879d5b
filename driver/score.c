/* score.c - the performance index (formula in score.h). */
#include "driver/score.h"

#include <string.h>

#include "config.h"

void score_runs(const trace_run_t *runs, size_t n, summary_t *s)
{
    memset(s, 0, sizeof *s);
    int util_traces = 0, tput_traces = 0, tput_valid = 0;
    double util_sum = 0, ops = 0, mm_sec = 0, libc_sec = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_run_t *r = &runs[i];
        s->traces++;
        if (r->outcome == OUTCOME_BAD_TRACE) {
            s->bad_traces++;
            continue;
        }
        run_ok(r) ? s->valid++ : s->failed++;
        if (r->ops == 0)  /* nothing to measure: neither utilization nor throughput, only correctness */
            continue;
        const child_report_t *rep = &r->result.report;
        if (run_scores_util(r)) {
            util_traces++;
            util_sum += run_ok(r) && rep->has_util ? rep->util.util : 0;
        }
        if (r->weight == WEIGHT_BOTH || r->weight == WEIGHT_THROUGHPUT_ONLY) {
            tput_traces++;
            if (run_ok(r) && rep->mm_time.n && r->has_libc) {
                tput_valid++;
                ops += (double)r->ops;
                mm_sec += rep->mm_time.seconds;
                libc_sec += r->libc.seconds;
            }
        }
    }
    s->utilization = util_traces ? util_sum / util_traces : 0;
    s->has_utilization = util_traces > 0;
    s->has_throughput = tput_traces > 0;
    if (tput_valid && mm_sec > 0 && libc_sec > 0) {
        s->throughput = ops / mm_sec;
        s->libc_throughput = ops / libc_sec;
        s->ratio = s->throughput / s->libc_throughput * tput_valid / tput_traces;
    }
    /* Written so that a NaN ratio earns nothing, not the cap. */
    double capped = s->ratio >= MM_THROUGHPUT_CAP ? MM_THROUGHPUT_CAP : s->ratio > 0 ? s->ratio : 0;
    double w = !tput_traces ? 1.0 : !util_traces ? 0.0 : MM_UTIL_WEIGHT;
    s->util_points = 100 * w * s->utilization;
    s->throughput_points = 100 * (1 - w) * capped;
    s->perf_index = s->util_points + s->throughput_points;
}
