/*
 * json.h - a small streaming JSON writer (the documents: result.h, describe.h).
 *
 * The writer tracks only whether a comma is due at each depth; values are
 * escaped so that nothing an allocator printed can break the document.
 */
#ifndef DRIVER_JSON_H
#define DRIVER_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    FILE *out;
    int depth;
    bool need_comma[64];
} json_t;

void json_open(json_t *j, const char *key, char bracket);
void json_close(json_t *j, char bracket);
void json_string(json_t *j, const char *key, const char *value);
void json_string_n(json_t *j, const char *key, const char *value, size_t len);
void json_number(json_t *j, const char *key, double value);
void json_integer(json_t *j, const char *key, long long value);
void json_bool(json_t *j, const char *key, bool value);
void json_null(json_t *j, const char *key);

#endif
