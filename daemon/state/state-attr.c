/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Owns the state file's per-attribute entries (state-attr.h): one codec per
 * task attribute, keyed by a tag of the file's own. */
#include <assert.h>
#include <string.h>

#include "daemon/state/state-attr.h"
#include "lib/core-sched.h"
#include "lib/ioprio.h"
#include "lib/macro.h"
#include "lib/task-attr.h"

typedef struct AttrCodec {
        SettingId id;
        uint16_t tag;    /* in the file: never reused, never renumbered */
        uint8_t version; /* of this payload; another is skipped like an unknown tag */
        /* The attribute's part of ST into P; returns its length (at most 255). */
        size_t (*put)(const SchedState *st, uint8_t *p);
        /* That part (N bytes) back into ST; false if N or a value is wrong. */
        bool (*get)(const uint8_t *p, size_t n, SchedState *st);
        /* A setting value task_attr_valid() cannot judge (a named one). */
        bool (*setting_ok)(const Settings *s);
        size_t part_max; /* the longest part put() gives */
} AttrCodec;

/* Fixed-size parts: the fields of a SchedState in a packed struct. */
#define PART_PUT(type, p, ...)                                                                 \
        ({                                                                                     \
                type _v = { __VA_ARGS__ };                                                     \
                memcpy((p), &_v, sizeof(_v));                                                  \
                sizeof(_v);                                                                    \
        })
#define PART_GET(type, p, n, v) ((n) == sizeof(type) && (memcpy(&(v), (p), sizeof(type)), true))

typedef struct __attribute__((packed)) PolicyPart {
        int32_t policy;
        uint32_t priority;
        uint64_t flags;
} PolicyPart;

static size_t policy_put(const SchedState *st, uint8_t *p)
{
        return PART_PUT(PolicyPart, p, st->policy, st->priority, st->flags);
}

static bool policy_get(const uint8_t *p, size_t n, SchedState *st)
{
        PolicyPart v;

        if (!PART_GET(PolicyPart, p, n, v) || v.policy < 0 || v.policy > 7)
                return false;
        st->policy = v.policy;
        st->priority = v.priority;
        st->flags = v.flags;
        return true;
}

static bool policy_setting_ok(const Settings *s)
{
        return s->policy >= 0 && s->policy <= 7;
}

static size_t nice_put(const SchedState *st, uint8_t *p)
{
        return PART_PUT(int32_t, p, st->nice);
}

static bool nice_get(const uint8_t *p, size_t n, SchedState *st)
{
        int32_t v;

        if (!PART_GET(int32_t, p, n, v) || v < -20 || v > 19)
                return false;
        st->nice = v;
        return true;
}

typedef struct __attribute__((packed)) SlicePart {
        uint64_t slice_ns;
        uint8_t custom;
} SlicePart;

static size_t slice_put(const SchedState *st, uint8_t *p)
{
        return PART_PUT(SlicePart, p, st->slice_ns, st->custom_slice);
}

static bool slice_get(const uint8_t *p, size_t n, SchedState *st)
{
        SlicePart v;

        if (!PART_GET(SlicePart, p, n, v) || v.custom > 1)
                return false;
        st->slice_ns = v.slice_ns;
        st->custom_slice = v.custom;
        return true;
}

typedef struct __attribute__((packed)) LatencyPart {
        int32_t latency_nice;
        uint8_t has;
} LatencyPart;

static size_t latency_put(const SchedState *st, uint8_t *p)
{
        return PART_PUT(LatencyPart, p, st->latency_nice, st->has_latency_nice);
}

static bool latency_get(const uint8_t *p, size_t n, SchedState *st)
{
        LatencyPart v;

        if (!PART_GET(LatencyPart, p, n, v) || v.has > 1 || v.latency_nice < -20 ||
            v.latency_nice > 19)
                return false;
        st->latency_nice = v.latency_nice;
        st->has_latency_nice = v.has;
        return true;
}

static size_t util_min_put(const SchedState *st, uint8_t *p)
{
        return PART_PUT(uint32_t, p, st->util_min);
}

static bool util_min_get(const uint8_t *p, size_t n, SchedState *st)
{
        uint32_t v;

        if (!PART_GET(uint32_t, p, n, v) || v > 1024)
                return false;
        st->util_min = v;
        return true;
}

static size_t util_max_put(const SchedState *st, uint8_t *p)
{
        return PART_PUT(uint32_t, p, st->util_max);
}

static bool util_max_get(const uint8_t *p, size_t n, SchedState *st)
{
        uint32_t v;

        if (!PART_GET(uint32_t, p, n, v) || v > 1024)
                return false;
        st->util_max = v;
        return true;
}

static size_t slack_put(const SchedState *st, uint8_t *p)
{
        return PART_PUT(uint64_t, p, st->timer_slack_ns);
}

static bool slack_get(const uint8_t *p, size_t n, SchedState *st)
{
        return PART_GET(uint64_t, p, n, st->timer_slack_ns);
}

/* IOClass and IONice share the raw ioprio: both entries hold it. */
static size_t ioprio_put(const SchedState *st, uint8_t *p)
{
        return PART_PUT(int32_t, p, st->ioprio);
}

static bool ioprio_get(const uint8_t *p, size_t n, SchedState *st)
{
        int32_t v;

        if (!PART_GET(int32_t, p, n, v) || v < 0 || v > UINT16_MAX ||
            LN_IOPRIO_CLASS(v) > LN_IOPRIO_CLASS_IDLE)
                return false;
        st->ioprio = v;
        return true;
}

static bool io_class_setting_ok(const Settings *s)
{
        return s->io_class >= 0 && s->io_class <= LN_IOPRIO_CLASS_IDLE;
}

static bool io_nice_setting_ok(const Settings *s)
{
        return s->io_nice >= 0 && s->io_nice <= 7;
}

static size_t oom_put(const SchedState *st, uint8_t *p)
{
        return PART_PUT(int32_t, p, st->oom_score_adj);
}

static bool oom_get(const uint8_t *p, size_t n, SchedState *st)
{
        int32_t v;

        if (!PART_GET(int32_t, p, n, v) || v < OOM_SCORE_ADJ_MIN || v > OOM_SCORE_ADJ_MAX)
                return false;
        st->oom_score_adj = v;
        return true;
}

static bool oom_setting_ok(const Settings *s)
{
        return s->oom_score_adj >= OOM_SCORE_ADJ_MIN && s->oom_score_adj <= OOM_SCORE_ADJ_MAX;
}

static size_t core_put(const SchedState *st, uint8_t *p)
{
        return PART_PUT(uint64_t, p, st->core_cookie);
}

static bool core_get(const uint8_t *p, size_t n, SchedState *st)
{
        return PART_GET(uint64_t, p, n, st->core_cookie);
}

static bool core_setting_ok(const Settings *s)
{
        return s->core_sched.mode >= 0 && s->core_sched.mode < _CORE_SCHED_MAX &&
               s->core_sched.zero == 0;
}

/* A CPU set up to its last non-zero byte (a few bytes on most machines,
 * 128 at most). */
static size_t affinity_put(const SchedState *st, uint8_t *p)
{
        const uint8_t *b = (const uint8_t *)&st->cpu_affinity;
        size_t n = sizeof(st->cpu_affinity);

        _Static_assert(sizeof(cpu_set_t) <= 255, "a CPU set fits a part");
        while (n > 0 && b[n - 1] == 0)
                n--;
        memcpy(p, b, n);
        return n;
}

static bool affinity_get(const uint8_t *p, size_t n, SchedState *st)
{
        if (n > sizeof(st->cpu_affinity))
                return false;
        CPU_ZERO(&st->cpu_affinity);
        memcpy(&st->cpu_affinity, p, n);
        return true;
}

static bool affinity_setting_ok(const Settings *s)
{
        return s->cpu_affinity.cache <= 1 && s->cpu_affinity.zero == 0;
}

static const AttrCodec codecs[] = {
        { SETTING_POLICY, 1, 1, policy_put, policy_get, policy_setting_ok, sizeof(PolicyPart) },
        { SETTING_NICE, 2, 1, nice_put, nice_get, NULL, sizeof(int32_t) },
        { SETTING_SLICE, 3, 1, slice_put, slice_get, NULL, sizeof(SlicePart) },
        { SETTING_LATENCY_NICE, 4, 1, latency_put, latency_get, NULL, sizeof(LatencyPart) },
        { SETTING_UTIL_MIN, 5, 1, util_min_put, util_min_get, NULL, sizeof(uint32_t) },
        { SETTING_UTIL_MAX, 6, 1, util_max_put, util_max_get, NULL, sizeof(uint32_t) },
        { SETTING_TIMER_SLACK, 7, 1, slack_put, slack_get, NULL, sizeof(uint64_t) },
        { SETTING_IO_CLASS, 8, 1, ioprio_put, ioprio_get, io_class_setting_ok, sizeof(int32_t) },
        { SETTING_IO_NICE, 9, 1, ioprio_put, ioprio_get, io_nice_setting_ok, sizeof(int32_t) },
        { SETTING_OOM_SCORE_ADJ, 10, 1, oom_put, oom_get, oom_setting_ok, sizeof(int32_t) },
        { SETTING_CORE_SCHED, 11, 1, core_put, core_get, core_setting_ok, sizeof(uint64_t) },
        { SETTING_CPU_AFFINITY, 12, 1, affinity_put, affinity_get, affinity_setting_ok,
          sizeof(cpu_set_t) },
};

static const AttrCodec *codec_by_tag(uint16_t tag)
{
        for (size_t i = 0; i < ELEMENTSOF(codecs); i++)
                if (codecs[i].tag == tag)
                        return &codecs[i];
        return NULL;
}

size_t state_attr_max_size(void)
{
        size_t n = 0;

        for (size_t i = 0; i < ELEMENTSOF(codecs); i++)
                n += STATE_ENTRY_HEADER + 3 + task_attr(codecs[i].id)->field.size +
                     2 * codecs[i].part_max;
        return n;
}

bool state_attr_complete(void)
{
        TASK_ATTR_FOREACH(a) {
                bool found = false;

                for (size_t i = 0; i < ELEMENTSOF(codecs); i++)
                        found |= codecs[i].id == a->id;
                if (!found || a->field.size > 255)
                        return false;
        }
        return true;
}

static uint8_t entry_flags(const StateRecord *rec, SettingId id)
{
        uint32_t bit = SETTING_BIT(id);

        return (rec->applied_mask & bit ? STATE_ENTRY_APPLIED : 0) |
               (rec->pending_mask & bit ? STATE_ENTRY_PENDING : 0) |
               (rec->settings.mask & bit ? STATE_ENTRY_SET : 0) |
               (rec->user_owned ? STATE_ENTRY_USER : 0);
}

size_t state_attr_encode(const StateRecord *rec, uint8_t *buf, size_t size)
{
        size_t off = 0;

        assert(size >= state_attr_max_size());
        for (size_t i = 0; i < ELEMENTSOF(codecs); i++) {
                const AttrCodec *c = &codecs[i];
                const SettingField *f = &task_attr(c->id)->field;
                uint8_t *e = buf + off, *p = e + STATE_ENTRY_HEADER;
                uint16_t len;

                *p = (uint8_t)f->size;
                memcpy(p + 1, (const uint8_t *)&rec->settings + f->offset, f->size);
                p += 1 + f->size;
                *p = (uint8_t)c->put(&rec->orig, p + 1);
                p += 1 + *p;
                *p = (uint8_t)c->put(&rec->expected, p + 1);
                p += 1 + *p;
                len = (uint16_t)(p - e - STATE_ENTRY_HEADER);
                memcpy(e, &c->tag, 2);
                e[2] = c->version;
                e[3] = entry_flags(rec, c->id);
                memcpy(e + 4, &len, 2);
                off = (size_t)(p - buf);
        }
        return off;
}

/* Part *OFF of the payload P (N bytes): its bytes and length, *OFF past it. */
static bool part_next(const uint8_t *p, size_t n, size_t *off, const uint8_t **ret, size_t *ret_n)
{
        if (*off >= n || p[*off] > n - *off - 1)
                return false;
        *ret_n = p[*off];
        *ret = p + *off + 1;
        *off += 1 + *ret_n;
        return true;
}

/* One known entry's payload P (N bytes) into REC. */
static bool entry_decode(const AttrCodec *c, uint8_t flags, const uint8_t *p, size_t n,
                         StateRecord *rec)
{
        const TaskAttr *a = task_attr(c->id);
        const uint8_t *part;
        size_t off = 0, len;
        uint32_t bit = SETTING_BIT(c->id);
        Settings s = {};

        if (flags & ~(STATE_ENTRY_APPLIED | STATE_ENTRY_PENDING | STATE_ENTRY_SET |
                      STATE_ENTRY_USER))
                return false;
        if (!part_next(p, n, &off, &part, &len) || len != a->field.size)
                return false;
        memcpy((uint8_t *)&s + a->field.offset, part, len);
        /* An unset value is kept as it was (a Settings' unset members are
         * whatever they were), checked only when set. */
        if ((flags & STATE_ENTRY_SET) &&
            (!task_attr_valid(a, &s) || (c->setting_ok && !c->setting_ok(&s))))
                return false;
        memcpy((uint8_t *)&rec->settings + a->field.offset, part, len);
        if (!part_next(p, n, &off, &part, &len) || !c->get(part, len, &rec->orig) ||
            !part_next(p, n, &off, &part, &len) || !c->get(part, len, &rec->expected) ||
            off != n)
                return false;
        rec->applied_mask |= flags & STATE_ENTRY_APPLIED ? bit : 0;
        rec->pending_mask |= flags & STATE_ENTRY_PENDING ? bit : 0;
        rec->settings.mask |= flags & STATE_ENTRY_SET ? bit : 0;
        rec->user_owned |= flags & STATE_ENTRY_USER;
        return true;
}

bool state_attr_decode(const uint8_t *buf, size_t len, StateRecord *rec, size_t *ret_skipped)
{
        uint32_t seen = 0;
        size_t off = 0;

        while (off < len) {
                const AttrCodec *c;
                uint16_t tag, n;

                if (len - off < STATE_ENTRY_HEADER)
                        return false;
                memcpy(&tag, buf + off, 2);
                memcpy(&n, buf + off + 4, 2);
                if (n > len - off - STATE_ENTRY_HEADER)
                        return false;
                c = codec_by_tag(tag);
                if (!c || c->version != buf[off + 2])
                        (*ret_skipped)++;
                else if ((seen & SETTING_BIT(c->id)) ||
                         !entry_decode(c, buf[off + 3], buf + off + STATE_ENTRY_HEADER, n, rec))
                        return false;
                else
                        seen |= SETTING_BIT(c->id);
                off += STATE_ENTRY_HEADER + n;
        }
        return true;
}
