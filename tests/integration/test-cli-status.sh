#!/usr/bin/env bash
# latnicectl status when latniced runs without its D-Bus API (latniced --bus
# none): it says that latniced runs, with its pid, not that it is not
# running; the other verbs that need the bus say why they cannot work. A
# process named latniced that another user runs is not taken for it (root).
#   $1 latniced  $2 ln-spawn  $3 ln-getattr  $4 latnicectl  $5 ln-no-eevdf
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
LATNICECTL=${4:?latnicectl path}
NOEEVDF=${5:?ln-no-eevdf path}

# No system bus, or one without latniced on it: either way latniced is not
# there to ask. (A bus named with --bus is asked about that bus alone:
# test-dbus-policy.)
cat >"$POL/50-test.policy" <<'P'
[Rule nothing]
Match = name:nothing-at-all
Nice = 1
P
start_daemon

# a decoy: a process named latniced of another user
cp /bin/sleep "$T/latniced"
chmod 755 "$T" "$T/latniced"
"${NOBODY[@]}" "$T/latniced" 60 &
DECOY=$!
PIDS+=("$DECOY")
wait_until 5 grep -qx latniced "/proc/$DECOY/comm" || fail "the decoy did not start"

rc=0
"$LATNICECTL" --no-pager status >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" -eq 0 ] || fail "status with latniced off the bus: exit $rc: $(cat "$T/out" "$T/err")"
grep -q "^latniced runs without its D-Bus API (pid $DAEMON, started with --bus none), running since " \
        "$T/out" || fail "status does not name latniced $DAEMON: $(cat "$T/out" "$T/err")"
grep -q "not running" "$T/out" "$T/err" && fail "status says not running: $(cat "$T/out" "$T/err")"
grep -q "pid $DECOY" "$T/out" && fail "status took nobody's 'latniced' for latniced: $(cat "$T/out")"

rc=0
"$LATNICECTL" --json=short status >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" -eq 0 ] || fail "status --json: exit $rc: $(cat "$T/err")"
/usr/bin/python3 -c 'import json, sys, time
d = json.load(open(sys.argv[1]))
assert d["running"] is True and d["on_bus"] is False, d
p = {x["pid"]: x for x in d["processes"]}
me = p[int(sys.argv[2])]
assert me["bus"] == "none", me
assert abs(me["start_timestamp"] / 1e6 - time.time()) < 3600, me
assert int(sys.argv[3]) not in p, d' "$T/out" "$DAEMON" "$DECOY" ||
        fail "status --json: $(cat "$T/out")"

# on a kernel without EEVDF (as ln-no-eevdf shows it to the probe): the note,
# from latnicectl's own probe as latniced cannot be asked
"$NOEEVDF" "$LATNICECTL" status >"$T/out" 2>"$T/err" || fail "status without EEVDF: $(cat "$T/err")"
tr -s ' \n' '  ' <"$T/out" | grep -q "Note: this kernel has no EEVDF .* LatencyNice= and Slice= do nothing here" ||
        fail "status off the bus without EEVDF: no note: $(cat "$T/out")"
"$LATNICECTL" status >"$T/out" 2>"$T/err"
kernel_json=$("$LATNICECTL" --json kernel) || fail "latnicectl --json kernel failed"
if grep -q '"eevdf_slice": true' <<<"$kernel_json"; then
        grep -q "Note:" "$T/out" && fail "status with EEVDF has a note: $(cat "$T/out")"
fi

for verb in list reload monitor; do
        rc=0
        "$LATNICECTL" "$verb" >"$T/out" 2>"$T/err" || rc=$?
        [ "$rc" -eq 1 ] || fail "$verb with latniced off the bus: exit $rc"
        grep -qx "latnicectl: latniced runs without its D-Bus API (pid $DAEMON, started with --bus none): this command needs latniced on the system bus" \
                "$T/err" || fail "$verb: $(cat "$T/err")"
done

# set applies directly, as without latniced, and says why it did not ask it
sleep 60 &
SLEEPER=$!
PIDS+=("$SLEEPER")
rc=0
"$LATNICECTL" set "$SLEEPER" Nice=3 >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" -eq 0 ] || fail "set with latniced off the bus: exit $rc: $(cat "$T/err")"
grep -qx "latnicectl: latniced runs without its D-Bus API (pid $DAEMON, started with --bus none): set cannot ask it" \
        "$T/err" || fail "set: latniced not named: $(cat "$T/err")"
grep -qx "latnicectl: warning: latniced is not on the system bus: applied to process $SLEEPER directly; nothing will restore its previous values" \
        "$T/err" || fail "set: $(cat "$T/err")"
[ "$(attr "$SLEEPER" nice)" = 3 ] || fail "set with latniced off the bus: nice is $(attr "$SLEEPER" nice)"

echo "PASS"
