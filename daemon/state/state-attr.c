/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Owns the state file's per-attribute entries (state-attr.h): one codec for
 * every task attribute, driven by the AttrState of its descriptor
 * (lib/task-attr.c), which says its tag, version and members. */
#include <assert.h>
#include <string.h>

#include "daemon/state/state-attr.h"
#include "lib/macro.h"
#include "lib/task-attr.h"

/* The bytes one part of an entry takes at most. */
static size_t part_max(const TaskAttr *a)
{
        size_t n = 0;

        for (size_t i = 0; i < ELEMENTSOF(a->state.members) && a->state.members[i].size; i++)
                n += a->state.members[i].size;
        return n;
}

/* The members of A in ST into P; returns their length (at most 255). */
static size_t part_put(const TaskAttr *a, const SchedState *st, uint8_t *p)
{
        size_t off = 0;

        for (size_t i = 0; i < ELEMENTSOF(a->state.members) && a->state.members[i].size; i++) {
                const AttrStateMember *m = &a->state.members[i];
                const uint8_t *b = (const uint8_t *)st + m->offset;
                size_t n = m->size;

                while (m->trim && n > 0 && b[n - 1] == 0)
                        n--;
                memcpy(p + off, b, n);
                off += n;
        }
        return off;
}

/* Is the integer member M at V (M->size bytes) in its range? */
static bool member_in_range(const AttrStateMember *m, const uint8_t *v)
{
        int64_t x;

        if (m->min == 0 && m->max == 0)
                return true;
        switch (m->size) {
        case 1:
                x = m->is_signed ? *(const int8_t *)v : *(const uint8_t *)v;
                break;
        case 4: {
                int32_t i;
                uint32_t u;

                memcpy(m->is_signed ? (void *)&i : (void *)&u, v, 4);
                x = m->is_signed ? i : (int64_t)u;
                break;
        }
        case 8: {
                uint64_t u;

                memcpy(&u, v, 8);
                if (!m->is_signed && u > (uint64_t)INT64_MAX)
                        return false;
                x = (int64_t)u;
                break;
        }
        default:
                return false; /* no such member: the unit test says so */
        }
        return x >= m->min && x <= m->max;
}

/* That part (N bytes at P) back into ST; false if N or a value is wrong.
 * ST is changed only when the part is right. */
static bool part_get(const TaskAttr *a, const uint8_t *p, size_t n, SchedState *st)
{
        SchedState v = *st;
        size_t off = 0;

        for (size_t i = 0; i < ELEMENTSOF(a->state.members) && a->state.members[i].size; i++) {
                const AttrStateMember *m = &a->state.members[i];
                uint8_t *b = (uint8_t *)&v + m->offset;

                if (m->trim) {
                        /* The last member: whatever is left, zeros after. */
                        if (n - off > m->size)
                                return false;
                        memset(b, 0, m->size);
                        memcpy(b, p + off, n - off);
                        off = n;
                        continue;
                }
                if (n - off < m->size || !member_in_range(m, p + off))
                        return false;
                memcpy(b, p + off, m->size);
                off += m->size;
        }
        if (off != n)
                return false;
        *st = v;
        return true;
}

static const TaskAttr *attr_by_tag(uint16_t tag)
{
        TASK_ATTR_FOREACH(a)
                if (a->state.tag == tag)
                        return a;
        return NULL;
}

size_t state_attr_max_size(void)
{
        size_t n = 0;

        TASK_ATTR_FOREACH(a)
                n += STATE_ENTRY_HEADER + 3 + a->field.size + 2 * part_max(a);
        return n;
}

/* Is M a member state-attr.c can keep (a trimmed one last)? */
static bool member_ok(const TaskAttr *a, size_t i)
{
        const AttrStateMember *m = &a->state.members[i];

        if (m->offset + m->size > sizeof(SchedState))
                return false;
        if (m->trim)
                return i + 1 == ELEMENTSOF(a->state.members) || a->state.members[i + 1].size == 0;
        return m->size == 1 || m->size == 4 || m->size == 8;
}

bool state_attr_complete(void)
{
        TASK_ATTR_FOREACH(a) {
                if (a->state.tag == 0 || a->state.version == 0 ||
                    a->state.members[0].size == 0 || a->field.size > 255 || part_max(a) > 255 ||
                    attr_by_tag(a->state.tag) != a)
                        return false;
                for (size_t i = 0; i < ELEMENTSOF(a->state.members) && a->state.members[i].size;
                     i++)
                        if (!member_ok(a, i))
                                return false;
        }
        return true;
}

static uint8_t entry_flags(const StateRecord *rec, SettingId id)
{
        uint32_t bit = SETTING_BIT(id);

        return (rec->claim.applied_mask & bit ? STATE_ENTRY_APPLIED : 0) |
               (rec->pending_mask & bit ? STATE_ENTRY_PENDING : 0) |
               (rec->settings.mask & bit ? STATE_ENTRY_SET : 0) |
               (rec->user_owned ? STATE_ENTRY_USER : 0);
}

size_t state_attr_encode(const StateRecord *rec, uint8_t *buf, size_t size)
{
        size_t off = 0;

        assert(size >= state_attr_max_size());
        TASK_ATTR_FOREACH(a) {
                const SettingField *f = &a->field;
                uint8_t *e = buf + off, *p = e + STATE_ENTRY_HEADER;
                uint16_t len;

                *p = (uint8_t)f->size;
                memcpy(p + 1, (const uint8_t *)&rec->settings + f->offset, f->size);
                p += 1 + f->size;
                *p = (uint8_t)part_put(a, &rec->claim.orig, p + 1);
                p += 1 + *p;
                *p = (uint8_t)part_put(a, &rec->claim.expected, p + 1);
                p += 1 + *p;
                len = (uint16_t)(p - e - STATE_ENTRY_HEADER);
                memcpy(e, &a->state.tag, 2);
                e[2] = a->state.version;
                e[3] = entry_flags(rec, a->id);
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
static bool entry_decode(const TaskAttr *a, uint8_t flags, const uint8_t *p, size_t n,
                         StateRecord *rec)
{
        const uint8_t *part;
        size_t off = 0, len;
        uint32_t bit = SETTING_BIT(a->id);
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
            (!task_attr_valid(a, &s) || (a->state.setting_ok && !a->state.setting_ok(&s))))
                return false;
        memcpy((uint8_t *)&rec->settings + a->field.offset, part, len);
        if (!part_next(p, n, &off, &part, &len) || !part_get(a, part, len, &rec->claim.orig) ||
            !part_next(p, n, &off, &part, &len) || !part_get(a, part, len, &rec->claim.expected) ||
            off != n)
                return false;
        rec->claim.applied_mask |= flags & STATE_ENTRY_APPLIED ? bit : 0;
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
                const TaskAttr *a;
                uint16_t tag, n;

                if (len - off < STATE_ENTRY_HEADER)
                        return false;
                memcpy(&tag, buf + off, 2);
                memcpy(&n, buf + off + 4, 2);
                if (n > len - off - STATE_ENTRY_HEADER)
                        return false;
                a = attr_by_tag(tag);
                if (!a || a->state.version != buf[off + 2])
                        (*ret_skipped)++;
                else if ((seen & SETTING_BIT(a->id)) ||
                         !entry_decode(a, buf[off + 3], buf + off + STATE_ENTRY_HEADER, n, rec))
                        return false;
                else
                        seen |= SETTING_BIT(a->id);
                off += STATE_ENTRY_HEADER + n;
        }
        return true;
}
