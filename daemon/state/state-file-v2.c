/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Owns reading a version 2 state file (state-file-v2.h), for its one
 * conversion to version 3. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/state/state-copy.h"
#include "daemon/state/state-file-v2.h"
#include "lib/core-sched.h"
#include "lib/ioprio.h"
#include "lib/macro.h"

#define COPY_USED 0x1u
#define COPY_USER_OWNED 0x2u
#define V2_MAX_RECORDS (1u << 22)
#define V2_MAX_CG_RECORDS (1u << 16)
#define V2_VALUE_MAX 32
#define V2_PATH_MAX 4096

typedef struct DiskSched {
        int32_t policy, nice;
        uint32_t priority, util_min, util_max;
        int32_t latency_nice;
        uint64_t slice_ns, flags, timer_slack_ns;
        uint8_t custom_slice, has_latency_nice;
        int16_t ioprio, oom_score_adj; /* were padding: 0 in older files, unused there */
        uint8_t pad[2];
} DiskSched;

typedef struct DiskCopy {
        uint64_t seq; /* 0: never written */
        uint64_t starttime;
        int32_t pid, tid;
        uint32_t flags, applied_mask, pending_mask, settings_mask;
        int32_t s_latency_nice, s_nice, s_policy;
        uint32_t s_util_min, s_util_max;
        uint8_t s_io_class, s_io_nice; /* were padding, as s_oom_score_adj */
        int16_t s_oom_score_adj;
        uint64_t s_slice_ns, s_timer_slack_ns;
        uint64_t orig_core_cookie, expected_core_cookie; /* SchedState.core_cookie */
        uint64_t s_core_group;
        int32_t s_core_mode;
        uint32_t pad_core;
        DiskSched orig, expected;
        uint64_t checksum; /* of everything before it; written last */
} DiskCopy;

typedef struct DiskCgCopy {
        uint64_t seq; /* 0: never written */
        uint64_t ino, autogroup_id, starttime;
        uint32_t flags;
        uint8_t owner, kind;
        uint16_t path_len;
        int32_t pid;
        uint32_t pad;
        char orig[V2_VALUE_MAX], written[V2_VALUE_MAX], previous[V2_VALUE_MAX];
        char path[V2_PATH_MAX];
        uint64_t checksum; /* of everything before it; written last */
} DiskCgCopy;

typedef struct DiskHeader {
        char magic[8];
        uint32_t version, header_size, record_size, n_records;
        uint64_t generation;
        uint8_t boot_id[16];
        uint32_t n_cg_records; /* the cgroup table after the task records; 0: none */
        uint8_t reserved[12];
} DiskHeader;

_Static_assert(sizeof(DiskSched) == 56, "DiskSched layout");
_Static_assert(sizeof(DiskCopy) * 2 == STATE_V2_RECORD_SIZE, "DiskCopy layout");
_Static_assert(sizeof(DiskHeader) == STATE_V2_HEADER_SIZE, "DiskHeader layout");
_Static_assert(sizeof(DiskCgCopy) * 2 == STATE_V2_CG_RECORD_SIZE, "DiskCgCopy layout");
_Static_assert(V2_VALUE_MAX == STATE_VALUE_MAX, "cgroup values as in version 2");

static bool sched_decode(const DiskSched *d, SchedState *s)
{
        if (d->policy < 0 || d->policy > 7 || d->nice < -20 || d->nice > 19 ||
            d->latency_nice < -20 || d->latency_nice > 19 || d->util_min > 1024 ||
            d->util_max > 1024 || d->custom_slice > 1 || d->has_latency_nice > 1 ||
            d->ioprio < 0 || LN_IOPRIO_CLASS(d->ioprio) > LN_IOPRIO_CLASS_IDLE ||
            d->oom_score_adj < OOM_SCORE_ADJ_MIN || d->oom_score_adj > OOM_SCORE_ADJ_MAX)
                return false;
        *s = (SchedState){
                .policy = d->policy,
                .nice = d->nice,
                .priority = d->priority,
                .slice_ns = d->slice_ns,
                .custom_slice = d->custom_slice,
                .util_min = d->util_min,
                .util_max = d->util_max,
                .has_latency_nice = d->has_latency_nice,
                .latency_nice = d->latency_nice,
                .flags = d->flags,
                .timer_slack_ns = d->timer_slack_ns,
                .ioprio = d->ioprio,
                .oom_score_adj = d->oom_score_adj,
        };
        return true;
}

/* A valid, used copy into *REC. False if its values are out of range. */
static bool record_decode(const DiskCopy *c, uint32_t slot, StateRecord *rec)
{
        StateRecord r = {
                .slot = slot,
                .pid = c->pid,
                .tid = c->tid,
                .starttime = c->starttime,
                .user_owned = c->flags & COPY_USER_OWNED,
                .claim.applied_mask = c->applied_mask,
                .pending_mask = c->pending_mask,
                .settings = {
                        .mask = c->settings_mask,
                        .latency_nice = c->s_latency_nice,
                        .slice_ns = c->s_slice_ns,
                        .nice = c->s_nice,
                        .policy = c->s_policy,
                        .util_min = c->s_util_min,
                        .util_max = c->s_util_max,
                        .timer_slack_ns = c->s_timer_slack_ns,
                        .core_sched = { .mode = c->s_core_mode, .group = c->s_core_group },
                        .io_class = c->s_io_class,
                        .io_nice = c->s_io_nice,
                        .oom_score_adj = c->s_oom_score_adj,
                },
        };

        if (c->pid <= 0 || c->tid <= 0 || (c->flags & ~(COPY_USED | COPY_USER_OWNED)) ||
            ((c->applied_mask | c->pending_mask | c->settings_mask) & ~SETTINGS_TASK_MASK) ||
            c->s_io_class > LN_IOPRIO_CLASS_IDLE || c->s_io_nice > 7 ||
            c->s_oom_score_adj < OOM_SCORE_ADJ_MIN || c->s_oom_score_adj > OOM_SCORE_ADJ_MAX)
                return false;
        if (!sched_decode(&c->orig, &r.claim.orig) ||
            !sched_decode(&c->expected, &r.claim.expected))
                return false;
        if (c->s_core_mode < 0 || c->s_core_mode >= _CORE_SCHED_MAX || c->pad_core != 0)
                return false;
        r.claim.orig.core_cookie = c->orig_core_cookie;
        r.claim.expected.core_cookie = c->expected_core_cookie;
        *rec = r;
        return true;
}

/* A valid, used copy into *REC (path allocated). -EINVAL if out of range. */
static int cg_decode(const DiskCgCopy *c, uint32_t slot, StateCgroupRecord *rec)
{
        StateCgroupRecord r = {
                .slot = slot,
                .owner = c->owner,
                .kind = c->kind,
                .ino = c->ino,
                .autogroup_id = c->autogroup_id,
                .pid = c->pid,
                .starttime = c->starttime,
        };

        if (c->flags != COPY_USED ||
            (c->owner != STATE_CGROUP_UNITS && c->owner != STATE_CGROUP_GROUPS) ||
            c->path_len == 0 || c->path_len >= V2_PATH_MAX ||
            memchr(c->path, 0, c->path_len) || c->path[c->path_len] ||
            !memchr(c->orig, 0, V2_VALUE_MAX) || !memchr(c->written, 0, V2_VALUE_MAX) ||
            !memchr(c->previous, 0, V2_VALUE_MAX))
                return -EINVAL;
        memcpy(r.orig, c->orig, V2_VALUE_MAX);
        memcpy(r.written, c->written, V2_VALUE_MAX);
        memcpy(r.previous, c->previous, V2_VALUE_MAX);
        r.path = strndup(c->path, c->path_len);
        if (!r.path)
                return -ENOMEM;
        *rec = r;
        return 0;
}

static bool copy_unwritten(const void *p)
{
        const uint8_t *c = p;

        for (size_t i = 0; i < sizeof(DiskCopy); i++)
                if (c[i])
                        return false;
        return true;
}

static bool cg_copy_unwritten(const void *p)
{
        const DiskCgCopy *c = p;

        return c->seq == 0 && c->checksum == 0 && c->flags == 0;
}

/* The newest valid copy of the record at P (copies of SIZE bytes), NULL if
 * it holds none; counted into V (torn, corrupt: both copies written and
 * neither valid, which a crash never leaves). */
static const uint8_t *v2_copy(StateV2 *v, const uint8_t *image, const uint8_t *p, size_t size,
                              bool (*unwritten)(const void *c), size_t flags_off)
{
        bool torn;
        int best = state_copy_best(p, size, unwritten, &torn);
        uint32_t flags;

        if (best < 0 && torn && state_copy_u64(p, 0) != 0 && state_copy_u64(p + size, 0) != 0) {
                if (v->n_corrupt++ == 0)
                        v->corrupt_offset = (size_t)(p - image);
                return NULL;
        }
        v->n_torn += torn && best >= 0;
        if (best < 0)
                return NULL;
        memcpy(&flags, p + (size_t)best * size + flags_off, sizeof(flags));
        return flags & COPY_USED ? p + (size_t)best * size : NULL;
}

static void v2_note_corrupt(StateV2 *v, const uint8_t *image, const uint8_t *p)
{
        if (v->n_corrupt++ == 0)
                v->corrupt_offset = (size_t)(p - image);
}

char *state_v2_header_problem(const uint8_t *image, size_t size)
{
        DiskHeader h;
        char *s = NULL;

        if (size < sizeof(h))
                return asprintf(&s, "truncated: %zu bytes, shorter than its %zu-byte header",
                                size, sizeof(h)) < 0 ? strdup("unusable") : s;
        memcpy(&h, image, sizeof(h));
        if (h.header_size != sizeof(DiskHeader) || h.record_size != sizeof(DiskCopy) * 2)
                return asprintf(&s, "version 2 with header size %u and record size %u, "
                                    "expected %zu and %zu", h.header_size, h.record_size,
                                sizeof(DiskHeader), sizeof(DiskCopy) * 2) < 0
                               ? strdup("unusable") : s;
        if (h.n_records == 0 || h.n_records > V2_MAX_RECORDS ||
            h.n_cg_records > V2_MAX_CG_RECORDS)
                return asprintf(&s, "version 2 with record counts %u and %u, out of range",
                                h.n_records, h.n_cg_records) < 0 ? strdup("unusable") : s;
        return NULL;
}

static int v2_read_tasks(const uint8_t *image, size_t n, StateV2 *v)
{
        v->records = calloc(MAX(n, (size_t)1), sizeof(StateRecord));
        if (!v->records)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const uint8_t *p = image + sizeof(DiskHeader) + i * STATE_V2_RECORD_SIZE;
                const uint8_t *c = v2_copy(v, image, p, sizeof(DiskCopy), copy_unwritten,
                                           offsetof(DiskCopy, flags));
                DiskCopy d;

                if (!c)
                        continue;
                memcpy(&d, c, sizeof(d));
                if (!record_decode(&d, (uint32_t)i, &v->records[v->n_records]))
                        v2_note_corrupt(v, image, p);
                else
                        v->n_records++;
        }
        return 0;
}

static int v2_read_cgroups(const uint8_t *image, size_t start, size_t n, StateV2 *v)
{
        v->cg = calloc(MAX(n, (size_t)1), sizeof(StateCgroupRecord));
        if (!v->cg)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const uint8_t *p = image + start + i * STATE_V2_CG_RECORD_SIZE;
                const uint8_t *c = v2_copy(v, image, p, sizeof(DiskCgCopy), cg_copy_unwritten,
                                           offsetof(DiskCgCopy, flags));
                _cleanup_free_ DiskCgCopy *d = NULL;
                int r;

                if (!c)
                        continue;
                d = malloc(sizeof(*d));
                if (!d)
                        return -ENOMEM;
                memcpy(d, c, sizeof(*d));
                r = cg_decode(d, (uint32_t)i, &v->cg[v->n_cg]);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        v2_note_corrupt(v, image, p);
                else
                        v->n_cg++;
        }
        return 0;
}

int state_v2_read(const uint8_t *image, size_t size, StateV2 *ret)
{
        StateV2 v = {};
        DiskHeader h;
        size_t tasks_end, n_tasks, n_cg = 0;
        int r;

        memcpy(&h, image, sizeof(h));
        tasks_end = sizeof(DiskHeader) + (size_t)h.n_records * STATE_V2_RECORD_SIZE;
        v.need = tasks_end + (size_t)h.n_cg_records * STATE_V2_CG_RECORD_SIZE;
        n_tasks = MIN((size - sizeof(DiskHeader)) / STATE_V2_RECORD_SIZE, (size_t)h.n_records);
        if (size >= tasks_end)
                n_cg = MIN((size - tasks_end) / STATE_V2_CG_RECORD_SIZE, (size_t)h.n_cg_records);
        v.whole = MIN(size, v.need);
        r = v2_read_tasks(image, n_tasks, &v);
        if (r >= 0)
                r = v2_read_cgroups(image, tasks_end, n_cg, &v);
        if (r < 0) {
                state_v2_done(&v);
                return r;
        }
        *ret = v;
        return 0;
}

void state_v2_done(StateV2 *v)
{
        free(v->records);
        state_cgroup_records_free(v->cg, v->n_cg);
        *v = (StateV2){};
}
