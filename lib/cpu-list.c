/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU lists and the CPUs of the largest last-level cache (lib/cpu-list.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpu-list.h"
#include "lib/macro.h"
#include "lib/util.h"

_printf_(2, 3) static int list_error(char **ret_error, const char *fmt, ...)
{
        va_list ap;

        if (ret_error) {
                va_start(ap, fmt);
                if (vasprintf(ret_error, fmt, ap) < 0)
                        *ret_error = NULL;
                va_end(ap);
        }
        return -EINVAL;
}

/* A CPU number at S: its value and length; 0 if none or too large. */
static size_t cpu_number(const char *s, int *ret)
{
        size_t i = 0;
        long v = 0;

        while (s[i] >= '0' && s[i] <= '9') {
                v = v * 10 + (s[i] - '0');
                if (v >= CPU_SETSIZE)
                        return 0;
                i++;
        }
        if (i == 0)
                return 0;
        *ret = (int)v;
        return i;
}

int cpu_list_parse(const char *s, cpu_set_t *ret, char **ret_error, unsigned *ret_column)
{
        cpu_set_t set;
        size_t i = 0;

        CPU_ZERO(&set);
        for (;;) {
                int lo, hi;
                size_t n = cpu_number(s + i, &lo);

                if (n == 0) {
                        if (ret_column)
                                *ret_column = (unsigned)i;
                        return list_error(ret_error,
                                          "expected a CPU number in 0..%d or \"cache\", found \"%s\"",
                                          CPU_SETSIZE - 1, s + i);
                }
                i += n;
                hi = lo;
                if (s[i] == '-') {
                        n = cpu_number(s + i + 1, &hi);
                        if (n == 0 || hi < lo) {
                                if (ret_column)
                                        *ret_column = (unsigned)i + 1;
                                return list_error(ret_error,
                                                  "expected the last CPU of a range (%d..%d), "
                                                  "found \"%s\"",
                                                  lo, CPU_SETSIZE - 1, s + i + 1);
                        }
                        i += n + 1;
                }
                for (int cpu = lo; cpu <= hi; cpu++)
                        CPU_SET(cpu, &set);
                if (s[i] == '\0')
                        break;
                if (s[i] != ',') {
                        if (ret_column)
                                *ret_column = (unsigned)i;
                        return list_error(ret_error,
                                          "expected \",\" or the end of the CPU list, found \"%s\"",
                                          s + i);
                }
                i++;
        }
        *ret = set;
        return 0;
}

int cpu_list_format(const cpu_set_t *set, char **ret)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        if (!f)
                return -ENOMEM;
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
                int last = cpu;

                if (!CPU_ISSET(cpu, set))
                        continue;
                while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
                        last++;
                fprintf(f, "%s%d", ftell(f) > 0 ? "," : "", cpu);
                if (last > cpu)
                        fprintf(f, "-%d", last);
                cpu = last;
        }
        if (fclose(f) != 0) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        return 0;
}

/* "32768K", "96M", "1024": bytes; 0 if unreadable. */
static uint64_t cache_size(const char *dir)
{
        _cleanup_free_ char *p = NULL, *s = NULL;
        uint64_t v = 0;
        char *end;

        if (asprintf(&p, "%s/size", dir) < 0 || read_one_line_file(p, &s) < 0)
                return 0;
        v = strtoull(s, &end, 10);
        if (*end == 'K')
                v <<= 10;
        else if (*end == 'M')
                v <<= 20;
        else if (*end == 'G')
                v <<= 30;
        return v;
}

typedef struct Cache {
        int level;
        uint64_t size;
        int first_cpu;
        cpu_set_t cpus;
        bool found;
} Cache;

/* One cache DIR (cpuN/cache/indexM): is it better than *BEST? */
static int cache_consider(const char *dir, Cache *best)
{
        _cleanup_free_ char *p_level = NULL, *p_type = NULL, *p_list = NULL, *level = NULL,
                            *type = NULL, *list = NULL;
        Cache c = {};
        int r;

        if (asprintf(&p_level, "%s/level", dir) < 0 || asprintf(&p_type, "%s/type", dir) < 0 ||
            asprintf(&p_list, "%s/shared_cpu_list", dir) < 0)
                return -ENOMEM;
        if (read_one_line_file(p_level, &level) < 0 || read_one_line_file(p_list, &list) < 0)
                return 0; /* not a cache described enough */
        if (read_one_line_file(p_type, &type) >= 0 && streq(type, "Instruction"))
                return 0;
        r = safe_atoi(level, &c.level);
        if (r < 0 || cpu_list_parse(list, &c.cpus, NULL, NULL) < 0)
                return 0;
        c.size = cache_size(dir);
        for (c.first_cpu = 0; !CPU_ISSET(c.first_cpu, &c.cpus); c.first_cpu++)
                ;
        if (!best->found || c.level > best->level ||
            (c.level == best->level &&
             (c.size > best->size || (c.size == best->size && c.first_cpu < best->first_cpu)))) {
                *best = c;
                best->found = true;
        }
        return 0;
}

/* The caches of one CPU directory. */
static int cpu_caches(const char *cpu_dir, Cache *best)
{
        _cleanup_free_ char *path = NULL;
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int r;

        if (asprintf(&path, "%s/cache", cpu_dir) < 0)
                return -ENOMEM;
        d = opendir(path);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        while ((de = readdir(d))) {
                _cleanup_free_ char *dir = NULL;

                if (strncmp(de->d_name, "index", 5) != 0)
                        continue;
                if (asprintf(&dir, "%s/%s", path, de->d_name) < 0)
                        return -ENOMEM;
                r = cache_consider(dir, best);
                if (r < 0)
                        return r;
        }
        return 0;
}

int cpu_llc_read(const char *sysfs_root, cpu_set_t *ret)
{
        _cleanup_free_ char *path = NULL;
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        Cache best = {};
        int r;

        if (asprintf(&path, "%s/devices/system/cpu", sysfs_root ?: "/sys") < 0)
                return -ENOMEM;
        d = opendir(path);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                _cleanup_free_ char *cpu_dir = NULL;
                int n;

                if (strncmp(de->d_name, "cpu", 3) != 0 || safe_atoi(de->d_name + 3, &n) < 0)
                        continue;
                if (asprintf(&cpu_dir, "%s/%s", path, de->d_name) < 0)
                        return -ENOMEM;
                r = cpu_caches(cpu_dir, &best);
                if (r < 0)
                        return r;
        }
        if (!best.found)
                return -ENOENT;
        *ret = best.cpus;
        return 0;
}

int cpu_online_read(const char *sysfs_root, cpu_set_t *ret)
{
        _cleanup_free_ char *path = NULL, *list = NULL;
        int r;

        if (asprintf(&path, "%s/devices/system/cpu/online", sysfs_root ?: "/sys") < 0)
                return -ENOMEM;
        r = read_one_line_file(path, &list);
        if (r < 0)
                return r;
        return cpu_list_parse(list, ret, NULL, NULL) < 0 ? -EBADMSG : 0;
}
