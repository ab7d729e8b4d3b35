/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy import: reads ananicy / ananicy-cpp rule sets (*.rules, *.types,
 * *.cgroups: one JSON object per line, '#' comments) and writes an
 * equivalent latnice policy, with a comment for everything latnice cannot
 * express and why.
 *
 * The JSON reader is deliberately small and strict: one object of scalar
 * values (strings, numbers, true, false, null) per line, RFC 8259 syntax,
 * valid UTF-8, no duplicate keys, bounded line length and field count.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest line read, in bytes; longer lines are reported as malformed. */
#define ANANICY_LINE_MAX 4096
/* Most keys in one object. */
#define ANANICY_FIELDS_MAX 32
/* Deepest directory nesting followed under the import directory. */
#define ANANICY_DEPTH_MAX 16
/* Most strings in one array ("cmdlines": [...]). */
#define ANANICY_ARRAY_MAX 64

typedef enum AnanicyValueType {
        ANANICY_STRING,
        ANANICY_INTEGER, /* a JSON number without fraction or exponent that fits int64 */
        ANANICY_NUMBER,  /* any other JSON number */
        ANANICY_BOOL,
        ANANICY_NULL,
        ANANICY_STRING_ARRAY, /* an array of strings (minq-ananicy's "cmdlines"), maybe empty */
} AnanicyValueType;

typedef struct AnanicyField {
        char *key;             /* unescaped, valid UTF-8, no NUL */
        AnanicyValueType type;
        char *string;          /* ANANICY_STRING: unescaped */
        int64_t integer;       /* ANANICY_INTEGER */
        double number;         /* ANANICY_INTEGER and ANANICY_NUMBER */
        bool boolean;          /* ANANICY_BOOL */
        char **strings;        /* ANANICY_STRING_ARRAY: N_STRINGS unescaped strings */
        size_t n_strings;
        unsigned column;       /* 1-based column of the key */
        unsigned value_column; /* 1-based column of the value */
        char *text;            /* the value as written in the source */
} AnanicyField;

typedef struct AnanicyObject {
        AnanicyField *fields;
        size_t n;
        unsigned trailing_column; /* 1-based column of text after the object that was
                                   * ignored (not a '#' comment), 0: none */
} AnanicyObject;

void ananicy_object_done(AnanicyObject *o);
const AnanicyField *ananicy_object_get(const AnanicyObject *o, const char *key);

/*
 * Is LINE (LEN bytes, no newline) blank or a '#' comment?
 */
bool ananicy_line_is_blank(const char *line, size_t len);

/*
 * Parse one line holding a JSON object (surrounding blanks and a trailing
 * '#' comment after the object are allowed). Values are scalars or arrays of
 * strings. Other text after the object's '}' is ignored, as ananicy-cpp
 * does, and its column is in ret->trailing_column. Returns 0, -EINVAL with a
 * message in *ret_error ("expected ..., found ...") and the 1-based column in
 * *ret_column, or -ENOMEM. *ret is untouched on failure.
 */
int ananicy_parse_line(const char *line, size_t len, AnanicyObject *ret, char **ret_error,
                       unsigned *ret_column);

typedef enum AnanicyDrop {
        DROP_RTPRIO,        /* rtprio */
        DROP_SCHED_RT,      /* sched rr/fifo/deadline/iso */
        DROP_CGROUP,        /* cgroup (in a rule or a type) */
        DROP_INVALID,       /* a value of the wrong type or out of range */
        DROP_UNKNOWN_KEY,   /* a key ananicy does not define */
        DROP_UNDEFINED_TYPE,/* "type" names no type of any .types file */
        _DROP_MAX,
} AnanicyDrop;

/* "rtprio", "sched-realtime", "cgroup", ... (stable, used in JSON) */
const char *ananicy_drop_to_string(AnanicyDrop d);

typedef struct AnanicyStats {
        size_t files;          /* *.rules, *.types and *.cgroups files read */
        size_t rules;          /* rule objects read (every one becomes a [Rule]) */
        size_t rules_renamed;  /* rules whose section name had to be made unique */
        size_t rules_duplicate;/* rules replaced by a later one of the same name */
        size_t trailing;       /* lines with text after the object, ignored */
        size_t types;          /* type definitions that became a [Profile] */
        size_t types_duplicate;/* type definitions replaced by a later one */
        size_t cgroups;        /* cgroup definitions (comments only) */
        size_t settings;       /* settings written (Nice, LatencyNice, Policy, the I/O
                                * and OOM ones, Profile) */
        size_t dropped[_DROP_MAX];
        size_t malformed;      /* lines that are not a usable object */
} AnanicyStats;

/*
 * Convert the rule set below DIR (recursively) into a policy written to OUT.
 * Files are read in sorted path order. Returns 0 (malformed lines are
 * counted, not fatal), -ENOMSG if DIR holds no rule and no type (nothing is
 * written then; *ret_stats is still filled), or a negative errno if DIR cannot
 * be read (-ENOENT, -ENOTDIR, -EACCES, ...) or on out of memory; in that case
 * *ret_error_path (if not NULL) gets the path that failed.
 */
int ananicy_convert(const char *dir, FILE *out, AnanicyStats *ret_stats, char **ret_error_path);

/* One file of a rule set in memory. */
typedef struct AnanicyBuffer {
        const char *name; /* path as it would be below the directory; its suffix
                           * (.rules, .types, .cgroups) says what it holds */
        const void *data; /* the file's content, SIZE bytes (need not end in NUL) */
        size_t size;
} AnanicyBuffer;

/*
 * ananicy_convert() on N files in memory (for tests and fuzzing), read in the
 * order given; files of no known kind are skipped. LABEL stands for the
 * directory in the header comment. Returns 0, -ENOMSG (no rule and no type;
 * nothing written, *ret_stats filled), -EINVAL, -E2BIG or -ENOMEM.
 */
int ananicy_convert_buffers(const AnanicyBuffer *files, size_t n, const char *label, FILE *out,
                            AnanicyStats *ret_stats);
