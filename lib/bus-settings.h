/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Settings on D-Bus: the a{sv} of org.latnice.Daemon1(5), one entry per
 * present setting, keys as in policy files, values of setting_bus_type().
 * latniced writes it in Explain replies, latnicectl in SetTask and SetUnit
 * calls; latniced reads it with bus_settings_add() (daemon/bus/bus-util.h).
 */
#pragma once

#include <systemd/sd-bus.h>

#include "lib/settings.h"

/* In an open a{sv} of M: open the entry KEY and its variant of signature
 * TYPE; bus_close_entry() closes both. Negative errno from sd-bus. */
int bus_open_entry(sd_bus_message *m, const char *key, const char *type);
int bus_close_entry(sd_bus_message *m);

/* Append S to M as an a{sv}. Negative errno from sd-bus. */
int bus_append_settings(sd_bus_message *m, const Settings *s);
