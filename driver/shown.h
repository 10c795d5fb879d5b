/*
 * shown.h - a trace's name or path as the driver shows it to people: control
 * characters escaped, so that a name holding a newline or an escape sequence
 * cannot split a table row or a one-line message (the JSON keeps the real name).
 */
#ifndef DRIVER_SHOWN_H
#define DRIVER_SHOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether the LEFT bytes at p begin with a C1 control as UTF-8 text (U+0080 to U+009F: 0xC2, then
 * 0x80 to 0x9F): a terminal may take U+009B as ESC [ (CSI) and U+009D as ESC ] (OSC), and be
 * redrawn by them as by the C0 controls. */
static inline bool shown_is_c1(const char *p, size_t left)
{
    return left >= 2 && (unsigned char)p[0] == 0xC2 && (unsigned char)p[1] >= 0x80 && (unsigned char)p[1] <= 0x9F;
}

/* S with each control byte written as \n, \t, \r or \xNN, and each C1 control as \u00NN, in
 * buf (cut before a character that does not fit); returns buf. */
const char *shown(const char *s, char *buf, size_t len);

/* NAME, shown, in a column WIDTH characters wide, padded or cut by characters
 * (UTF-8 aware); a longer name loses its middle to an ellipsis, so names that
 * differ near the end stay distinguishable. */
void shown_column(FILE *out, const char *name, int width);

/* NAME, shown, in at most WIDTH characters, cut as in a column but not padded. */
void shown_cut(FILE *out, const char *name, int width);

#endif
