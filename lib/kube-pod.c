/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kubernetes pods from cgroup paths (see kube-pod.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kube-pod.h"
#include "lib/macro.h"

/* A pod UID or container id longer than this is not the kubelet's. */
#define KUBE_ID_MAX 128

/* The component [S, S+N) without SUFFIX, if it has it. */
static size_t strip_suffix(const char *s, size_t n, const char *suffix)
{
        size_t k = strlen(suffix);

        return n > k && memcmp(s + n - k, suffix, k) == 0 ? n - k : n;
}

/* The part after the last '-' of [S, S+N) (all of it without one). */
static const char *after_dash(const char *s, size_t *n)
{
        for (size_t i = *n; i > 0; i--)
                if (s[i - 1] == '-') {
                        *n -= i;
                        return s + i;
                }
        return s;
}

static bool is_kubepods(const char *s, size_t n)
{
        size_t k = strip_suffix(s, n, ".slice");

        /* "kubepods", "kubepods.slice", "kubelet-kubepods.slice" */
        if (k == 8 && memcmp(s, "kubepods", 8) == 0)
                return true;
        return k != n && k > 9 && memcmp(s + k - 9, "-kubepods", 9) == 0;
}

static bool word_is(const char *s, size_t n, const char *w)
{
        return n == strlen(w) && memcmp(s, w, n) == 0;
}

/* An id: not empty, not too long, printable, no quote or blank. */
static bool id_valid(const char *s, size_t n)
{
        if (n == 0 || n > KUBE_ID_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (s[i] <= ' ' || s[i] > '~')
                        return false;
        return true;
}

/* The next component of *P (no leading '/'); advances *P past it. */
static const char *next_component(const char **p, size_t *n)
{
        const char *s;

        while (**p == '/')
                (*p)++;
        s = *p;
        while (**p && **p != '/')
                (*p)++;
        *n = (size_t)(*p - s);
        return *n > 0 ? s : NULL;
}

int kube_pod_from_path(const char *path, char **ret)
{
        const char *p = path, *c, *qos = "guaranteed", *uid = NULL, *id = NULL;
        size_t n, k, uid_n = 0, id_n = 0;
        char *v;

        if (!path)
                return -ENXIO;
        while ((c = next_component(&p, &n)) && !is_kubepods(c, n))
                ;
        if (!c || !(c = next_component(&p, &n)))
                return -ENXIO;
        /* the QoS class's cgroup, but for guaranteed pods */
        k = strip_suffix(c, n, ".slice");
        {
                size_t w = k;
                const char *word = after_dash(c, &w);

                if (word_is(word, w, "besteffort") || word_is(word, w, "burstable")) {
                        qos = word[1] == 'e' ? "besteffort" : "burstable";
                        if (!(c = next_component(&p, &n)))
                                return -ENXIO;
                        k = strip_suffix(c, n, ".slice");
                }
        }
        /* the pod: "pod<UID>" (the UID's dashes kept), or "...-pod<UID>.slice" */
        uid_n = k;
        uid = k > 3 && memcmp(c, "pod", 3) == 0 ? c : after_dash(c, &uid_n);
        if (uid_n < 4 || memcmp(uid, "pod", 3) != 0 || !id_valid(uid + 3, uid_n - 3))
                return -ENXIO;
        uid += 3;
        uid_n -= 3;
        /* the container, if any: "<runtime>-<ID>.scope" or "<ID>" */
        c = next_component(&p, &n);
        if (c) {
                id_n = strip_suffix(c, n, ".scope");
                id = after_dash(c, &id_n);
                if (!id_valid(id, id_n))
                        id = NULL;
        }

        if (asprintf(&v, "%s/%.*s%s%.*s", qos, (int)uid_n, uid, id ? "/" : "", id ? (int)id_n : 0,
                     id ? id : "") < 0)
                return -ENOMEM;
        /* the systemd driver escapes the UID's dashes as underscores */
        for (char *u = v + strlen(qos) + 1; *u && *u != '/'; u++)
                if (*u == '_')
                        *u = '-';
        *ret = v;
        return 0;
}

/* The pod of the path of one line "N:CONTROLLERS:PATH" of LEN bytes. */
static int line_pod(const char *l, size_t len, char **ret)
{
        const char *c1 = memchr(l, ':', len), *c2;
        _cleanup_free_ char *path = NULL;

        if (!c1)
                return -ENXIO;
        c2 = memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - l));
        if (!c2)
                return -ENXIO;
        path = strndup(c2 + 1, len - (size_t)(c2 + 1 - l));
        if (!path)
                return -ENOMEM;
        return kube_pod_from_path(path, ret);
}

int kube_pod_from_cgroup_file(const char *buf, size_t size, char **ret)
{
        /* two passes: the v2 line, then the others */
        for (int pass = 0; pass < 2; pass++) {
                const char *l = buf, *end = buf + size;

                while (l < end) {
                        const char *nl = memchr(l, '\n', (size_t)(end - l));
                        size_t len = (size_t)((nl ? nl : end) - l);
                        bool v2 = len >= 3 && memcmp(l, "0::", 3) == 0;

                        if (v2 == (pass == 0)) {
                                int r = line_pod(l, len, ret);

                                if (r != -ENXIO)
                                        return r;
                        }
                        l += len + 1;
                }
        }
        return -ENXIO;
}
