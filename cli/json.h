/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON writer: streams one JSON document to a FILE, pretty-printed with
 * two-space indentation, or compact on one line (json_set_default_pretty()
 * for every writer of the process, json_writer_set_pretty() for one).
 * Strings are escaped as RFC 8259 requires; bytes
 * that are not valid UTF-8 (a process may name itself anything) become
 * U+FFFD, so the output is always valid JSON.
 *
 *         JsonWriter w;
 *         json_writer_init(&w, stdout);
 *         json_begin_object(&w);
 *         json_key(&w, "errors");
 *         json_int(&w, 0);
 *         json_end_object(&w);
 *         r = json_writer_finish(&w); // newline, flush, -EIO on a write error
 *
 * Misuse (a value where a key is due, unbalanced ends, too deep nesting) is a
 * programming error: it is recorded and json_writer_finish() returns -EINVAL.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

typedef struct JsonWriter {
        FILE *f;
        unsigned depth;
        bool pretty;
        bool misuse;
        bool key_pending;                 /* a key was written, its value is due */
        bool first[JSON_MAX_DEPTH];       /* nothing written yet at this level */
        bool is_object[JSON_MAX_DEPTH];
        bool done;                        /* the top-level value is complete */
} JsonWriter;

/* The format json_writer_init() starts with (default: pretty). */
void json_set_default_pretty(bool pretty);
void json_writer_init(JsonWriter *w, FILE *f);
/* Compact output on one line (default: pretty). */
void json_writer_set_pretty(JsonWriter *w, bool pretty);
/* Ends the document with a newline and flushes. 0, -EINVAL on misuse, -EIO. */
int json_writer_finish(JsonWriter *w);

void json_begin_object(JsonWriter *w);
void json_end_object(JsonWriter *w);
void json_begin_array(JsonWriter *w);
void json_end_array(JsonWriter *w);
void json_key(JsonWriter *w, const char *key);

void json_string(JsonWriter *w, const char *s); /* NULL writes null */
void json_string_len(JsonWriter *w, const char *s, size_t n);
void json_int(JsonWriter *w, int64_t v);
void json_uint(JsonWriter *w, uint64_t v);
void json_double(JsonWriter *w, double v); /* non-finite values write null */
void json_bool(JsonWriter *w, bool v);
void json_null(JsonWriter *w);

/* Shorthands for "key": value inside an object. */
void json_kv_string(JsonWriter *w, const char *key, const char *s);
void json_kv_int(JsonWriter *w, const char *key, int64_t v);
void json_kv_uint(JsonWriter *w, const char *key, uint64_t v);
void json_kv_bool(JsonWriter *w, const char *key, bool v);

/* Write S as a JSON string literal (with the quotes) to F. */
void json_fputs_escaped(FILE *f, const char *s, size_t n);
