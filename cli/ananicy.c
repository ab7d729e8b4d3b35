/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ananicy import: rule set -> latnice policy.
 *
 * Everything is read first (so that rules can refer to types defined in
 * any file, and a type defined twice resolves to its last definition, as in
 * ananicy-cpp), then written: cgroups (as comments), profiles, rules, and the
 * lines that could not be read.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "cli/ananicy.h"
#include "lib/hashmap.h"
#include "lib/macro.h"

/* Bounds on what one import reads: files, and objects in total. */
#define ANANICY_FILES_MAX 100000
#define ANANICY_OBJECTS_MAX 1000000
/* Longest name accepted: longer ones could never match a process name. */
#define ANANICY_NAME_MAX 1024
/* Quoted values in comments are cut to this many bytes. */
#define COMMENT_VALUE_MAX 120

typedef enum FileKind {
        KIND_RULES,
        KIND_TYPES,
        KIND_CGROUPS,
} FileKind;

typedef struct Entry {
        const char *file; /* relative path, owned by the Converter */
        unsigned line;
        AnanicyObject obj;
        bool superseded; /* a later type or rule of the same name wins */
} Entry;

typedef struct Malformed {
        const char *file;
        unsigned line, column;
        char *reason;
} Malformed;

/* A line with text after its object, ignored as ananicy-cpp does. */
typedef struct Trailing {
        const char *file;
        unsigned line, column;
} Trailing;

typedef struct EntryList {
        Entry *items;
        size_t n;
} EntryList;

typedef struct Converter {
        char **files; /* relative paths, sorted */
        size_t n_files;
        EntryList rules, types, cgroups;
        Malformed *malformed;
        size_t n_malformed;
        Trailing *trailing;
        size_t n_trailing;
        size_t n_objects;
        Hashmap *type_index;  /* type name -> Entry* of the last definition */
        Hashmap *rule_index;  /* rule name -> Entry* of the last rule of that name */
        Hashmap *profile_of;  /* type name -> profile section name (char*, owned) */
        Hashmap *used_names;  /* section names already written ("Rule x", "Profile y") */
        AnanicyStats stats;
} Converter;

static const char *const drop_names[_DROP_MAX] = {
        [DROP_RTPRIO] = "rtprio",
        [DROP_SCHED_RT] = "sched-realtime",
        [DROP_CGROUP] = "cgroup",
        [DROP_INVALID] = "invalid-value",
        [DROP_UNKNOWN_KEY] = "unknown-key",
        [DROP_UNDEFINED_TYPE] = "undefined-type",
};

const char *ananicy_drop_to_string(AnanicyDrop d)
{
        if (d < 0 || d >= _DROP_MAX)
                return NULL;
        return drop_names[d];
}

static void entry_list_done(EntryList *l)
{
        for (size_t i = 0; i < l->n; i++)
                ananicy_object_done(&l->items[i].obj);
        free(l->items);
}

static void converter_done(Converter *c)
{
        entry_list_done(&c->rules);
        entry_list_done(&c->types);
        entry_list_done(&c->cgroups);
        for (size_t i = 0; i < c->n_malformed; i++)
                free(c->malformed[i].reason);
        free(c->malformed);
        free(c->trailing);
        if (c->profile_of) {
                size_t state = 0;
                void *v;
                while (hashmap_iterate(c->profile_of, &state, NULL, &v))
                        free(v);
        }
        hashmap_free(c->profile_of);
        hashmap_free(c->type_index);
        hashmap_free(c->rule_index);
        hashmap_free(c->used_names);
        for (size_t i = 0; i < c->n_files; i++)
                free(c->files[i]);
        free(c->files);
}

/* ---- Reading the directory tree ------------------------------------------ */

static bool has_suffix(const char *s, const char *suffix)
{
        size_t a = strlen(s), b = strlen(suffix);
        return a > b && streq(s + a - b, suffix);
}

static int kind_of(const char *path, FileKind *ret)
{
        if (has_suffix(path, ".rules"))
                *ret = KIND_RULES;
        else if (has_suffix(path, ".types"))
                *ret = KIND_TYPES;
        else if (has_suffix(path, ".cgroups"))
                *ret = KIND_CGROUPS;
        else
                return -EINVAL;
        return 0;
}

static int add_file(Converter *c, const char *rel)
{
        char **a;

        if (c->n_files >= ANANICY_FILES_MAX)
                return -E2BIG;
        a = reallocarray(c->files, c->n_files + 1, sizeof(char *));
        if (!a)
                return -ENOMEM;
        c->files = a;
        c->files[c->n_files] = strdup(rel);
        if (!c->files[c->n_files])
                return -ENOMEM;
        c->n_files++;
        return 0;
}

/* Collect the paths (relative to the top) of the files to read below DFD. */
static int scan_dir(Converter *c, int dfd, const char *prefix, unsigned depth, char **ret_error_path)
{
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int r;

        d = fdopendir(dfd);
        if (!d) {
                r = -errno;
                safe_close(dfd);
                return r;
        }
        for (;;) {
                _cleanup_free_ char *rel = NULL;
                struct stat st;
                FileKind kind;

                errno = 0;
                de = readdir(d);
                if (!de) {
                        if (errno != 0)
                                return -errno;
                        break;
                }
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (asprintf(&rel, "%s%s%s", prefix, *prefix ? "/" : "", de->d_name) < 0) {
                        rel = NULL;
                        return -ENOMEM;
                }
                /* Directories are followed only when they are real directories (no
                 * symlink loops); files may be symlinks. */
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue; /* vanished */
                if (S_ISDIR(st.st_mode)) {
                        int sub;

                        if (de->d_name[0] == '.')
                                continue; /* .git, .github */
                        if (depth >= ANANICY_DEPTH_MAX)
                                continue;
                        sub = openat(dirfd(d), de->d_name,
                                     O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                        if (sub < 0) {
                                r = -errno;
                                if (ret_error_path)
                                        *ret_error_path = TAKE_PTR(rel);
                                return r;
                        }
                        r = scan_dir(c, sub, rel, depth + 1, ret_error_path);
                        if (r < 0) {
                                if (ret_error_path && !*ret_error_path)
                                        *ret_error_path = TAKE_PTR(rel);
                                return r;
                        }
                        continue;
                }
                if (kind_of(de->d_name, &kind) < 0)
                        continue;
                if (S_ISLNK(st.st_mode) && fstatat(dirfd(d), de->d_name, &st, 0) < 0)
                        continue; /* dangling */
                if (!S_ISREG(st.st_mode))
                        continue;
                r = add_file(c, rel);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int cmp_paths(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- Reading lines and objects ------------------------------------------- */

/* Reads one line (without the newline) into *buf, keeping at most
 * ANANICY_LINE_MAX bytes; the rest of a longer line is consumed and
 * *ret_too_long set. Returns 1 for a line, 0 at the end, -errno. */
static int read_line(FILE *f, char **buf, size_t *size, size_t *ret_len, bool *ret_too_long)
{
        size_t len = 0;
        bool too_long = false, any = false;
        int ch;

        if (!*buf) {
                *size = 256;
                *buf = malloc(*size);
                if (!*buf)
                        return -ENOMEM;
        }
        while ((ch = getc_unlocked(f)) != EOF) {
                any = true;
                if (ch == '\n')
                        break;
                if (len >= ANANICY_LINE_MAX) {
                        too_long = true;
                        continue;
                }
                if (len + 1 >= *size) {
                        size_t ns = MIN(*size * 2, (size_t)ANANICY_LINE_MAX + 1);
                        char *n = realloc(*buf, ns);
                        if (!n)
                                return -ENOMEM;
                        *buf = n;
                        *size = ns;
                }
                (*buf)[len++] = (char)ch;
        }
        if (ferror(f))
                return -EIO;
        if (!any)
                return 0;
        (*buf)[len] = '\0';
        *ret_len = len;
        *ret_too_long = too_long;
        return 1;
}

static int add_malformed(Converter *c, const char *file, unsigned line, unsigned column,
                         const char *fmt, ...) _printf_(5, 6);
static int add_malformed(Converter *c, const char *file, unsigned line, unsigned column,
                         const char *fmt, ...)
{
        Malformed *a;
        va_list ap;
        char *reason;
        int k;

        va_start(ap, fmt);
        k = vasprintf(&reason, fmt, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        a = reallocarray(c->malformed, c->n_malformed + 1, sizeof(Malformed));
        if (!a) {
                free(reason);
                return -ENOMEM;
        }
        c->malformed = a;
        c->malformed[c->n_malformed++] =
                (Malformed){ .file = file, .line = line, .column = column, .reason = reason };
        return 0;
}

static int add_trailing(Converter *c, const char *file, unsigned line, unsigned column)
{
        Trailing *a = reallocarray(c->trailing, c->n_trailing + 1, sizeof(Trailing));

        if (!a)
                return -ENOMEM;
        c->trailing = a;
        c->trailing[c->n_trailing++] = (Trailing){ .file = file, .line = line, .column = column };
        return 0;
}

static int add_entry(EntryList *l, const char *file, unsigned line, AnanicyObject *obj)
{
        Entry *a = reallocarray(l->items, l->n + 1, sizeof(Entry));

        if (!a)
                return -ENOMEM;
        l->items = a;
        l->items[l->n++] = (Entry){ .file = file, .line = line, .obj = *obj };
        *obj = (AnanicyObject){};
        return 0;
}

static bool has_control(const char *s)
{
        for (; *s; s++)
                if ((unsigned char)*s < 0x20 || *s == 0x7f)
                        return true;
        return false;
}

/* The key that names an object in a file of this kind, and its check. */
static const char *naming_key(FileKind kind)
{
        switch (kind) {
        case KIND_RULES:
                return "name";
        case KIND_TYPES:
                return "type";
        case KIND_CGROUPS:
                return "cgroup";
        }
        return NULL;
}

/* Reads the objects of one file, named REL (owned by the Converter), from F. */
static int read_stream(Converter *c, FILE *f, const char *rel, FileKind kind)
{
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, len;
        unsigned line = 0;
        bool too_long;
        int r;

        c->stats.files++;

        while ((r = read_line(f, &buf, &size, &len, &too_long)) > 0) {
                _cleanup_free_ char *error = NULL;
                AnanicyObject obj = {};
                const AnanicyField *id;
                const char *key = naming_key(kind);
                unsigned column = 0;

                line++;
                if (too_long) {
                        r = add_malformed(c, rel, line, 0,
                                          "line longer than %u bytes", ANANICY_LINE_MAX);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (ananicy_line_is_blank(buf, len))
                        continue;
                r = ananicy_parse_line(buf, len, &obj, &error, &column);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        r = add_malformed(c, rel, line, column, "%s", error);
                        if (r < 0)
                                return r;
                        continue;
                }

                id = ananicy_object_get(&obj, key);
                if (!id || id->type != ANANICY_STRING || id->string[0] == '\0' ||
                    has_control(id->string) || strlen(id->string) > ANANICY_NAME_MAX) {
                        const char *why = !id                            ? "missing"
                                          : id->type != ANANICY_STRING  ? "not a string"
                                          : id->string[0] == '\0'       ? "empty"
                                          : has_control(id->string)     ? "with a control character"
                                                                        : "too long";
                        r = add_malformed(c, rel, line, id ? id->value_column : 0,
                                          "expected a non-empty string \"%s\" (at most %u "
                                          "bytes) in a .%s file, found it %s",
                                          key, ANANICY_NAME_MAX,
                                          kind == KIND_RULES   ? "rules"
                                          : kind == KIND_TYPES ? "types"
                                                               : "cgroups",
                                          why);
                        ananicy_object_done(&obj);
                        if (r < 0)
                                return r;
                        continue;
                }

                if (obj.trailing_column > 0) {
                        r = add_trailing(c, rel, line, obj.trailing_column);
                        if (r < 0) {
                                ananicy_object_done(&obj);
                                return r;
                        }
                }
                if (c->n_objects >= ANANICY_OBJECTS_MAX) {
                        ananicy_object_done(&obj);
                        return -E2BIG;
                }
                c->n_objects++;
                r = add_entry(kind == KIND_RULES   ? &c->rules
                              : kind == KIND_TYPES ? &c->types
                                                   : &c->cgroups,
                              rel, line, &obj);
                if (r < 0) {
                        ananicy_object_done(&obj);
                        return r;
                }
        }
        return r;
}

static int read_file(Converter *c, int dirfd_top, const char *rel)
{
        _cleanup_fclose_ FILE *f = NULL;
        FileKind kind;
        int fd, r;

        r = kind_of(rel, &kind);
        if (r < 0)
                return r;
        fd = openat(dirfd_top, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        f = fdopen(fd, "re");
        if (!f) {
                r = -errno;
                safe_close(fd);
                return r;
        }
        return read_stream(c, f, rel, kind);
}

/* ---- Writing ------------------------------------------------------------- */

/* A section name: the ananicy name with blanks, brackets, quotes, backslashes
 * and control characters replaced by '-' (runs collapsed, none at the ends). */
static char *section_name(const char *name, const char *fallback)
{
        size_t n = strlen(name);
        char *out = malloc(n + 1), *p = out;

        if (!out)
                return NULL;
        for (const char *s = name; *s; s++) {
                unsigned char ch = (unsigned char)*s;
                bool bad = ch <= 0x20 || ch == 0x7f || ch == '[' || ch == ']' || ch == '"' ||
                           ch == '\\' || ch == '#' || ch == ';';
                if (bad) {
                        if (p > out && p[-1] != '-')
                                *p++ = '-';
                } else
                        *p++ = (char)ch;
        }
        while (p > out && p[-1] == '-')
                p--;
        *p = '\0';
        if (out[0] == '\0' || out[0] == '-') {
                char *t;
                if (asprintf(&t, "%s%s", fallback, out) < 0) {
                        free(out);
                        return NULL;
                }
                free(out);
                return t;
        }
        return out;
}

/* Make NAME unique among the section names of TYPE ("Rule", "Profile") by
 * appending -2, -3, ... Returns the name to use (owned), sets *ret_renamed.
 * used_names maps each name taken to the next suffix to try for it as a base,
 * so that N rules of the same name cost O(N), not O(N^2). */
static char *unique_name(Converter *c, const char *type, const char *base, bool *ret_renamed)
{
        _cleanup_free_ char *base_key = NULL, *candidate = NULL, *key = NULL;
        uintptr_t next;

        if (asprintf(&base_key, "%s %s", type, base) < 0)
                return NULL;
        next = (uintptr_t)hashmap_get(c->used_names, base_key);
        if (next == 0) {
                /* the name is free */
                if (hashmap_put(c->used_names, base_key, (void *)(uintptr_t)2) < 0)
                        return NULL;
                *ret_renamed = false;
                return strdup(base);
        }
        for (;; next++) {
                free(candidate);
                free(key);
                key = NULL;
                if (asprintf(&candidate, "%s-%" PRIuPTR, base, next) < 0) {
                        candidate = NULL;
                        return NULL;
                }
                if (asprintf(&key, "%s %s", type, candidate) < 0) {
                        key = NULL;
                        return NULL;
                }
                if (!hashmap_get(c->used_names, key))
                        break;
        }
        if (hashmap_put(c->used_names, key, (void *)(uintptr_t)2) < 0 ||
            hashmap_replace(c->used_names, base_key, (void *)(next + 1)) < 0)
                return NULL;
        *ret_renamed = true;
        return TAKE_PTR(candidate);
}

/* The predicate KEY:PATTERN matching exactly LITERAL (SUBSTRING: LITERAL
 * anywhere in it, "*LITERAL*"): glob characters are put in brackets, and
 * the pattern is quoted (with \" and \\) unless it is plain. */
static char *literal_predicate(const char *key, const char *literal, bool substring)
{
        _cleanup_free_ char *glob = NULL, *out = NULL;
        size_t n = strlen(literal);
        bool plain = true;
        char *p;

        glob = malloc(n * 3 + 3);
        if (!glob)
                return NULL;
        p = glob;
        if (substring)
                *p++ = '*';
        for (const char *s = literal; *s; s++) {
                if (*s == '*' || *s == '?' || *s == '[') {
                        *p++ = '[';
                        *p++ = *s;
                        *p++ = ']';
                } else if (*s == '\\') {
                        *p++ = '\\';
                        *p++ = '\\';
                } else
                        *p++ = *s;
        }
        if (substring)
                *p++ = '*';
        *p = '\0';

        for (const char *s = glob; *s; s++) {
                unsigned char ch = (unsigned char)*s;
                if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-' ||
                      ch == '+' || ch == '@' || ch == '/' || ch == ','))
                        plain = false;
        }
        if (plain)
                return asprintf(&out, "%s:%s", key, glob) < 0 ? NULL : TAKE_PTR(out);

        out = malloc(strlen(key) + strlen(glob) * 2 + sizeof(":\"\""));
        if (!out)
                return NULL;
        p = stpcpy(stpcpy(out, key), ":\"");
        for (const char *s = glob; *s; s++) {
                if (*s == '"' || *s == '\\')
                        *p++ = '\\';
                *p++ = *s;
        }
        *p++ = '"';
        *p = '\0';
        return TAKE_PTR(out);
}

/* The Match= of rule E named NAME: name:NAME, and with minq-ananicy's
 * "cmdlines" (an array of strings) each of them somewhere in the command
 * line. NULL on ENOMEM; *RET_BAD is set if "cmdlines" is not an array of
 * strings (then only the name is matched, and write_fields() says why). */
static char *rule_match(const Entry *e, const char *name, bool *ret_bad)
{
        const AnanicyField *cl = ananicy_object_get(&e->obj, "cmdlines");
        _cleanup_free_ char *m = literal_predicate("name", name, false);

        *ret_bad = cl && cl->type != ANANICY_STRING_ARRAY;
        if (!m || !cl || *ret_bad)
                return TAKE_PTR(m);
        for (size_t i = 0; i < cl->n_strings; i++) {
                _cleanup_free_ char *pred = literal_predicate("cmdline", cl->strings[i], true);
                char *t;

                if (!pred || asprintf(&t, "%s && %s", m, pred) < 0)
                        return NULL;
                free(m);
                m = t;
        }
        return TAKE_PTR(m);
}

/* Writes S to F for a comment: at most COMMENT_VALUE_MAX bytes (cut on a
 * character boundary, "…" added), control characters as '?'. */
static void put_comment_text(FILE *f, const char *s)
{
        size_t n = strlen(s), cut = n;

        if (n > COMMENT_VALUE_MAX) {
                cut = COMMENT_VALUE_MAX;
                while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
                        cut--;
        }
        for (size_t i = 0; i < cut; i++) {
                unsigned char ch = (unsigned char)s[i];
                fputc(ch < 0x20 || ch == 0x7f ? '?' : ch, f);
        }
        if (cut < n)
                fputs("\xe2\x80\xa6", f);
}

/* "# FILE:LINE" with the file name made safe for a comment line. */
static void put_location(FILE *f, const char *file, unsigned line)
{
        fputs("# ", f);
        put_comment_text(f, file);
        fprintf(f, ":%u", line);
}

static void drop(Converter *c, FILE *out, AnanicyDrop d, const AnanicyField *field,
                 const char *reason)
{
        c->stats.dropped[d]++;
        fputs("# not converted: ", out);
        put_comment_text(out, field->key);
        fputs(" = ", out);
        put_comment_text(out, field->text);
        fprintf(out, ": %s\n", reason);
}

static bool integer_in(const AnanicyField *f, int64_t lo, int64_t hi)
{
        return f->type == ANANICY_INTEGER && f->integer >= lo && f->integer <= hi;
}

/* ioclass, ionice and oom_score_adj of a type or rule (key of F). */
static void write_io_oom(Converter *c, FILE *out, const AnanicyField *f)
{
        if (streq(f->key, "ioclass")) {
                const char *s = f->type == ANANICY_STRING ? f->string : "";
                const char *cls = streq(s, "rt") || streq(s, "realtime")       ? "realtime"
                                  : streq(s, "be") || streq(s, "best-effort") ? "best-effort"
                                  : streq(s, "idle")                          ? "idle"
                                                                              : NULL;
                if (!cls) {
                        drop(c, out, DROP_INVALID, f, "expected rt, be or idle");
                        return;
                }
                fprintf(out, "IOClass = %s\n", cls);
        } else if (streq(f->key, "ionice")) {
                if (!integer_in(f, 0, 7)) {
                        drop(c, out, DROP_INVALID, f, "expected an integer in 0..7");
                        return;
                }
                fprintf(out, "IONice = %" PRIi64 "\n", f->integer);
        } else {
                if (!integer_in(f, -1000, 1000)) {
                        drop(c, out, DROP_INVALID, f, "expected an integer in -1000..1000");
                        return;
                }
                fprintf(out, "OOMScoreAdj = %" PRIi64 "\n", f->integer);
        }
        c->stats.settings++;
}

/* The settings of a type or rule, as policy lines or comments. NAMING is the
 * key that named the object (skipped). */
static void write_fields(Converter *c, FILE *out, const Entry *e, const char *naming, bool rule)
{
        for (size_t i = 0; i < e->obj.n; i++) {
                const AnanicyField *f = &e->obj.fields[i];
                const char *k = f->key;

                if (streq(k, naming))
                        continue;
                if (rule && streq(k, "type")) {
                        const char *profile = NULL;

                        if (f->type == ANANICY_STRING)
                                profile = hashmap_get(c->profile_of, f->string);
                        if (!profile) {
                                drop(c, out, DROP_UNDEFINED_TYPE, f,
                                     f->type == ANANICY_STRING
                                             ? "no .types file defines this type"
                                             : "expected the name of a type (a string)");
                                continue;
                        }
                        fprintf(out, "Profile = %s\n", profile);
                        c->stats.settings++;
                } else if (streq(k, "nice") || streq(k, "latency_nice")) {
                        if (!integer_in(f, -20, 19)) {
                                drop(c, out, DROP_INVALID, f, "expected an integer in -20..19");
                                continue;
                        }
                        fprintf(out, "%s = %" PRIi64 "\n",
                                streq(k, "nice") ? "Nice" : "LatencyNice", f->integer);
                        c->stats.settings++;
                } else if (streq(k, "sched")) {
                        const char *s = f->type == ANANICY_STRING ? f->string : "";
                        const char *policy = NULL;

                        if (streq(s, "normal") || streq(s, "other"))
                                policy = "other";
                        else if (streq(s, "batch"))
                                policy = "batch";
                        else if (streq(s, "idle"))
                                policy = "idle";
                        else if (streq(s, "rr") || streq(s, "fifo") || streq(s, "deadline") ||
                                 streq(s, "iso")) {
                                drop(c, out, DROP_SCHED_RT, f,
                                     "latnice never sets real-time policies");
                                continue;
                        } else {
                                drop(c, out, DROP_INVALID, f,
                                     "expected one of normal, other, batch, idle, rr, fifo, "
                                     "deadline or iso");
                                continue;
                        }
                        fprintf(out, "Policy = %s\n", policy);
                        c->stats.settings++;
                } else if (streq(k, "rtprio"))
                        drop(c, out, DROP_RTPRIO, f, "latnice never sets real-time priorities");
                else if (streq(k, "ioclass") || streq(k, "ionice") || streq(k, "oom_score_adj"))
                        write_io_oom(c, out, f);
                else if (streq(k, "cmdlines") && rule) {
                        if (f->type != ANANICY_STRING_ARRAY)
                                drop(c, out, DROP_INVALID, f,
                                     "expected an array of strings (the rule matches on its "
                                     "name only)");
                        /* else it is part of Match= */
                }
                else if (streq(k, "cgroup"))
                        drop(c, out, DROP_CGROUP, f,
                             "latnice does not move processes between cgroups (a [Unit] "
                             "section configures the cgroup of a systemd unit)");
                else
                        drop(c, out, DROP_UNKNOWN_KEY, f, "not a key of ananicy rules or types");
        }
}

static int write_cgroups(Converter *c, FILE *out)
{
        if (c->cgroups.n == 0)
                return 0;
        fputs("# ananicy cgroups are not converted: latnice does not create cgroups or move\n"
              "# processes into them, and sets no CPU quota. A [Unit] section sets CPUWeight=,\n"
              "# CPUIdle= and LatencyNice= on the cgroup of a systemd unit instead.\n", out);
        for (size_t i = 0; i < c->cgroups.n; i++) {
                const Entry *e = &c->cgroups.items[i];

                c->stats.cgroups++;
                put_location(out, e->file, e->line);
                fputs(": cgroup ", out);
                for (size_t j = 0; j < e->obj.n; j++) {
                        const AnanicyField *f = &e->obj.fields[j];
                        if (j > 0)
                                fputs(", ", out);
                        put_comment_text(out, f->key);
                        fputc('=', out);
                        put_comment_text(out, f->text);
                }
                fputc('\n', out);
        }
        fputc('\n', out);
        return 0;
}

static int index_types(Converter *c)
{
        /* The last definition of a type wins, as in ananicy-cpp. */
        for (size_t i = 0; i < c->types.n; i++) {
                Entry *e = &c->types.items[i];
                const char *name = ananicy_object_get(&e->obj, "type")->string;
                Entry *prev = hashmap_get(c->type_index, name);
                int r;

                if (prev) {
                        prev->superseded = true;
                        c->stats.types_duplicate++;
                }
                r = hashmap_replace(c->type_index, name, e);
                if (r < 0)
                        return r;
        }
        /* Profile names, in order of the definitions in use. */
        for (size_t i = 0; i < c->types.n; i++) {
                Entry *e = &c->types.items[i];
                const char *name = ananicy_object_get(&e->obj, "type")->string;
                _cleanup_free_ char *base = NULL;
                char *profile;
                bool renamed;

                if (e->superseded)
                        continue;
                base = section_name(name, "type");
                if (!base)
                        return -ENOMEM;
                profile = unique_name(c, "Profile", base, &renamed);
                if (!profile)
                        return -ENOMEM;
                if (hashmap_put(c->profile_of, name, profile) < 0) {
                        free(profile);
                        return -ENOMEM;
                }
        }
        return 0;
}

static int write_profiles(Converter *c, FILE *out)
{
        for (size_t i = 0; i < c->types.n; i++) {
                const Entry *e = &c->types.items[i];
                const char *name = ananicy_object_get(&e->obj, "type")->string;
                const char *profile;

                if (e->superseded) {
                        const Entry *last = hashmap_get(c->type_index, name);
                        put_location(out, e->file, e->line);
                        fputs(": type \"", out);
                        put_comment_text(out, name);
                        fputs("\" is defined again at ", out);
                        put_comment_text(out, last->file);
                        fprintf(out, ":%u, which is used\n\n", last->line);
                        continue;
                }
                profile = hashmap_get(c->profile_of, name);
                c->stats.types++;
                fprintf(out, "[Profile %s]\n", profile);
                put_location(out, e->file, e->line);
                fputs(": type \"", out);
                put_comment_text(out, name);
                fputs("\"\n", out);
                write_fields(c, out, e, "type", false);
                fputc('\n', out);
        }
        return 0;
}

/* The last rule of a name wins, as in ananicy-cpp (it keeps rules in a map
 * by name): the earlier ones are superseded. */
static int index_rules(Converter *c)
{
        for (size_t i = 0; i < c->rules.n; i++) {
                Entry *e = &c->rules.items[i];
                const char *name = ananicy_object_get(&e->obj, "name")->string;
                Entry *prev = hashmap_get(c->rule_index, name);
                int r;

                if (prev) {
                        prev->superseded = true;
                        c->stats.rules_duplicate++;
                }
                r = hashmap_replace(c->rule_index, name, e);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int write_rule(Converter *c, FILE *out, const Entry *e, const char *name)
{
        _cleanup_free_ char *base = NULL, *rule = NULL, *match = NULL;
        bool renamed, bad;

        base = section_name(name, "rule");
        if (!base)
                return -ENOMEM;
        rule = unique_name(c, "Rule", base, &renamed);
        match = rule_match(e, name, &bad);
        if (!rule || !match)
                return -ENOMEM;
        c->stats.rules++;
        if (renamed)
                c->stats.rules_renamed++;
        fprintf(out, "[Rule %s]\n", rule);
        put_location(out, e->file, e->line);
        if (renamed) {
                fputs(" (the name \"", out);
                put_comment_text(out, base);
                fputs("\" is taken: renamed)", out);
        }
        fprintf(out, "\nMatch = %s\n", match);
        write_fields(c, out, e, "name", true);
        fputc('\n', out);
        return 0;
}

static int write_rules(Converter *c, FILE *out)
{
        int r;

        r = index_rules(c);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c->rules.n; i++) {
                const Entry *e = &c->rules.items[i];
                const char *name = ananicy_object_get(&e->obj, "name")->string;

                if (e->superseded) {
                        const Entry *last = hashmap_get(c->rule_index, name);

                        put_location(out, e->file, e->line);
                        fputs(": rule \"", out);
                        put_comment_text(out, name);
                        fputs("\" is defined again at ", out);
                        put_comment_text(out, last->file);
                        fprintf(out, ":%u, which is used (ananicy-cpp keeps the last rule of a "
                                     "name)\n\n",
                                last->line);
                        continue;
                }
                r = write_rule(c, out, e, name);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Lines whose text after the object was ignored. */
static void write_trailing(Converter *c, FILE *out)
{
        if (c->n_trailing == 0)
                return;
        fprintf(out, "# %zu line%s had text after the object, ignored as ananicy-cpp does:\n",
                c->n_trailing, c->n_trailing == 1 ? "" : "s");
        for (size_t i = 0; i < c->n_trailing; i++) {
                put_location(out, c->trailing[i].file, c->trailing[i].line);
                fprintf(out, ":%u: text after '}' ignored\n", c->trailing[i].column);
        }
        fputc('\n', out);
        c->stats.trailing = c->n_trailing;
}

static void write_malformed(Converter *c, FILE *out)
{
        if (c->n_malformed == 0)
                return;
        fprintf(out, "# %zu line%s could not be converted:\n", c->n_malformed,
                c->n_malformed == 1 ? "" : "s");
        for (size_t i = 0; i < c->n_malformed; i++) {
                const Malformed *m = &c->malformed[i];
                put_location(out, m->file, m->line);
                fputc(':', out);
                if (m->column > 0)
                        fprintf(out, "%u:", m->column);
                fputs(" malformed: ", out);
                put_comment_text(out, m->reason);
                fputc('\n', out);
        }
        c->stats.malformed = c->n_malformed;
}

/* Everything is read: write the policy for the rule set called LABEL. */
static int convert_write(Converter *c, const char *label, FILE *out, AnanicyStats *ret_stats)
{
        int r;

        if (c->rules.n + c->types.n == 0) {
                /* nothing to convert: no output (an empty policy would not pass check) */
                if (ret_stats) {
                        c->stats.malformed = c->n_malformed;
                        *ret_stats = c->stats;
                }
                return -ENOMSG;
        }

        r = index_types(c);
        if (r < 0)
                return r;

        fprintf(out, "# latnice policy converted from the ananicy rules in ");
        put_comment_text(out, label);
        fprintf(out, "\n# by latnicectl import-ananicy. Settings latnice cannot express are\n"
                     "# kept as comments that say why.\n\n");
        r = write_cgroups(c, out);
        if (r >= 0)
                r = write_profiles(c, out);
        if (r >= 0)
                r = write_rules(c, out);
        if (r < 0)
                return r;
        write_trailing(c, out);
        write_malformed(c, out);

        if (ret_stats)
                *ret_stats = c->stats;
        return 0;
}

int ananicy_convert(const char *dir, FILE *out, AnanicyStats *ret_stats, char **ret_error_path)
{
        _cleanup_close_ int top = -EBADF;
        Converter c = {};
        int dfd, r;

        if (ret_error_path)
                *ret_error_path = NULL;

        top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (top < 0) {
                r = -errno;
                if (ret_error_path)
                        *ret_error_path = strdup(dir);
                return r;
        }
        dfd = fcntl(top, F_DUPFD_CLOEXEC, 3);
        if (dfd < 0)
                return -errno;

        if (hashmap_new(&c.type_index) < 0 || hashmap_new(&c.profile_of) < 0 ||
            hashmap_new(&c.used_names) < 0 || hashmap_new(&c.rule_index) < 0) {
                r = -ENOMEM;
                goto finish;
        }

        r = scan_dir(&c, dfd, "", 0, ret_error_path);
        if (r < 0) {
                if (ret_error_path && *ret_error_path) {
                        char *full;
                        if (asprintf(&full, "%s/%s", dir, *ret_error_path) < 0)
                                full = NULL;
                        free(*ret_error_path);
                        *ret_error_path = full;
                }
                goto finish;
        }
        if (c.n_files > 0)
                qsort(c.files, c.n_files, sizeof(char *), cmp_paths);

        for (size_t i = 0; i < c.n_files; i++) {
                r = read_file(&c, top, c.files[i]);
                if (r < 0) {
                        if (ret_error_path && asprintf(ret_error_path, "%s/%s", dir,
                                                       c.files[i]) < 0)
                                *ret_error_path = NULL;
                        goto finish;
                }
        }

        r = convert_write(&c, dir, out, ret_stats);
finish:
        converter_done(&c);
        return r;
}

int ananicy_convert_buffers(const AnanicyBuffer *files, size_t n, const char *label, FILE *out,
                            AnanicyStats *ret_stats)
{
        Converter c = {};
        int r;

        if ((!files && n > 0) || !label || !out)
                return -EINVAL;

        if (hashmap_new(&c.type_index) < 0 || hashmap_new(&c.profile_of) < 0 ||
            hashmap_new(&c.used_names) < 0 || hashmap_new(&c.rule_index) < 0) {
                r = -ENOMEM;
                goto finish;
        }

        for (size_t i = 0; i < n; i++) {
                _cleanup_fclose_ FILE *f = NULL;
                FileKind kind;

                if (!files[i].name || (!files[i].data && files[i].size > 0)) {
                        r = -EINVAL;
                        goto finish;
                }
                if (kind_of(files[i].name, &kind) < 0)
                        continue;
                r = add_file(&c, files[i].name);
                if (r < 0)
                        goto finish;
                if (files[i].size == 0) {
                        c.stats.files++;
                        continue;
                }
                f = fmemopen((void *)files[i].data, files[i].size, "r");
                if (!f) {
                        r = -errno;
                        goto finish;
                }
                r = read_stream(&c, f, c.files[c.n_files - 1], kind);
                if (r < 0)
                        goto finish;
        }

        r = convert_write(&c, label, out, ret_stats);
finish:
        converter_done(&c);
        return r;
}
