/*
 * baseline.h - libc's timings stored for reuse, with where and when they were taken.
 *
 * File format, one record a line:
 *   mdriver-baseline 1
 *   machine HOSTNAME | CPU
 *   date ISO-8601
 *   alignment N
 *   trace NAME OPS SECONDS
 */
#ifndef DRIVER_BASELINE_H
#define DRIVER_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/json.h"
#include "driver/run.h"

bool baseline_save(const char *path, const run_info_t *info, const trace_run_t *runs, size_t n);
/* Fill runs[i].libc from the file; *source describes it ("FILE, taken on MACHINE at DATE").
 * On a problem writes "FILE:LINE: what" to err. */
bool baseline_load(const char *path, trace_run_t *runs, size_t n, char *source, size_t source_len, char *err,
                   size_t errlen);

#endif
