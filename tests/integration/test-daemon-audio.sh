#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Audio streams (issue 31) under the real latniced with a REAL PipeWire and
# WirePlumber, run as nobody in a runtime directory of the test's own
# (--user-runtime-dir), with a null sink:
#   audio-stream            pw-play of a generated wav gets the rule
#                           "audio:playing" (Nice 3) while its stream runs,
#                           and it is given back (nice 0) when the stream
#                           stops (its links destroyed, pw-play alive); a
#                           pw-play whose stream never runs (--target 0) is
#                           never touched;
#   audio-pipewire-restart  PipeWire stopped and started again: latniced
#                           connects again, and a new stream gets the rule.
# latniced starts before nobody's runtime directory and PipeWire exist, so
# both are found by inotify. On a private system-like bus, latnicectl
# explain names the live fact ("playing audio through PipeWire node N")
# and latnicectl monitor shows the stream start and stop (AudioStream). Every result is read from the kernel
# (ln-getattr); latniced's log is only waited on. Skips (77) if PipeWire or
# WirePlumber cannot be started here, or latniced was built without it.
#   test-daemon-audio.sh LATNICED LN-SPAWN LN-GETATTR LATNICECTL SOURCE_ROOT
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
LATNICECTL=${4:?latnicectl}
SRC=${5:?source root}

for t in pipewire wireplumber pw-play pw-cli dbus-daemon python3; do
        command -v "$t" >/dev/null || { echo "SKIP: $t is not installed"; exit 77; }
done

RUN=$T/run
XDG=$RUN/65534
H=$T/home
mkdir -p "$RUN" "$H"
chmod 0755 "$T" "$RUN"
chown 65534:65534 "$H"
USERPIDS=()
audio_cleanup() {
        local p
        for p in "${USERPIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
        cleanup
}
trap audio_cleanup EXIT

# "${AS_USER[@]}" CMD...: CMD as nobody in nobody's session (its own
# runtime directory, home and session bus); an array, so that CMD & gives
# CMD's own pid.
AS_USER=("${NOBODY[@]}" env -i PATH=/usr/bin:/bin HOME="$H" XDG_RUNTIME_DIR="$XDG"
        XDG_CONFIG_HOME="$H/.config" XDG_STATE_HOME="$H/.state"
        DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG/bus")

python3 - "$T/tone.wav" <<'PY'
import math, struct, sys, wave
w = wave.open(sys.argv[1], "wb")
w.setnchannels(1); w.setsampwidth(2); w.setframerate(48000)
w.writeframes(b"".join(struct.pack("<h", int(2000 * math.sin(i / 8))) for i in range(48000 * 600)))
PY
chmod 0644 "$T/tone.wav"

cat >"$POL/50-audio.policy" <<'P'
[Rule audio-playing]
Match = name:pw-play && audio:playing
Nice = 3
P

# a private bus like the system bus, with latniced's real bus policy
dbus-daemon --config-file="$SRC/tests/integration/dbus-system.conf" \
        --address="unix:path=$T/bus" --nofork --nopidfile >"$T/bus.log" 2>&1 &
USERPIDS+=($!)
ADDR=unix:path=$T/bus
wait_until 10 [ -S "$T/bus" ] || fail "the private bus did not start"
ctl() {
        "$LATNICECTL" --bus "$ADDR" "$@"
}

start_daemon --user-runtime-dir "$RUN" --bus "$ADDR"
wait_until 10 ctl status -q >/dev/null 2>&1 || fail "latniced does not answer on $ADDR"
# latnicectl itself, not the ctl function: killing a function's subshell
# would leave latnicectl running.
"$LATNICECTL" --bus "$ADDR" monitor >"$T/monitor" 2>&1 &
USERPIDS+=($!)
wait_until 10 grep -q "AudioStream" "$T/monitor" || fail "latnicectl monitor did not start"
if grep -q "Built without libpipewire" "$LOG"; then
        echo "SKIP: latniced was built without libpipewire (-Dpipewire)"
        exit 77
fi

# Without PipeWire's protocol module (Debian packs it apart from the
# library, in libpipewire-0.3-modules), a second latniced says which
# package it needs, and runs on.
mkdir "$T/no-modules"
PIPEWIRE_MODULE_DIR=$T/no-modules setpriv --pdeathsig TERM -- "$LATNICED" --foreground \
        --bus none --config "$CONF" --policy-dir "$POL" --state-file "$T/nomod.state" \
        --user-runtime-dir "$RUN" 2>"$T/nomod.log" &
nomod=$!
wait_until 60 grep -q "Ready:" "$T/nomod.log" || fail "latniced without the module did not start"
kill "$nomod"
wait "$nomod" || fail "latniced without the module: exit status $?"
grep -q "libpipewire-0.3-modules" "$T/nomod.log" ||
        fail "no word of libpipewire-0.3-modules without the module: $(grep -i pipewire "$T/nomod.log")"

# nobody logs in: its runtime directory appears (inotify on $RUN)
mkdir -m 0700 "$XDG"
chown 65534:65534 "$XDG"

# start_pipewire: nobody's session bus, PipeWire, WirePlumber and a null
# sink; skip if PipeWire cannot be started here.
start_pipewire() {
        local p
        [ -S "$XDG/bus" ] || {
                "${AS_USER[@]}" dbus-daemon --session --address="unix:path=$XDG/bus" --nofork \
                        --nopidfile >"$T/dbus.log" 2>&1 &
                USERPIDS+=($!)
        }
        "${AS_USER[@]}" pipewire >"$T/pipewire.log" 2>&1 &
        PW=$!
        USERPIDS+=("$PW")
        wait_until 10 [ -S "$XDG/pipewire-0" ] || {
                echo "SKIP: PipeWire did not start here:"
                tail -5 "$T/pipewire.log"
                exit 77
        }
        wait_until 10 [ -S "$XDG/bus" ] || fail "nobody's session bus did not start"
        "${AS_USER[@]}" pw-cli create-node adapter '{ factory.name=support.null-audio-sink
                node.name=lnaudio-null media.class=Audio/Sink object.linger=true
                audio.position=[FL FR] }' >/dev/null || fail "cannot create a null sink"
        "${AS_USER[@]}" wireplumber >"$T/wireplumber.log" 2>&1 &
        WP=$!
        USERPIDS+=("$WP")
        # A stream made before WirePlumber has chosen the default sink
        # finds "no node available" and is never linked: wait for the
        # choice, in PipeWire's own "default" metadata.
        wait_until 20 eval '[ "$(pwq default-sink -)" = lnaudio-null ]' || {
                tail -n 20 "$T/wireplumber.log"
                fail "WirePlumber did not choose the null sink as the default"
        }
}

# play [ARGS...]: pw-play of the tone as nobody, in PLAYER
play() {
        "${AS_USER[@]}" pw-play "$@" "$T/tone.wav" >>"$T/play.log" 2>&1 &
        PLAYER=$!
        USERPIDS+=("$PLAYER")
        wait_until 5 eval '[ "$(cat /proc/$PLAYER/comm 2>/dev/null)" = pw-play ]' ||
                { cat "$T/play.log" >&2; fail "pw-play did not start"; }
}

# pwq WHAT PID|NODE|-: from PipeWire's own word (pw-dump): "node" the id
# and state of PID's stream node, "links" the links out of node NODE,
# "default-sink" the name of the default sink WirePlumber chose. pw-dump
# prints the graph again when it changes while it dumps: several JSON
# arrays, of which each object's last word counts.
pwq() {
        "${AS_USER[@]}" pw-dump | python3 -c '
import json, sys
what, arg = sys.argv[1], sys.argv[2]
text, dec, at, byid = sys.stdin.read(), json.JSONDecoder(), 0, {}
while True:
    while at < len(text) and text[at].isspace():
        at += 1
    if at >= len(text):
        break
    dump, at = dec.raw_decode(text, at)
    for o in dump:
        byid[o.get("id")] = o
objects = list(byid.values())
if what == "default-sink":
    for o in objects:
        if (o.get("props") or {}).get("metadata.name") != "default":
            continue
        for m in o.get("metadata") or []:
            if m.get("key") == "default.audio.sink":
                print((m.get("value") or {}).get("name", ""))
    sys.exit(0)
pids = {}  # client id: its pid, as the server set it
for o in objects:
    p = (o.get("info") or {}).get("props") or {}
    if o.get("type", "").endswith(":Client"):
        pids[o["id"]] = str(p.get("pipewire.sec.pid"))
for o in objects:
    i = o.get("info") or {}
    p = i.get("props") or {}
    if what == "node" and str(p.get("media.class", "")).startswith("Stream/") and \
            pids.get(int(p.get("client.id", -1))) == arg:
        print(o["id"], i.get("state"))
    elif what == "links" and o.get("type", "").endswith(":Link") and \
            str(i.get("output-node-id")) == arg:
        print(o["id"])' "$1" "$2"
}
node_of() {
        pwq node "$1" | awk '{ print $1; exit }'
}
node_running() {
        pwq node "$1" | grep -q " running$"
}

start_pipewire
wait_until 10 grep -q "Audio: following uid 65534's PipeWire" "$LOG" ||
        fail "latniced did not connect to nobody's PipeWire when its socket appeared"

# a stream that never runs: not linked (--target 0)
play --target 0
IDLE=$PLAYER
play
wait_until 10 node_running "$PLAYER" || { tail -n 20 "$T/wireplumber.log" "$T/play.log"; "${AS_USER[@]}" pw-cli ls Node; fail "pw-play's stream does not run (WirePlumber?)"; }
wait_until 10 attr_is "$PLAYER" nice 3 ||
        fail "audio-stream: pw-play plays, nice $(attr "$PLAYER" nice), expected 3 (audio:playing)"
echo "ok: audio-stream: pw-play plays through node $(node_of "$PLAYER"): nice 3"
N=$(node_of "$PLAYER")
wait_until 10 grep -q "audio pid $PLAYER: playing audio through PipeWire node $N " "$T/monitor" ||
        fail "audio-stream: latnicectl monitor does not show pw-play's stream start"
echo "ok: audio-stream: monitor: $(grep "audio pid $PLAYER: playing" "$T/monitor" | head -1)"
ctl --policy-dir "$POL" explain "$PLAYER" >"$T/explain" 2>&1 || { cat "$T/explain"; fail "latnicectl explain failed"; }
grep -q "audio: *playing audio through PipeWire node $N since" "$T/explain" &&
        grep -q 'matching rule, the last one "audio-playing"' "$T/explain" ||
        { cat "$T/explain"; fail "audio-stream: explain does not name the live fact and rule"; }
echo "ok: audio-stream: explain: $(grep -o "playing audio through.*" "$T/explain" | head -1)"
attr_is "$IDLE" nice 0 ||
        fail "a pw-play whose stream does not run: nice $(attr "$IDLE" nice), expected 0"
echo "ok: audio-stream: a stream that does not run: nice 0"

# the stream stops (its links destroyed), pw-play lives on
N=$(node_of "$PLAYER")
for l in $(pwq links "$N"); do
        "${AS_USER[@]}" pw-cli destroy "$l" >/dev/null
done
wait_until 10 eval '! node_running $PLAYER' || fail "pw-play's stream did not stop"
wait_until 10 attr_is "$PLAYER" nice 0 ||
        fail "audio-stream: the stream stopped, nice $(attr "$PLAYER" nice), expected 0 (given back)"
[ -e "/proc/$PLAYER" ] || fail "pw-play exited: the stop did not happen while it ran"
wait_until 10 grep -q "audio pid $PLAYER: no audio stream running" "$T/monitor" ||
        fail "audio-stream: latnicectl monitor does not show the stream stop"
echo "ok: audio-stream: the stream stopped, pw-play runs on: nice 0 again"

# PipeWire restarts
kill -TERM "$PW" "$WP" "$PLAYER" "$IDLE"
wait "$PW" "$WP" "$PLAYER" "$IDLE" 2>/dev/null
wait_until 10 grep -q "Audio: uid 65534's PipeWire went away" "$LOG" ||
        fail "audio-pipewire-restart: latniced did not see PipeWire go"
start_pipewire
play
wait_until 10 node_running "$PLAYER" || {
        tail -n 20 "$T/pipewire.log" "$T/wireplumber.log" "$T/play.log"
        fail "pw-play's stream does not run after the restart"
}
wait_until 10 attr_is "$PLAYER" nice 3 ||
        fail "audio-pipewire-restart: nice $(attr "$PLAYER" nice), expected 3"
echo "ok: audio-pipewire-restart: a stream on the new PipeWire: nice 3"
kill -TERM "$PLAYER"
