/* shown.c - names and paths as people see them (see shown.h). */
#include "driver/shown.h"

#include <stdbool.h>
#include <string.h>

static inline bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

static inline bool starts_char(unsigned char c) { return (c & 0xC0) != 0x80; }

/* The bytes of the UTF-8 character at p (1 for a stray byte). */
static size_t char_bytes(const char *p)
{
    size_t n = 1;
    while (p[n] && !starts_char((unsigned char)p[n]) && n < 4)
        n++;
    return n;
}

const char *shown(const char *s, char *buf, size_t len)
{
    size_t n = 0;
    if (!len)
        return buf;
    for (const char *p = s; *p;) {
        unsigned char c = (unsigned char)*p;
        char esc[8];
        size_t k;
        const char *from = p;
        if (shown_is_c1(p, 2)) {  /* p[1] is there: at worst the NUL */
            snprintf(esc, sizeof esc, "\\u%04x", (unsigned char)p[1]);
            from = esc;
            k = strlen(esc);
            p += 2;
        } else if (is_control(c)) {
            const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
            if (named)
                memcpy(esc, named, 3);
            else
                snprintf(esc, sizeof esc, "\\x%02x", c);
            from = esc;
            k = strlen(esc);
            p++;
        } else {
            k = char_bytes(p);
            p += k;
        }
        if (n + k + 1 > len)
            break;
        memcpy(buf + n, from, k);
        n += k;
    }
    buf[n] = '\0';
    return buf;
}

/* Characters in s (UTF-8 lead bytes). */
static int chars(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += starts_char((unsigned char)*s);
    return n;
}

/* The byte where s's character number `at` starts. */
static const char *char_at(const char *s, int at)
{
    for (int n = -1; *s; s++)
        if (starts_char((unsigned char)*s) && ++n == at)
            return s;
    return s;
}

/* NAME shown, at most WIDTH characters; the number of characters written. */
static int cut(FILE *out, const char *name, int width)
{
    char buf[1024];
    const char *s = shown(name, buf, sizeof buf);
    int n = chars(s);
    if (n <= width) {
        fputs(s, out);
        return n;
    }
    int head = (width - 1) / 2, tail = width - 1 - head;  /* one column for the ellipsis */
    const char *at = char_at(s, head), *rest = char_at(s, n - tail);
    fprintf(out, "%.*s\xe2\x80\xa6%s", (int)(at - s), s, rest);
    return width;
}

void shown_cut(FILE *out, const char *name, int width) { cut(out, name, width); }

void shown_column(FILE *out, const char *name, int width)
{
    int n = cut(out, name, width);
    fprintf(out, "%*s", width - n, "");
}
