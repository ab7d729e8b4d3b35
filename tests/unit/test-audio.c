/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/desktop/audio-props.c (the PipeWire properties of
 * nodes and clients) and daemon/desktop/audio.c (the audio store). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/desktop/audio.h"
#include "test-util.h"

static void test_number(void)
{
        uint32_t v = 7;

        check(audio_parse_number("0", 10, &v) == 0 && v == 0);
        check(audio_parse_number("57", 100, &v) == 0 && v == 57);
        check(audio_parse_number("4194304", AUDIO_PID_MAX, &v) == 0 && v == 4194304);
        v = 7;
        check(audio_parse_number("4194305", AUDIO_PID_MAX, &v) == -EINVAL && v == 7);
        check(audio_parse_number("", 10, &v) == -EINVAL);
        check(audio_parse_number(NULL, 10, &v) == -EINVAL);
        check(audio_parse_number("-1", 10, &v) == -EINVAL);
        check(audio_parse_number("+1", 10, &v) == -EINVAL);
        check(audio_parse_number(" 1", 10, &v) == -EINVAL);
        check(audio_parse_number("1 ", 10, &v) == -EINVAL);
        check(audio_parse_number("0x10", 100, &v) == -EINVAL);
        check(audio_parse_number("99999999999", UINT32_MAX, &v) == -EINVAL);
        check(audio_parse_number("4294967295", UINT32_MAX, &v) == 0 && v == UINT32_MAX);
        check(audio_parse_number("4294967296", UINT32_MAX, &v) == -EINVAL);
        check(v == UINT32_MAX);
}

static void test_props(void)
{
        AudioProps p = {};

        check(audio_props_add(&p, "media.class", "Stream/Output/Audio") == 1);
        check(p.kind == AUDIO_STREAM_OUTPUT);
        check(audio_props_add(&p, "media.class", "Stream/Input/Audio") == 1);
        check(p.kind == AUDIO_STREAM_INPUT);
        check(audio_props_add(&p, "media.class", "Audio/Sink") == 1);
        check(p.kind == AUDIO_STREAM_NONE);
        check(audio_props_add(&p, "media.class", "Stream/Output/Video") == 1);
        check(p.kind == AUDIO_STREAM_NONE);
        check(audio_props_add(&p, "client.id", "38") == 1 && p.has_client_id && p.client_id == 38);
        check(audio_props_add(&p, "pipewire.sec.pid", "812") == 1 && p.sec_pid == 812);
        check(audio_props_add(&p, "application.process.id", "900") == 1 && p.app_pid == 900);
        check(audio_props_add(&p, "client.api", "pipewire-pulse") == 1 && p.pulse);
        check(audio_props_add(&p, "client.api", "native") == 1 && !p.pulse);
        check(audio_props_add(&p, "node.name", "x") == 0);
        check(audio_props_add(&p, NULL, "x") == 0 && audio_props_add(&p, "client.id", NULL) == 0);
        check(p.why == NULL);
        /* a bad value keeps the field and says why, naming the key */
        check(audio_props_add(&p, "pipewire.sec.pid", "0") == -EINVAL && p.sec_pid == 812);
        check(p.why && strcmp(p.why_key, "pipewire.sec.pid") == 0);
        check(audio_props_add(&p, "application.process.id", "-5") == -EINVAL && p.app_pid == 900);
        check(audio_props_add(&p, "application.process.id", "5000000") == -EINVAL);
        check(audio_props_add(&p, "client.id", "4294967295") == -EINVAL && p.client_id == 38);
        check(strcmp(audio_stream_kind_to_string(AUDIO_STREAM_INPUT), "input") == 0);
        check(audio_stream_kind_to_string(AUDIO_STREAM_NONE) == NULL);
}

static void test_store(void)
{
        AudioStore *s = NULL;
        pid_t old, *pids = NULL;
        size_t n = 0;
        AudioFact f;
        char *text = NULL;

        check(audio_store_new(&s) == 0);
        check(audio_store_lookup(s, 1000, 42).state == AUDIO_UNKNOWN);
        check(audio_store_set_node(s, 1000, 57, 42, AUDIO_STREAM_OUTPUT, true, 5, &old) ==
              -ENOENT);
        check(audio_store_add_user(s, 1000) == 0 && audio_store_add_user(s, 1000) == 0);
        check(audio_store_following(s, 1000) && !audio_store_following(s, 1001));
        check(audio_store_lookup(s, 1000, 42).state == AUDIO_NO);
        /* not running: no change of what plays */
        check(audio_store_set_node(s, 1000, 57, 42, AUDIO_STREAM_OUTPUT, false, 5, &old) == 0);
        check(old == 0 && audio_store_lookup(s, 1000, 42).state == AUDIO_NO);
        check(audio_store_set_node(s, 1000, 57, 42, AUDIO_STREAM_OUTPUT, true, 7, &old) == 1);
        f = audio_store_lookup(s, 1000, 42);
        check(f.state == AUDIO_PLAYING && f.node == 57 && f.since_usec == 7 && f.n_running == 1);
        check(audio_store_set_node(s, 1000, 57, 42, AUDIO_STREAM_OUTPUT, true, 9, &old) == 0);
        check(audio_store_lookup(s, 1000, 42).since_usec == 7);
        /* a second node of the same process: it plays on when one stops */
        check(audio_store_set_node(s, 1000, 60, 42, AUDIO_STREAM_INPUT, true, 9, &old) == 0);
        check(audio_store_lookup(s, 1000, 42).n_running == 2);
        check(audio_store_set_node(s, 1000, 57, 42, AUDIO_STREAM_OUTPUT, false, 9, &old) == 0);
        f = audio_store_lookup(s, 1000, 42);
        check(f.state == AUDIO_PLAYING && f.node == 60 && f.kind == AUDIO_STREAM_INPUT);
        check(audio_fact_format(&f, 10, 10000000, &text) == 0);
        check(strstr(text, "recording audio through PipeWire node 60 since ") != NULL);
        free(text);
        check(audio_store_drop_node(s, 1000, 60, &old) == 1 && old == 42);
        check(audio_store_lookup(s, 1000, 42).state == AUDIO_NO);
        check(audio_store_drop_node(s, 1000, 60, &old) == 0 && old == 0);
        /* the node's process named again: both change */
        check(audio_store_set_node(s, 1000, 57, 42, AUDIO_STREAM_OUTPUT, true, 11, &old) == 1);
        check(audio_store_set_node(s, 1000, 57, 43, AUDIO_STREAM_OUTPUT, true, 12, &old) == 1);
        check(old == 42 && audio_store_lookup(s, 1000, 42).state == AUDIO_NO);
        f = audio_store_lookup(s, 1000, 43);
        check(f.state == AUDIO_PLAYING && f.since_usec == 12);
        check(audio_fact_format(&f, 12, 10000000, &text) == 0);
        check(strstr(text, "playing audio through PipeWire node 57 since ") == text);
        free(text);
        /* another user's store does not say anything of 43 */
        check(audio_store_lookup(s, 1001, 43).state == AUDIO_UNKNOWN);
        /* bounds: nodes per user, users */
        for (uint32_t i = 0; i < AUDIO_NODES_MAX - 1; i++)
                check(audio_store_set_node(s, 1000, 1000 + i, 0, AUDIO_STREAM_OUTPUT, false, 1,
                                           &old) == 0);
        check(audio_store_n_nodes(s, 1000) == AUDIO_NODES_MAX);
        check(audio_store_set_node(s, 1000, 5000, 44, AUDIO_STREAM_OUTPUT, true, 1, &old) ==
              -ENOSPC);
        for (uid_t u = 2000; u < 2000 + AUDIO_USERS_MAX - 1; u++)
                check(audio_store_add_user(s, u) == 0);
        check(audio_store_add_user(s, 9999) == -ENOSPC);
        /* a user dropped: the processes that played, to evaluate again */
        check(audio_store_drop_user(s, 1000, &pids, &n) == 0 && n == 1 && pids[0] == 43);
        free(pids);
        check(audio_store_lookup(s, 1000, 43).state == AUDIO_UNKNOWN);
        f = audio_store_lookup(s, 2000, 1);
        check(audio_fact_format(&f, 0, 0, &text) == 0);
        check(strcmp(text, "no audio stream running (uid 2000's PipeWire is followed)") == 0);
        free(text);
        check(strcmp(audio_state_to_string(AUDIO_PLAYING), "playing") == 0);
        check(strcmp(audio_state_to_string(AUDIO_NO), "no") == 0);
        check(audio_state_to_string(AUDIO_UNKNOWN) == NULL);
        audio_store_free(s);
}

int main(void)
{
        test_number();
        test_props();
        test_store();
        return test_result();
}
