/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/bus-settings.h"

static int append_entry(sd_bus_message *m, const Settings *s, SettingId id)
{
        SettingBusValue v;
        int r;

        r = setting_to_bus_value(s, id, &v);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(m, 'e', "sv");
        if (r < 0)
                return r;
        r = sd_bus_message_append_basic(m, 's', setting_to_string(id));
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(m, 'v', (const char[]){ v.type, '\0' });
        if (r < 0)
                return r;
        /* a string is passed as itself, every other type by address */
        r = sd_bus_message_append_basic(m, v.type, v.type == 's' ? (const void *) v.s : &v.t);
        if (r < 0)
                return r;
        r = sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(m);
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
                r = append_entry(m, s, id);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}
