/*
 * trace.c - read a trace file and check it op by op (format in trace.h).
 *
 * One pass over the bytes, no per-op allocation: the parser is on the path of
 * million-op recorded traces, so it reads numbers by hand, and the common line
 * ("a 12 345") through a path of its own (read_plain_op).
 */
#define _GNU_SOURCE
#include "driver/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/heap.h"
#include "driver/interrupt.h"
#include "driver/lifeline.h"
#include "driver/pages.h"
#include "driver/shown.h"
#include "driver/tracename.h"

enum { MAX_IDS = 1 << 26, HEADER_FIELDS = 4 };
/* The parse looks at the driver's interrupt every this many ops: a few ms of a
 * parse that takes a second per 100 MB. */
enum { INTERRUPT_LOOK_OPS = 1 << 16 };

/* statfs's f_type for an anonymous pipe (Linux's PIPEFS_MAGIC, <linux/magic.h>). */
static const unsigned long PIPEFS_MAGIC_TYPE = 0x50495045;

typedef struct {
    const char *path;
    const char *p, *end;   /* cursor in the file's bytes */
    size_t line;
    char *err;
    size_t errlen;
} parser_t;

static bool failf(parser_t *ps, const char *fmt, ...)
{
    int n = snprintf(ps->err, ps->errlen, "%s:%zu: ", ps->path, ps->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < ps->errlen)
        vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
    va_end(ap);
    return false;
}

/* ------------------------------------------------------------ reading bytes */

/* At most TRACE_MAX_BYTES (trace.h) are read; *too_big says there were more. */
static bool read_fd(int fd, size_t size_hint, char **buf, size_t *len, bool *too_big)
{
    size_t cap = size_hint + (1 << 16), n = 0; /* room to see EOF without growing */
    cap = cap > TRACE_MAX_BYTES + 1 ? TRACE_MAX_BYTES + 1 : cap;
    char *b = pages_alloc(cap + 1);
    *too_big = false;
    for (;;) {
        if (!b)
            return false;
        if (n == TRACE_MAX_BYTES + 1) {
            pages_free(b);
            *too_big = true;
            return false;
        }
        if (n == cap) {
            cap = cap * 2 > TRACE_MAX_BYTES + 1 ? TRACE_MAX_BYTES + 1 : cap * 2;
            char *bigger = pages_resize(b, cap + 1);
            if (!bigger) {
                pages_free(b);
                return false;
            }
            b = bigger;
        }
        /* A pipe's writer may never end: the driver's interrupt (interrupt.h) ends the wait. */
        struct pollfd ready = {.fd = fd, .events = POLLIN};
        ssize_t got = interrupt_poll(&ready, 1, -1) < 0 && errno == EINTR ? -1 : read(fd, b + n, cap - n);
        if (got < 0 && errno == EINTR && !interrupt_signal())
            continue;
        if (got < 0) {
            pages_free(b);
            return false;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return true;
}

/* gzip -dc with `in` as its input, read through a pipe: the kit's C uses only libc. */
static bool read_gzip(int in, char **buf, size_t *len, char *why, size_t whylen)
{
    int fds[2];
    if (pipe(fds))
        return snprintf(why, whylen, "cannot read: cannot make a pipe for gzip"), false;
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        lifeline_tie(parent);
        dup2(in, 0);
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        execlp("gzip", "gzip", "-dc", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    bool too_big = false;
    bool ok = pid > 0 && read_fd(fds[0], 0, buf, len, &too_big);
    close(fds[0]);  /* a gzip still writing gets SIGPIPE */
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (ok && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    if (ok)
        pages_free(*buf);
    if (too_big)
        snprintf(why, whylen, "unpacks to more than %zu bytes: not a trace", (size_t)TRACE_MAX_BYTES);
    else
        snprintf(why, whylen, "cannot read: %s",
                 WIFEXITED(status) && WEXITSTATUS(status) == 127 ? "gzip is not installed" : "not a valid gzip file");
    return false;
}

static inline bool gzip_magic(const unsigned char *b, size_t n)
{
    return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

/* A gzip stream already read from a pipe (which cannot be read twice) goes to
 * gzip from an unnamed in-memory file; *buf is replaced by what it unpacks to. */
static bool gunzip_bytes(char **buf, size_t *len, char *why, size_t whylen)
{
    int mem = memfd_create("mdriver-trace", MFD_CLOEXEC);
    if (mem < 0)
        return snprintf(why, whylen, "cannot read: cannot hold the gzip stream: %s", strerror(errno)), false;
    bool ok = true;
    for (size_t done = 0; ok && done < *len;) {
        ssize_t put = write(mem, *buf + done, *len - done);
        if (put < 0 && errno == EINTR)
            continue;
        ok = put > 0;
        done += ok ? (size_t)put : 0;
    }
    pages_free(*buf);
    if (!ok) {
        close(mem);
        return snprintf(why, whylen, "cannot read: cannot hold the gzip stream: %s", strerror(errno)), false;
    }
    lseek(mem, 0, SEEK_SET);
    ok = read_gzip(mem, buf, len, why, whylen);
    close(mem);
    return ok;
}

/* A pipe made by a shell for `-f <(zcat x.rep.gz)` already has its writer; a
 * named FIFO in a folder may never get one. */
static bool anonymous_pipe(int fd, const struct stat *st)
{
    struct statfs fs;
    return S_ISFIFO(st->st_mode) && fstatfs(fd, &fs) == 0 && (unsigned long)fs.f_type == PIPEFS_MAGIC_TYPE;
}

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a named pipe (FIFO)" : S_ISSOCK(mode) ? "a socket"
                                                                                          : "a device";
}

static inline bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

bool trace_is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The file a missing path was likely meant for, in buf: the trace's name given for x.rep or
 * x.rep.gz, .rep for a .rep.gz, or .rep.gz for a .rep; false when there is none. */
static bool meant_file(const char *path, char *buf, size_t len)
{
    size_t n = strlen(path);
    const char *more[] = {".rep", ".rep.gz", ends_with(path, n, ".rep") ? ".gz" : NULL};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        if (more[i] && (size_t)snprintf(buf, len, "%s%s", path, more[i]) < len && trace_is_regular(buf))
            return true;
    return ends_with(path, n, ".gz") && (size_t)snprintf(buf, len, "%.*s", (int)(n - 3), path) < len &&
           trace_is_regular(buf);
}

/* "cannot open" and why, in err; for a missing path, the file it was likely meant for. */
static void cannot_open(const char *path, const char *where, int error, char *err, size_t errlen)
{
    char meant[4200], meant_shown[TRACE_PATH_SHOWN];
    int used = snprintf(err, errlen, "%s:0: cannot open: %s", where, strerror(error));
    if (error == ENOENT && used >= 0 && (size_t)used < errlen && meant_file(path, meant, sizeof meant))
        snprintf(err + used, errlen - (size_t)used, "; did you mean %s?",
                 shown(meant, meant_shown, sizeof meant_shown));
}

/* `where` is the path as messages show it. */
static bool load_bytes(const char *path, const char *where, char **buf, size_t *len, bool *piped, char *err,
                       size_t errlen)
{
    /* O_NONBLOCK: opening a FIFO would otherwise wait for a writer, maybe forever. */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        cannot_open(path, where, errno, err, errlen);
        return false;
    }
    struct stat st = {0};
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    *piped = !regular && anonymous_pipe(fd, &st);
    if (!regular && !*piped) {  /* /dev/zero would be read forever, a FIFO waited on */
        close(fd);
        snprintf(err, errlen, "%s:0: is %s, not a trace file (a trace is a regular file or a shell's pipe)", where,
                 file_kind(st.st_mode));
        return false;
    }
    fcntl(fd, F_SETFL, 0);
    unsigned char magic[2] = {0, 0};
    bool ok, too_big = false;
    char why[96] = "cannot read: read error";
    if (regular && pread(fd, magic, 2, 0) == 2 && gzip_magic(magic, 2))
        ok = read_gzip(fd, buf, len, why, sizeof why);
    else if (regular && (uint64_t)st.st_size > TRACE_MAX_BYTES)
        ok = false, too_big = true;  /* known without reading it */
    else if ((ok = read_fd(fd, regular ? (size_t)st.st_size : 0, buf, len, &too_big)) &&
             gzip_magic((unsigned char *)*buf, *len))
        ok = gunzip_bytes(buf, len, why, sizeof why);    /* `-f <(gzip -c t.rep)` */
    close(fd);
    if (too_big)
        snprintf(why, sizeof why, "more than %zu bytes: not a trace", (size_t)TRACE_MAX_BYTES);
    if (!ok)
        snprintf(err, errlen, "%s:0: %s", where, why);
    return ok;
}

/* ------------------------------------------------------------ tokens */

/* A byte no trace holds outside a comment: a control byte other than a blank or an end of
 * line, DEL, or one past ASCII (as mmtrace check judges it). */
static inline bool binary_byte(char c)
{
    unsigned char u = (unsigned char)c;
    return (u < 0x20 && c != '\t' && c != '\r' && c != '\n') || u >= 0x7f;
}

static bool fail_binary(parser_t *ps, char c)
{
    return failf(ps, "binary data (byte 0x%02x): not a trace file", (unsigned char)c);
}

/* Skip blanks, comments and (when allowed) newlines.  Returns false at a byte
 * that cannot appear in a trace. */
static bool skip_space(parser_t *ps, bool across_lines)
{
    while (ps->p < ps->end) {
        char c = *ps->p;
        if (c == ' ' || c == '\t' || c == '\r') {
            ps->p++;
        } else if (c == '#') {
            while (ps->p < ps->end && *ps->p != '\n')
                ps->p++;
        } else if (c == '\n' && across_lines) {
            ps->line++;
            ps->p++;
        } else if ((unsigned char)c < 0x20 && c != '\n') {
            return fail_binary(ps, c);
        } else {
            return true;
        }
    }
    return true;
}

/* A byte that may end a token: blank, end of line or the start of a comment. */
static inline bool ends_token(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#';
}

static bool at_line_end(const parser_t *ps)
{
    return ps->p >= ps->end || *ps->p == '\n';
}

/* The token under the cursor, quoted for a message. */
static const char *token_text(const parser_t *ps, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *q = ps->p; q < ps->end && n + 1 < len && n < 24; q++) {
        unsigned char c = (unsigned char)*q;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            break;
        buf[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    buf[n] = '\0';
    return buf;
}

/* The first byte of the token under the cursor that no trace holds, or NULL: a message names
 * it, where token_text would show it as '?' (a NUL after a size read as "bad token '1?'"). */
static const char *binary_in_token(const parser_t *ps)
{
    for (const char *q = ps->p; q < ps->end && !ends_token(*q); q++)
        if (binary_byte(*q))
            return q;
    return NULL;
}

/* A decimal number on the current line: its value, or *past when it is over max, the cursor
 * then at its start for the caller's message.  False, with the message, when it is no number. */
static bool read_digits(parser_t *ps, const char *what, uint64_t max, uint64_t *out, bool *past)
{
    if (!skip_space(ps, false))
        return false;
    if (at_line_end(ps))
        return failf(ps, "truncated: %s missing", what);
    char tok[32];
    const char *start = ps->p;
    uint64_t v = 0;
    bool overflow = false;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
        unsigned d = (unsigned)(*ps->p++ - '0');
        if (v > (UINT64_MAX - d) / 10)
            overflow = true;
        else
            v = v * 10 + d;
    }
    if (ps->p == start || (ps->p < ps->end && !ends_token(*ps->p))) {
        ps->p = start;
        const char *binary = binary_in_token(ps);
        return binary ? fail_binary(ps, *binary)
                      : failf(ps, "bad token '%s': %s must be a non-negative integer", token_text(ps, tok, sizeof tok),
                              what);
    }
    *past = overflow || v > max;
    if (*past)
        ps->p = start;
    *out = v;
    return true;
}

/* A decimal number on the current line, at most `max`. */
static bool read_number(parser_t *ps, const char *what, uint64_t max, uint64_t *out)
{
    char tok[32];
    bool past;
    if (!read_digits(ps, what, max, out, &past))
        return false;
    return !past || failf(ps, "%s %s out of range (at most %llu)", what, token_text(ps, tok, sizeof tok),
                          (unsigned long long)max);
}

/* ------------------------------------------------------------ the file */

static bool fail_weight(parser_t *ps, const char *weight)
{
    return failf(ps, "weight %s out of range (0 check only, 1 both, 2 utilization, 3 throughput)", weight);
}

/* The classic order's 4th number, the weight: past 2^64 too, 3 is the limit to name, not uint64's. */
static bool read_weight(parser_t *ps, const char *what, uint64_t *weight)
{
    char tok[32];
    bool past;
    if (!read_digits(ps, what, UINT64_MAX, weight, &past))
        return false;
    return !past || fail_weight(ps, token_text(ps, tok, sizeof tok));
}

static bool read_header(parser_t *ps, trace_t *t, size_t max_size)
{
    uint64_t h[HEADER_FIELDS];
    static const char *names[HEADER_FIELDS] = {"header field 1", "the number of ids", "the number of ops", "header field 4"};
    /* Each number's real limit, so that a message never names a wider one (2^64-1 for ids). */
    static const uint64_t most[HEADER_FIELDS] = {UINT64_MAX, MAX_IDS, UINT64_MAX, UINT64_MAX};
    for (int i = 0; i < HEADER_FIELDS; i++) {
        if (!skip_space(ps, true))
            return false;
        if (ps->p >= ps->end)
            return failf(ps, "truncated: the header needs 4 numbers, found %d", i);
        bool classic_weight = i == 3 && h[0] > 3;  /* a first number over 3: the classic order */
        if (!(classic_weight ? read_weight(ps, names[i], &h[i]) : read_number(ps, names[i], most[i], &h[i])))
            return false;
    }
    bool lab64 = h[0] <= 3;
    uint64_t weight = lab64 ? h[0] : h[3];
    if (weight > 3) {
        char shown[24];
        snprintf(shown, sizeof shown, "%llu", (unsigned long long)weight);
        return fail_weight(ps, shown);
    }
    (void)max_size;
    t->weight = (int)weight;
    t->num_ids = (uint32_t)h[1];
    t->num_ops = (size_t)h[2];
    return true;
}

static bool push_op(trace_t *t, size_t *cap, op_t op)
{
    if (t->num_ops == *cap) {
        size_t bigger = *cap ? *cap * 2 : 1024;
        op_t *ops = pages_resize(t->ops, bigger * sizeof *ops);
        if (!ops)
            return false;
        t->ops = ops;
        *cap = bigger;
    }
    t->ops[t->num_ops++] = op;
    return true;
}

/* Whether the op may come next (`live` says which ids hold a block), and its
 * effect on them. */
static bool follow_ids(parser_t *ps, const op_t *op, unsigned char *live)
{
    unsigned long long id = op->id;
    bool was_live = live[id];
    switch (op->kind) {
    case OP_ALLOC:
    case OP_REALLOC_NULL:
        if (was_live)
            return failf(ps, "id %llu is already allocated (free it before reusing the id)", id);
        live[id] = 1;
        break;
    case OP_FREE:
        if (!was_live)
            return failf(ps, "free of id %llu, which is not allocated", id);
        live[id] = 0;
        break;
    case OP_REALLOC:
        if (!was_live)
            return failf(ps, "realloc of id %llu, which is not allocated (use `n` for realloc(NULL, size))", id);
        live[id] = op->size != 0;
        break;
    }
    return true;
}

/* The op an op letter names. */
static inline bool op_kind_of(char letter, op_kind_t *kind)
{
    switch (letter) {
    case 'a': *kind = OP_ALLOC; return true;
    case 'f': *kind = OP_FREE; return true;
    case 'r': *kind = OP_REALLOC; return true;
    case 'n': *kind = OP_REALLOC_NULL; return true;
    default: return false;
    }
}

/* An op's size, at most max_size.  The file is fine when it is over: the heap is what is too
 * small, and past -M's maximum (2^64 too) no -M is large enough, so the advice differs. */
static bool read_size(parser_t *ps, size_t max_size, uint64_t *size)
{
    char tok[32];
    bool past;
    if (!read_digits(ps, "size", HEAP_LIMIT, size, &past))
        return false;
    if (past)
        return failf(ps, "size %s cannot fit in the heap: no heap the driver can make holds it (-M is at most %zu "
                     "bytes)", token_text(ps, tok, sizeof tok), HEAP_LIMIT);
    return *size <= max_size ||
           failf(ps, "size %llu cannot fit in the heap: this run's maximum heap is %zu bytes (-M); the trace needs a "
                 "larger -M", (unsigned long long)*size, max_size);
}

/* One op line's tokens. */
static bool read_op(parser_t *ps, const trace_t *t, size_t max_size, op_t *op)
{
    char tok[32];
    char letter = *ps->p;
    const char *start = ps->p++;
    if ((!at_line_end(ps) && !ends_token(*ps->p)) || !op_kind_of(letter, &op->kind)) {
        ps->p = start;
        const char *binary = binary_in_token(ps);
        return binary ? fail_binary(ps, *binary)
                      : failf(ps, "bad token '%s': expected an op (a, f, r or n)", token_text(ps, tok, sizeof tok));
    }
    uint64_t id, size = 0;
    if (t->num_ids == 0)
        return failf(ps, "id out of range: the header declares no ids");
    bool past;
    if (!read_digits(ps, "id", t->num_ids - 1, &id, &past))
        return false;
    if (past)  /* the header's count is the limit, however far past it (not uint32's) */
        return failf(ps, "id %s out of range (the header declares %u ids)", token_text(ps, tok, sizeof tok),
                     t->num_ids);
    if (op->kind != OP_FREE && !read_size(ps, max_size, &size))
        return false;
    if (!skip_space(ps, false))
        return false;
    if (!at_line_end(ps)) {
        const char *binary = binary_in_token(ps);
        return binary ? fail_binary(ps, *binary)
                      : failf(ps, "unexpected '%s' after the op", token_text(ps, tok, sizeof tok));
    }
    op->id = (uint32_t)id;
    op->size = (size_t)size;
    return true;
}

/* The digits at p, at most `most` of them (few enough not to overflow), as a
 * number; NULL if there are none or more. */
static inline const char *plain_number(const char *p, const char *end, int most, uint64_t *out)
{
    const char *start = p;
    uint64_t v = 0;
    while (p < end && (unsigned)(*p - '0') < 10 && p - start < most)
        v = v * 10 + (unsigned)(*p++ - '0');
    if (p == start || (p < end && (unsigned)(*p - '0') < 10))
        return NULL;
    *out = v;
    return p;
}

/* The common line, "a 12 345" and its end of line (one space between tokens,
 * numbers in range, no comment), read without the general path's per-byte
 * checks.  Any other line returns false with the cursor unmoved, and read_op
 * reads it (and words its error). */
static inline bool read_plain_op(parser_t *ps, const trace_t *t, size_t max_size, op_t *op)
{
    const char *p = ps->p, *end = ps->end;
    if (end - p < 4 || p[1] != ' ' || !op_kind_of(p[0], &op->kind))
        return false;
    uint64_t id, size = 0;
    if (!(p = plain_number(p + 2, end, 10, &id)) || id >= t->num_ids)
        return false;
    if (op->kind != OP_FREE &&
        (p >= end || *p != ' ' || !(p = plain_number(p + 1, end, 19, &size)) || size > max_size))
        return false;
    if (p >= end || *p != '\n')
        return false;
    op->id = (uint32_t)id;
    op->size = (size_t)size;
    ps->p = p;
    return true;
}

bool trace_load(const char *path, size_t max_size, trace_t *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    tracename_of_path(path, t->name, sizeof t->name);
    char *bytes;
    size_t len;
    char where[TRACE_PATH_SHOWN];  /* the path in messages, on one line */
    shown(path, where, sizeof where);
    bool piped = false, loaded = load_bytes(path, where, &bytes, &len, &piped, err, errlen);
    if (piped)
        tracename_of_pipe(path, loaded ? bytes : "", loaded ? len : 0, t->name, sizeof t->name);
    if (!loaded)
        return false;
    parser_t ps = {.path = where, .p = bytes, .end = bytes + len, .line = 1, .err = err, .errlen = errlen};
    bool ok = read_header(&ps, t, max_size);
    size_t declared = t->num_ops, cap = 0;
    /* Trust the header's count for the first allocation only, and not blindly. */
    if (ok && declared && declared <= len / 2 + 1) {
        t->ops = pages_alloc(declared * sizeof *t->ops);
        cap = t->ops ? declared : 0;
    }
    unsigned char *live = ok ? pages_alloc(t->num_ids ? t->num_ids : 1) : NULL;
    if (ok && !live)
        ok = failf(&ps, "out of memory for %u ids", t->num_ids);
    t->num_ops = 0;
    while (ok) {
        if (t->num_ops % INTERRUPT_LOOK_OPS == 0 && interrupt_signal()) {
            ok = failf(&ps, "not read to the end: the driver was interrupted");  /* not a bad trace: run_take */
            break;
        }
        if (!(ok = skip_space(&ps, true)) || ps.p >= ps.end)
            break;
        op_t op = {0};
        ok = (read_plain_op(&ps, t, max_size, &op) || read_op(&ps, t, max_size, &op)) && follow_ids(&ps, &op, live) &&
             (push_op(t, &cap, op) || failf(&ps, "out of memory"));
    }
    if (ok && t->num_ops != declared)
        ok = failf(&ps, "the header says %zu ops but the file has %zu", declared, t->num_ops);
    /* A trace of no ops has an array all the same: its readers copy it whole, and memcpy takes
     * no NULL, even for 0 bytes. */
    if (ok && !t->ops && !(t->ops = pages_alloc(sizeof *t->ops)))
        ok = failf(&ps, "out of memory");
    pages_free(live);
    pages_free(bytes);
    if (!ok)
        trace_free(t);
    return ok;
}

void trace_free(trace_t *t)
{
    pages_free(t->ops);
    t->ops = NULL;
    t->num_ops = 0;
}

/* Each op's three fields folded in by multiply and xor-shift, with a final mix:
 * a digest for telling traces apart, not one that withstands a forger (a baseline
 * is the user's own file).  Fields as 64-bit numbers: the same on every build. */
uint64_t trace_fingerprint(const trace_t *t)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;  /* 2^64 / the golden ratio */
    uint64_t h = t->num_ops;
    for (size_t i = 0; i < t->num_ops; i++) {
        const op_t *op = &t->ops[i];
        h = (h ^ op->kind) * k;
        h = (h ^ op->id) * k;
        h = (h ^ op->size) * k;
        h ^= h >> 29;
    }
    h ^= h >> 32;
    h *= k;
    return h ^ (h >> 29);
}

void op_describe(const op_t *op, char *buf, size_t len)
{
    static const char letters[] = {'a', 'f', 'r', 'n'};
    if (op->kind == OP_FREE)
        snprintf(buf, len, "f %u", op->id);
    else
        snprintf(buf, len, "%c %u %zu", letters[op->kind], op->id, op->size);
}

const char *op_where(const trace_t *t, int64_t at, char *buf, size_t len)
{
    if (at < 0)
        return "after the last op";
    int n = snprintf(buf, len, "op %" PRId64 " (", at);
    if (n < 0 || (size_t)n + 2 > len)
        return buf;
    op_describe(&t->ops[at], buf + n, len - (size_t)n - 1);
    strcat(buf, ")");
    return buf;
}
