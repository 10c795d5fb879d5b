/*
 * shown.h - a trace's name or path as the driver shows it to people: control
 * characters escaped, so that a name holding a newline or an escape sequence
 * cannot split a table row or a one-line message (the JSON keeps the real name).
 */
#ifndef DRIVER_SHOWN_H
#define DRIVER_SHOWN_H

#include <stddef.h>
#include <stdio.h>

/* S with each control byte written as \n, \t, \r or \xNN, in buf (cut before a
 * character that does not fit); returns buf. */
const char *shown(const char *s, char *buf, size_t len);

/* NAME, shown, in a column WIDTH characters wide, padded or cut by characters
 * (UTF-8 aware); a longer name loses its middle to an ellipsis, so names that
 * differ near the end stay distinguishable. */
void shown_column(FILE *out, const char *name, int width);

/* NAME, shown, in at most WIDTH characters, cut as in a column but not padded. */
void shown_cut(FILE *out, const char *name, int width);

#endif
