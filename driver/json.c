/* json.c - the streaming JSON writer (see json.h). */
#include "driver/json.h"

#include <math.h>
#include <string.h>


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
