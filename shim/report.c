/*
 * report.c - MMSHIM_STATS=path: at exit each process appends one JSON line to
 * path, so a test can prove which allocator served a program (and a benchmark
 * can read the variant's counters).  Built with snprintf into a stack buffer
 * and written with write(2): the report itself allocates nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mm.h"
#include "shim.h"

#ifndef MMSHIM_VARIANT
#define MMSHIM_VARIANT "unknown"
#endif

void mm_stats(mm_stats_t *out) __attribute__((weak));

/* printf into buf at *at, never past cap. */
static void append(char *buf, size_t *at, size_t cap, const char *fmt, ...)
{
    if (*at >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, cap - *at, fmt, ap);
    va_end(ap);
    if (n > 0)
        *at += (size_t)n;
}

static void read_comm(char *out, size_t cap)
{
    out[0] = '\0';
    int fd = open("/proc/self/comm", O_RDONLY);
    if (fd < 0)
        return;
    ssize_t n = read(fd, out, cap - 1);
    close(fd);
    out[n > 0 ? n : 0] = '\0';
    for (char *p = out; *p; p++)        /* keep the JSON string plain */
        if (*p == '\n' || *p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            *p = *p == '\n' ? '\0' : '_';
}

/* One line on stderr when the stats line could not be appended: asked for, it must not be
 * lost without a word (as MMSHIM_REGION_MB's note).  strerrordesc_np: no locale, no allocation. */
static void say_not_written(const char *path, int err)
{
    char line[400];
    size_t at = 0;
    append(line, &at, sizeof line, "mmshim: MMSHIM_STATS=%.200s: cannot append the stats line (%s)\n", path,
           strerrordesc_np(err) ? strerrordesc_np(err) : "unknown error");
    ssize_t ignored = write(2, line, at < sizeof line ? at : sizeof line - 1);
    (void)ignored;
}

void report_at_exit(void)
{
    const char *path = getenv("MMSHIM_STATS");
    if (!path || !*path)
        return;
    char buf[2048], comm[64];
    size_t at = 0, cap = sizeof buf - 2;
    read_comm(comm, sizeof comm);
    append(buf, &at, cap, "{\"shim\": \"mmshim\", \"variant\": \"%s\", \"pid\": %d, \"comm\": \"%s\"",
           MMSHIM_VARIANT, (int)getpid(), comm);
#define PUT_COUNTER(field) \
    append(buf, &at, cap, ", \"" #field "\": %lu", atomic_load(&shim_count.field));
    PUT_COUNTER(mallocs) PUT_COUNTER(frees) PUT_COUNTER(callocs) PUT_COUNTER(reallocs)
    PUT_COUNTER(aligned) PUT_COUNTER(big_maps) PUT_COUNTER(big_unmaps) PUT_COUNTER(fallbacks)
#undef PUT_COUNTER
    append(buf, &at, cap, ", \"region_high_water\": %zu, \"region_capacity\": %zu",
           region_high_water(), region_capacity());
    if (mm_stats) {
        mm_stats_t s;
        mm_stats(&s);
        const char *sep = "";
        append(buf, &at, cap, ", \"mm\": {");
#define PUT_STAT(name, what) \
    append(buf, &at, cap, "%s\"" #name "\": %llu", sep, (unsigned long long)s.name), sep = ", ";
        MM_STATS_FIELDS(PUT_STAT)
#undef PUT_STAT
        append(buf, &at, cap, "}");
    }
    if (at >= cap)
        return;
    memcpy(buf + at, "}\n", 2);
    at += 2;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        say_not_written(path, errno);
        return;
    }
    ssize_t wrote = write(fd, buf, at);
    if (wrote != (ssize_t)at)               /* a full disk: ENOSPC; a short write: EIO */
        say_not_written(path, wrote < 0 ? errno : EIO);
    close(fd);
}
