/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the ananicy line parser (strict JSON objects of scalars) and
 * the converter (on a rule set written here), whose output must load as a
 * latnice policy without errors.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "cli/ananicy.h"
#include "lib/macro.h"
#include "policy/policy.h"
#include "tests/unit/test-util.h"

/* ---- Parser -------------------------------------------------------------- */

static int parse(const char *line, AnanicyObject *o, char **error, unsigned *column)
{
        return ananicy_parse_line(line, strlen(line), o, error, column);
}

static void check_ok(const char *line, size_t n_fields)
{
        AnanicyObject o = {};
        _cleanup_free_ char *error = NULL;
        int r = parse(line, &o, &error, NULL);

        if (r != 0 || o.n != n_fields) {
                fprintf(stderr, "expected [%s] to parse with %zu fields: r=%d n=%zu %s\n", line,
                        n_fields, r, o.n, strna(error));
                test_failures++;
        }
        ananicy_object_done(&o);
}

/* Bad input: exact column and the start of the message. */
static void check_bad(const char *line, unsigned want_column, const char *want_message)
{
        AnanicyObject o = {};
        _cleanup_free_ char *error = NULL;
        unsigned column = 0;
        int r = parse(line, &o, &error, &column);

        if (r != -EINVAL || column != want_column || !error ||
            strncmp(error, want_message, strlen(want_message)) != 0) {
                fprintf(stderr, "bad input [%s]: r=%d column=%u (want %u) message=[%s] (want [%s...])\n",
                        line, r, column, want_column, strna(error), want_message);
                test_failures++;
        }
        check(o.n == 0 && o.fields == NULL); /* untouched */
}

static void test_values(void)
{
        AnanicyObject o = {};
        const AnanicyField *f;

        check(parse("  { \"name\": \"pipewire\", \"nice\": -5, \"f\": 1.5, \"e\": 2e3, "
                    "\"t\": true, \"n\": null, \"z\": -0, \"big\": 99999999999999999999 } # c",
                    &o, NULL, NULL) == 0);
        check(o.n == 8);
        f = ananicy_object_get(&o, "name");
        check(f && f->type == ANANICY_STRING && streq(f->string, "pipewire") && f->column == 5 &&
              f->value_column == 13 && streq(f->text, "\"pipewire\""));
        f = ananicy_object_get(&o, "nice");
        check(f && f->type == ANANICY_INTEGER && f->integer == -5 && streq(f->text, "-5"));
        f = ananicy_object_get(&o, "f");
        check(f && f->type == ANANICY_NUMBER && f->number == 1.5);
        f = ananicy_object_get(&o, "e");
        check(f && f->type == ANANICY_NUMBER && f->number == 2000);
        f = ananicy_object_get(&o, "t");
        check(f && f->type == ANANICY_BOOL && f->boolean);
        f = ananicy_object_get(&o, "n");
        check(f && f->type == ANANICY_NULL);
        f = ananicy_object_get(&o, "z");
        check(f && f->type == ANANICY_INTEGER && f->integer == 0);
        f = ananicy_object_get(&o, "big"); /* does not fit int64: a plain number */
        check(f && f->type == ANANICY_NUMBER && f->number > 9e19);
        check(ananicy_object_get(&o, "missing") == NULL);
        ananicy_object_done(&o);

        check_ok("{}", 0);
        check_ok("{\"a\":1}", 1);
        check_ok("{\"a\":\"\"}\r", 1);
        check_ok("\t{ \"a\" : 1 , \"b\" : \"x\" }\t", 2);
        check_ok("{\"a\":1}#comment right after", 1);
}

static void test_escapes(void)
{
        AnanicyObject o = {};
        const AnanicyField *f;

        check(parse("{\"k\\\"ey\": \"a\\\"b\\\\c\\/d\\n\\t\\r\\b\\f\"}", &o, NULL, NULL) == 0);
        f = o.n == 1 ? &o.fields[0] : NULL;
        check(f && streq(f->key, "k\"ey") && streq(f->string, "a\"b\\c/d\n\t\r\b\f"));
        ananicy_object_done(&o);

        /* \u escapes: BMP, surrogate pair, upper-case hex; raw UTF-8 kept as is */
        check(parse("{\"n\": \"caf\\u00e9 \\u6587 \\ud83d\\ude00 \\u00C9 \xe6\x96\x87\"}", &o,
                    NULL, NULL) == 0);
        f = o.n == 1 ? &o.fields[0] : NULL;
        check_streq(f ? f->string : NULL,
                  "caf\xc3\xa9 \xe6\x96\x87 \xf0\x9f\x98\x80 \xc3\x89 \xe6\x96\x87");
        ananicy_object_done(&o);
}

static void test_bad(void)
{
        check_bad("", 1, "expected '{' starting a JSON object, found end of line");
        check_bad("[1]", 1, "expected '{' starting a JSON object, found '['");
        check_bad("{", 2, "expected '\"' starting a key, found end of line");
        check_bad("{\"a\"}", 5, "expected ':' after the key, found '}'");
        check_bad("{\"a\":}", 6, "expected a string, number, true, false or null, found '}'");
        check_bad("{\"a\":1,}", 8, "expected '\"' starting a key, found '}'");
        check_bad("{\"a\":1 \"b\":2}", 8, "expected ',' or '}' after a value, found '\"'");
        check_bad("{a:1}", 2, "expected '\"' starting a key, found 'a'");
        check_bad("{'a':1}", 2, "expected '\"' starting a key, found '''");
        check_bad("{\"a\":{}}", 6, "expected a string, number, true, false, null or an array "
                                 "of strings (nested objects");
        check_bad("{\"a\":[1]}", 7, "expected a string in the array (arrays hold strings "
                                  "only), found '1'");
        check_bad("{\"a\":[\"x\",]}", 11, "expected a string in the array");
        check_bad("{\"a\":[\"x\" \"y\"]}", 11, "expected ',' or ']' after a string in the array");
        check_bad("{\"a\":[\"x\"}", 10, "expected ',' or ']' after a string in the array, "
                                      "found '}'");
        check_bad("{\"a\":[[\"x\"]]}", 7, "expected a string in the array");
        check_bad("{\"a\":\"x}", 9, "expected '\"' closing the string, found end of line");
        check_bad("{\"a\":\"x\ty\"}", 8, "expected a character or an escape sequence in a "
                                         "string, found control character 0x09");
        check_bad("{\"a\":\"\\x\"}", 8, "expected one of \" \\ / b f n r t u after '\\', found 'x'");
        check_bad("{\"a\":\"\\u12\"}", 7, "expected four hex digits after \\u");
        check_bad("{\"a\":\"\\u12g4\"}", 7, "expected four hex digits after \\u");
        check_bad("{\"a\":\"\\ud83d\"}", 7, "expected a low surrogate");
        check_bad("{\"a\":\"\\ud83d\\u0041\"}", 7, "expected a low surrogate");
        check_bad("{\"a\":\"\\ude00\"}", 7, "expected a high surrogate before a low surrogate");
        check_bad("{\"a\":\"\\u0000\"}", 7, "expected a character, found \\u0000");
        check_bad("{\"a\":\"\xff\"}", 7, "expected valid UTF-8 in a string, found byte 0xff");
        check_bad("{\"a\":\"\xc0\xaf\"}", 7, "expected valid UTF-8 in a string");
        check_bad("{\"a\":\"\xed\xa0\x80\"}", 7, "expected valid UTF-8 in a string");
        check_bad("{\"a\":\"\xe6\x96\"}", 7, "expected valid UTF-8 in a string");
        check_bad("{\"a\":01}", 7, "expected '.', 'e' or the end of the number after a leading 0");
        check_bad("{\"a\":-}", 7, "expected a digit, found '}'");
        check_bad("{\"a\":+1}", 6, "expected a string, number, true, false or null, found '+'");
        check_bad("{\"a\":1.}", 8, "expected a digit after '.', found '}'");
        check_bad("{\"a\":.5}", 6, "expected a string, number, true, false or null, found '.'");
        check_bad("{\"a\":1e}", 8, "expected a digit in the exponent, found '}'");
        check_bad("{\"a\":1e999}", 6, "expected a number in the range of a double");
        check_bad("{\"a\":tru}", 6, "expected a string, number, true, false or null, found 't'");
        check_bad("{\"a\":truex}", 6, "expected a string, number, true, false or null");
        check_bad("{\"a\":NaN}", 6, "expected a string, number, true, false or null, found 'N'");
        check_bad("{\"a\":1,\"a\":2}", 8, "expected each key once, found a duplicate key");
        check_bad("{\"a\":1\x01}", 7, "expected ',' or '}' after a value, found control character 0x01");
        check_bad("{\"a\":1\xc3\xa9}", 7, "expected ',' or '}' after a value, found '\xc3\xa9'");

        /* too many keys */
        {
                char line[2048];
                size_t p = 0;

                p += (size_t)snprintf(line + p, sizeof(line) - p, "{");
                for (int i = 0; i <= ANANICY_FIELDS_MAX; i++)
                        p += (size_t)snprintf(line + p, sizeof(line) - p, "%s\"k%d\":%d",
                                              i ? "," : "", i, i);
                snprintf(line + p, sizeof(line) - p, "}");
                check_bad(line, 2 + (unsigned)strlen("\"k0\":0,") * 10 +
                                        (unsigned)strlen("\"k10\":10,") * (ANANICY_FIELDS_MAX - 10),
                          "expected at most 32 keys in an object");
        }
}

/* minq-ananicy's arrays of strings; text after the object, which
 * ananicy-cpp ignores. */
static void test_arrays_trailing(void)
{
        AnanicyObject o = {};
        const AnanicyField *f;
        char line[1024];
        size_t p = 0;

        check(parse("{\"cmdlines\": [\"a b\", \"\\u00e9\"], \"e\": []}", &o, NULL, NULL) == 0);
        f = ananicy_object_get(&o, "cmdlines");
        check(f && f->type == ANANICY_STRING_ARRAY && f->n_strings == 2);
        if (f && f->n_strings == 2) {
                check_streq(f->strings[0], "a b");
                check_streq(f->strings[1], "\xc3\xa9");
        }
        f = ananicy_object_get(&o, "e");
        check(f && f->type == ANANICY_STRING_ARRAY && f->n_strings == 0);
        check(o.trailing_column == 0);
        ananicy_object_done(&o);

        check(parse("{\"a\":1}x", &o, NULL, NULL) == 0 && o.trailing_column == 8);
        ananicy_object_done(&o);
        check(parse("  {\"a\":1} } # y", &o, NULL, NULL) == 0 && o.trailing_column == 11);
        ananicy_object_done(&o);
        check(parse("{\"a\":1}  # only a comment", &o, NULL, NULL) == 0 && o.trailing_column == 0);
        ananicy_object_done(&o);

        /* at most ANANICY_ARRAY_MAX strings */
        p += (size_t)snprintf(line + p, sizeof(line) - p, "{\"a\":[");
        for (int i = 0; i <= ANANICY_ARRAY_MAX; i++)
                p += (size_t)snprintf(line + p, sizeof(line) - p, "%s\"s\"", i ? "," : "");
        snprintf(line + p, sizeof(line) - p, "]}");
        check_bad(line, 7 + 4 * ANANICY_ARRAY_MAX, "expected at most 64 strings in an array");
}

static void test_long_line(void)
{
        /* The parser itself takes any length (the reader bounds lines): a
         * 100 kB name parses, with the end found exactly. */
        size_t n = 100000;
        _cleanup_free_ char *line = malloc(n + 32);
        AnanicyObject o = {};

        check(line);
        if (!line)
                return;
        strcpy(line, "{\"name\":\"");
        memset(line + 9, 'a', n);
        strcpy(line + 9 + n, "\"}");
        check(parse(line, &o, NULL, NULL) == 0);
        check(o.n == 1 && strlen(o.fields[0].string) == n);
        ananicy_object_done(&o);

        line[9 + n] = '\0'; /* unterminated string */
        {
                _cleanup_free_ char *error = NULL;
                unsigned column = 0;
                check(parse(line, &o, &error, &column) == -EINVAL);
                check(column == n + 10);
        }
}

static void test_blank(void)
{
        check(ananicy_line_is_blank("", 0));
        check(ananicy_line_is_blank("   \t\r", 5));
        check(ananicy_line_is_blank("# {\"name\":\"x\"}", 15));
        check(ananicy_line_is_blank("   # x", 6));
        check(!ananicy_line_is_blank(" {", 2));
}

/* ---- Converter ----------------------------------------------------------- */

static void write_file(const char *dir, const char *name, const char *text)
{
        _cleanup_free_ char *p = NULL;
        _cleanup_fclose_ FILE *f = NULL;

        check(asprintf(&p, "%s/%s", dir, name) > 0);
        f = fopen(p, "we");
        check(f);
        if (f)
                fputs(text, f);
}

static size_t count(const char *hay, const char *needle)
{
        size_t n = 0;
        for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
                n++;
        return n;
}

/* The ananicy tree of test_convert(): types, cgroups, rules in a
 * subdirectory with a space and an ampersand, hostile names and a line
 * longer than the reader's bound. */
static void write_convert_tree(const char *dir, const char *sub)
{
        _cleanup_free_ char *longline = NULL;

        write_file(dir, "00-types.types",
                   "# types\n"
                   "{ \"type\": \"Game\", \"nice\": -5, \"ioclass\": \"best-effort\", \"sched\": \"normal\" }\n"
                   "{ \"type\": \"BG CPU\", \"nice\": 16, \"sched\": \"idle\", \"ionice\": 7 }\n"
                   "{ \"type\": \"RT\", \"sched\": \"rr\", \"rtprio\": 50 }\n"
                   "{ \"type\": \"OOM\", \"oom_score_adj\": 1000 }\n"
                   "{ \"type\": \"Game\", \"nice\": -4, \"latency_nice\": -7 }\n"
                   "{ \"name\": \"not-a-type\" }\n");
        write_file(dir, "00-cgroups.cgroups", "{ \"cgroup\": \"cpu90\", \"CPUQuota\": 90 }\n");
        write_file(dir, "ignored.txt", "{ \"name\": \"never read\" }\n");
        write_file(sub, "games.rules",
                   "{ \"name\": \"quake\", \"type\": \"Game\" }\n"
                   "\n"
                   "{ \"name\": \"Crab Game.x86_64\", \"type\": \"Game\" }\n"
                   "{ \"name\": \"Crab-Game.x86_64\", \"type\": \"Game\" }\n"
                   "{ \"name\": \"quake\", \"nice\": 3 }\n"
                   "{ \"name\": \"Sex [18+] \\\"Q\\\" a\\\\b *?.exe\", \"type\": \"Game\" }\n"
                   "{ \"name\": \"\xe6\x96\x87\xe5\xad\x97\", \"type\": \"Nope\", \"nice\": 40 }\n"
                   "{ \"name\": \"batchy\", \"sched\": \"batch\", \"cgroup\": \"cpu90\", \"foo\": 1 }\n"
                   "{ \"name\": \"x\", \"sched\": \"weird\", \"latency_nice\": \"-5\" }\n"
                   "{ \"name\": \"\", \"type\": \"Game\" }\n"
                   "{ \"name\": \"tab\\there\" }\n"
                   "{ \"type\": \"Game\" }\n"
                   "{ \"name\": \"broken\" +\n"
                   "{ \"name\": \"bg\", \"type\": \"BG CPU\" }\n"
                   "{ \"name\": \"java\", \"cmdlines\": [\"minecraft\", \"-Xmx*\"], \"ioclass\": \"rt\", "
                   "\"ionice\": 2 }\n"
                   "{ \"name\": \"trail\", \"nice\": 5 } extra text\n"
                   "{ \"name\": \"iobad\", \"ioclass\": \"foo\", \"ionice\": 9, \"oom_score_adj\": -1001 }\n"
                   "{ \"name\": \"cl\", \"cmdlines\": \"notarray\" }\n");
        /* a line longer than the reader's bound */
        longline = malloc(ANANICY_LINE_MAX + 64);
        check(longline);
        if (longline) {
                strcpy(longline, "{ \"name\": \"");
                memset(longline + 11, 'y', ANANICY_LINE_MAX);
                strcpy(longline + 11 + ANANICY_LINE_MAX, "\" }\n{ \"name\": \"after-long\" }\n");
                write_file(sub, "long.rules", longline);
        }
}

static void check_convert_stats(const AnanicyStats *s)
{
        check(s->files == 4);
        check(s->types == 4);           /* Game (last definition), BG CPU, RT, OOM */
        check(s->types_duplicate == 1);
        check(s->cgroups == 1);
        /* quake (the last of two), Crab x2, Sex, 文字, batchy, x, bg, java, trail, iobad, cl,
         * after-long */
        check(s->rules == 13);
        check(s->rules_duplicate == 1); /* quake: the last one wins, as in ananicy-cpp */
        check(s->rules_renamed == 1);   /* Crab-Game.x86_64 */
        check(s->trailing == 1);
        check(s->dropped[DROP_SCHED_RT] == 1);
        check(s->dropped[DROP_RTPRIO] == 1);
        check(s->dropped[DROP_CGROUP] == 1);
        check(s->dropped[DROP_UNDEFINED_TYPE] == 1);
        check(s->dropped[DROP_UNKNOWN_KEY] == 1);
        /* nice 40, sched weird, latency_nice "-5", ioclass foo, ionice 9, oom_score_adj -1001,
         * cmdlines "notarray" */
        check(s->dropped[DROP_INVALID] == 7);
        /* not-a-type (.types without "type"), empty name, tab in name, type in .rules,
         * broken, long line */
        check(s->malformed == 6);
}

static void check_convert_output(const char *out)
{
        check(count(out, "[Rule ") == 13);
        check(count(out, "[Profile ") == 4);
        check(strstr(out, "[Profile Game]\n# 00-types.types:6: type \"Game\"\nNice = -4\n"
                          "LatencyNice = -7\n"));
        check(strstr(out, "[Profile BG-CPU]\n"));
        check(strstr(out, "# 00-types.types:2: type \"Game\" is defined again at "
                          "00-types.types:6, which is used\n"));
        check(strstr(out, "# Games & Fun/games.rules:1: rule \"quake\" is defined again at "
                          "Games & Fun/games.rules:5, which is used (ananicy-cpp keeps the last "
                          "rule of a name)\n"));
        check(strstr(out, "[Rule quake]\n# Games & Fun/games.rules:5\nMatch = name:quake\n"
                          "Nice = 3\n"));
        check(!strstr(out, "[Rule quake-2]\n"));
        check(strstr(out, "[Profile BG-CPU]\n# 00-types.types:3: type \"BG CPU\"\nNice = 16\n"
                          "Policy = idle\nIONice = 7\n"));
        check(strstr(out, "[Profile OOM]\n# 00-types.types:5: type \"OOM\"\nOOMScoreAdj = 1000\n"));
        check(strstr(out, "[Rule java]\n# Games & Fun/games.rules:15\n"
                          "Match = name:java && cmdline:\"*minecraft*\" && cmdline:\"*-Xmx[*]*\"\n"
                          "IOClass = realtime\nIONice = 2\n"));
        check(strstr(out, "# not converted: ioclass = \"foo\": expected rt, be or idle\n"));
        check(strstr(out, "# not converted: ionice = 9: expected an integer in 0..7\n"));
        check(strstr(out, "# not converted: oom_score_adj = -1001: expected an integer in "
                          "-1000..1000\n"));
        check(strstr(out, "[Rule cl]\n# Games & Fun/games.rules:18\nMatch = name:cl\n"
                          "# not converted: cmdlines = \"notarray\": expected an array of strings"));
        check(strstr(out, "[Rule trail]\n# Games & Fun/games.rules:16\nMatch = name:trail\n"
                          "Nice = 5\n"));
        check(strstr(out, "# 1 line had text after the object, ignored as ananicy-cpp does:\n"
                          "# Games & Fun/games.rules:16:32: text after '}' ignored\n"));
        check(strstr(out, "[Rule Crab-Game.x86_64]\n# Games & Fun/games.rules:3\n"
                          "Match = name:\"Crab Game.x86_64\"\n"));
        check(strstr(out, "[Rule Crab-Game.x86_64-2]\n"));
        check(strstr(out, "Match = name:\"Sex [[]18+] \\\"Q\\\" a\\\\\\\\b [*][?].exe\"\n"));
        check(strstr(out, "[Rule \xe6\x96\x87\xe5\xad\x97]\n"));
        check(strstr(out, "# not converted: type = \"Nope\": no .types file defines this type\n"));
        check(strstr(out, "# not converted: nice = 40: expected an integer in -20..19\n"));
        check(strstr(out, "Policy = batch\n# not converted: cgroup = \"cpu90\": latnice does not "
                          "move processes between cgroups"));
        check(strstr(out, "# not converted: foo = 1: not a key of ananicy rules or types\n"));
        check(strstr(out, "[Profile RT]\n# 00-types.types:4: type \"RT\"\n"
                          "# not converted: sched = \"rr\": latnice never sets real-time policies\n"
                          "# not converted: rtprio = 50: latnice never sets real-time priorities\n"));
        check(strstr(out, "# 00-cgroups.cgroups:1: cgroup cgroup=\"cpu90\", CPUQuota=90\n"));
        check(strstr(out, "# Games & Fun/games.rules:13:20: malformed: expected ',' or '}' after a "
                          "value, found '+'\n"));
        check(strstr(out, "# Games & Fun/long.rules:1: malformed: line longer than 4096 bytes\n"));
        check(strstr(out, "[Rule after-long]\n"));
        check(strstr(out, "# 00-types.types:7:"));
        check(strstr(out, "never read") == NULL);
}

/* The output is a policy that loads without errors and matches what it should. */
static void check_convert_policy(const char *out)
{
        _cleanup_(policy_freep) Policy *p = NULL;
        Diagnostics diags = {};

        check(policy_load_string("ananicy.policy", out, strlen(out), &p, &diags) == 0);
        for (size_t i = 0; i < diags.n; i++) {
                _cleanup_free_ char *d = diagnostic_format(&diags.items[i]);
                fprintf(stderr, "diagnostic: %s\n", strna(d));
        }
        check(diagnostics_count(&diags, DIAG_ERROR) == 0);
        check(p && policy_n_rules(p) == 13);
        if (p) {
                const char *odd = "Sex [18+] \"Q\" a\\b *?.exe";
                TaskSnapshot t = { .pid = 1, .tid = 1, .names = { .comm = "zz", .argv0 = odd } };
                MatchResult m;

                check(policy_match(p, &t, &m, NULL) == 0);
                check(m.n_matched == 1 && settings_has(&m.settings, SETTING_NICE) &&
                      m.settings.nice == -4);
                /* the glob characters are literal: another name does not match */
                t.names.argv0 = "Sex 1 \"Q\" a\\b xx.exe";
                check(policy_match(p, &t, &m, NULL) == 0);
                check(m.n_matched == 0);
                t.names.argv0 = "Crab Game.x86_64";
                check(policy_match(p, &t, &m, NULL) == 0 && m.n_matched == 1);
                t.names.argv0 = "bg";
                check(policy_match(p, &t, &m, NULL) == 0 && m.n_matched == 1 &&
                      m.settings.policy == 5 /* SCHED_IDLE */ && m.settings.nice == 16 &&
                      settings_has(&m.settings, SETTING_IO_NICE) && m.settings.io_nice == 7);
                /* cmdlines: each string somewhere in the command line */
                t.names.argv0 = "java";
                t.cmdline = "java -Xmx* -jar minecraft.jar";
                check(policy_match(p, &t, &m, NULL) == 0 && m.n_matched == 1 &&
                      m.settings.io_class == 1 && m.settings.io_nice == 2);
                t.cmdline = "java -Xmx2G -jar minecraft.jar";
                check(policy_match(p, &t, &m, NULL) == 0 && m.n_matched == 0);
                t.cmdline = "java -Xmx* -jar other.jar";
                check(policy_match(p, &t, &m, NULL) == 0 && m.n_matched == 0);
        }
        diagnostics_done(&diags);
}

/* errors: a missing directory, an empty one */
static void check_convert_errors(const char *dir)
{
        AnanicyStats s2;
        _cleanup_free_ char *ep = NULL, *empty = NULL;
        FILE *devnull = fopen("/dev/null", "we");

        check(ananicy_convert("/nonexistent-ananicy", devnull, &s2, &ep) == -ENOENT);
        check_streq(ep, "/nonexistent-ananicy");
        check(asprintf(&empty, "%s/empty", dir) > 0 && mkdir(empty, 0755) == 0);
        check(ananicy_convert(empty, devnull, &s2, NULL) == -ENOMSG);
        fclose(devnull);
        rmdir(empty);
}

static void test_convert(void)
{
        char dir[] = "/tmp/test-ananicy-XXXXXX";
        _cleanup_free_ char *sub = NULL, *out = NULL, *error_path = NULL;
        AnanicyStats st = {};
        size_t size = 0;
        FILE *f;

        check(mkdtemp(dir));
        check(asprintf(&sub, "%s/Games & Fun", dir) > 0);
        check(mkdir(sub, 0755) == 0);
        write_convert_tree(dir, sub);

        f = open_memstream(&out, &size);
        check(f);
        if (!f)
                return;
        check(ananicy_convert(dir, f, &st, &error_path) == 0);
        fclose(f);

        check_convert_stats(&st);
        if (out) {
                check_convert_output(out);
                check_convert_policy(out);
        }
        check_convert_errors(dir);

        /* clean up */
        {
                _cleanup_free_ char *cmd = NULL;
                check(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
                check(system(cmd) == 0);
        }
}

int main(void)
{
        test_values();
        test_escapes();
        test_bad();
        test_arrays_trailing();
        test_long_line();
        test_blank();
        test_convert();
        if (test_result() != EXIT_SUCCESS)
                return EXIT_FAILURE;
        printf("test-ananicy: all checks passed\n");
        return 0;
}
