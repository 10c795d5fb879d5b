/*
 * report.h - the driver's text output: progress, the per-trace table, the index.
 * Everything the student reads comes from here; nothing here computes a score.
 */
#ifndef DRIVER_REPORT_H
#define DRIVER_REPORT_H

#include <stdio.h>

#include "driver/result.h"
#include "driver/options.h"
#include "driver/run.h"

void report_header(FILE *out, const options_t *o, const run_info_t *info);
/* -V's line for a trace: its number and name when it starts (a trace that hangs is named while
 * it does), then its outcome, or "interrupted" when the run is stopped during it. */
void report_progress_start(FILE *out, const trace_run_t *r, size_t index, size_t count);
void report_progress_end(FILE *out, const trace_run_t *r);
void report_progress_stopped(FILE *out);
void report_table(FILE *out, const options_t *o, const trace_run_t *runs, size_t n, const summary_t *s);
void report_grade_lines(FILE *out, const summary_t *s);

#endif
