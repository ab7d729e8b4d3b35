#!/usr/bin/env bash
# On a kernel without EEVDF (Debian 12's 6.1), LatencyNice= and Slice= do
# nothing: latnicectl kernel and status say so, decided from the kernel
# probe's findings (latniced's for status). This machine has EEVDF, so the
# probe is shown such a kernel by ln-no-eevdf (sched_setattr fails, as the
# probe's calls find on 6.1); the real kernel's answer is checked too (root).
#   $1 build root  $2 source root
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$1" "$2"
NOEEVDF=$BUILD/tests/helpers/ln-no-eevdf
[ -x "$NOEEVDF" ] || fail "$NOEEVDF was not built"

# one line of text: the note is wrapped to the terminal
oneline() { tr -s ' \n' '  ' <"$1"; }
NOTE="this kernel has no EEVDF (Linux 6.6 and later have it; Debian 12's 6.1 has not): LatencyNice= and Slice= do nothing here; only Nice=, Policy=idle (SCHED_IDLE) and the group settings (CPUWeight=, CPUIdle=) act on the CPU"

# ---- this kernel: a note exactly when the probe finds no EEVDF slice ---------
"$LATNICECTL" --json kernel >"$TMP/k.json"
"$LATNICECTL" kernel >"$TMP/k.txt"
"$PY" - "$TMP/k.json" "$TMP/k.txt" <<'PYEOF' || fail "the note disagrees with the probe: $(cat "$TMP/k.txt")"
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
if d["eevdf_slice"]:
    assert d["latency_note"] is None and "Note:" not in text, d["latency_note"]
else:
    assert d["latency_note"] and "Note:" in text, d
PYEOF
echo "ok - latnicectl kernel on this kernel ($(uname -r))"

# ---- a kernel without EEVDF, as the probe sees it -----------------------------
"$NOEEVDF" "$LATNICECTL" --json kernel >"$TMP/k.json"
"$PY" - "$TMP/k.json" "$NOTE" <<'PYEOF' || fail "kernel --json without EEVDF: $(cat "$TMP/k.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["eevdf_slice"] is False and d["latency_nice_syscall"] is False, d
assert d["latency_nice_backend"] == "none", d
assert d["latency_note"] == sys.argv[2], d["latency_note"]
PYEOF
"$NOEEVDF" "$LATNICECTL" kernel >"$TMP/k.txt"
grep -q "^Note: *this kernel has no EEVDF" "$TMP/k.txt" || fail "kernel without EEVDF: $(cat "$TMP/k.txt")"
oneline "$TMP/k.txt" | grep -qF "Note: $NOTE" || fail "kernel: the note is cut: $(cat "$TMP/k.txt")"
"$PY" -c 'import sys
bad = [l for l in open(sys.argv[1]).read().splitlines() if len(l) > 80]
sys.exit(f"wider than 80 columns: {bad}" if bad else 0)' "$TMP/k.txt" || fail "kernel: the note is too wide"
echo "ok - latnicectl kernel says that LatencyNice= and Slice= do nothing without EEVDF"

# ---- status: what latniced's own probe found -----------------------------------
dbus_start_bus
cat >"$TMP/latniced-no-eevdf" <<W
#!/bin/sh
exec "$NOEEVDF" "$LATNICED" "\$@"
W
chmod 755 "$TMP/latniced-no-eevdf"
REAL_LATNICED=$LATNICED
LATNICED=$TMP/latniced-no-eevdf
dbus_start_daemon
# the CLI itself runs on the real kernel: the note comes from latniced
ctl status >"$TMP/status.txt"
grep -q "^latniced .*running since" "$TMP/status.txt" || fail "status: $(cat "$TMP/status.txt")"
oneline "$TMP/status.txt" | grep -qF "Note: $NOTE" || fail "status without EEVDF: $(cat "$TMP/status.txt")"
kill "$DAEMON_PID"
wait "$DAEMON_PID" || true
DAEMON_PID=
LATNICED=$REAL_LATNICED
echo "ok - latnicectl status says so from latniced's probe"

# and on this kernel, a latniced that found EEVDF: no note
if "$PY" -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["eevdf_slice"] else 1)' \
        <("$LATNICECTL" --json kernel); then
        dbus_start_daemon
        "$NOEEVDF" "$LATNICECTL" --bus "$ADDR" status >"$TMP/status.txt"
        grep -q "Note:" "$TMP/status.txt" && fail "status with EEVDF has a note: $(cat "$TMP/status.txt")"
        echo "ok - no note from a latniced that found EEVDF"
fi
echo "PASS"
