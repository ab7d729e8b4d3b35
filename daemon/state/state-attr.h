/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * State file encoding of the task attributes (lib/task-attr.h): one tagged,
 * versioned entry per attribute of a thread record, holding latniced's
 * setting, the thread's original value, the value latniced expects it to
 * have, and who owns it. The tags are the file's, fixed forever (not the
 * SettingId numbers, which may be reordered); an entry whose tag or version
 * this latniced does not know (written by a newer one) is skipped whole,
 * never read as something else. The tag, version and members of each
 * attribute are its descriptor's AttrState (lib/task-attr.c): a new
 * attribute brings its own, and nothing here changes.
 *
 * Entry: u16 tag, u8 version, u8 flags (STATE_ENTRY_*), u16 payload length,
 * then the payload: three parts, each a u8 length and its bytes: the
 * setting (its Settings member, native layout), the original state, the
 * expected state (the attribute's part of a SchedState).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/state/state-file.h"

#define STATE_ENTRY_APPLIED 0x1u /* in applied_mask */
#define STATE_ENTRY_PENDING 0x2u /* in pending_mask */
#define STATE_ENTRY_SET 0x4u     /* in settings.mask */
#define STATE_ENTRY_USER 0x8u    /* owner: the user (SetTask, or changed by someone else) */
#define STATE_ENTRY_HEADER 6u

/* Room the entries of one thread take at most. */
size_t state_attr_max_size(void);

/* REC's entries (every attribute) into BUF (SIZE bytes at least
 * state_attr_max_size()). Returns the bytes written. */
size_t state_attr_encode(const StateRecord *rec, uint8_t *buf, size_t size);

/* The entries in BUF (LEN bytes) into REC (its settings, masks, orig,
 * expected, user_owned; the rest untouched). *RET_SKIPPED counts entries
 * of tags or versions unknown here. False if an entry is cut short, a
 * known one has the wrong size or a value out of range, or a tag comes
 * twice. */
bool state_attr_decode(const uint8_t *buf, size_t len, StateRecord *rec, size_t *ret_skipped);

/* Whether every task attribute has an encoding (for the unit test). */
bool state_attr_complete(void);
