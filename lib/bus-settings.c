/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/bus-settings.h"
#include "lib/macro.h"

int bus_open_entry(sd_bus_message *m, const char *key, const char *type)
{
        int r;

        r = sd_bus_message_open_container(m, 'e', "sv");
        if (r < 0)
                return r;
        r = sd_bus_message_append_basic(m, 's', key);
        if (r < 0)
                return r;
        return sd_bus_message_open_container(m, 'v', type);
}

int bus_close_entry(sd_bus_message *m)
{
        int r;

        r = sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(m);
}

static int append_setting(sd_bus_message *m, const Settings *s, SettingId id)
{
        _cleanup_(setting_bus_value_done) SettingBusValue v = {};
        int r;

        r = setting_to_bus_value(s, id, &v);
        if (r < 0)
                return r;
        r = bus_open_entry(m, setting_to_string(id), (const char[]){ v.type, '\0' });
        if (r < 0)
                return r;
        /* a string is passed as itself, every other type by address */
        r = sd_bus_message_append_basic(m, v.type, v.type == 's' ? (const void *) v.s : &v.t);
        if (r < 0)
                return r;
        return bus_close_entry(m);
}

int bus_append_settings(sd_bus_message *m, const Settings *s)
{
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                if (!settings_has(s, id))
                        continue;
                r = append_setting(m, s, id);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}
