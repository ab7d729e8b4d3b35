#!/usr/bin/env bash
# IOClass=, IONice= and OOMScoreAdj= reach the kernel and come back like every
# other attribute. Every check reads the kernel: ionice -p (ioprio_get) per
# thread and /proc/PID/oom_score_adj, never latniced.
#   1. applied to every thread (the I/O priority) and to the process
#      (oom_score_adj, through the main thread)
#   2. a change by someone else (ionice, a write to oom_score_adj) is theirs:
#      kept on reload and on exit, the rest restored
#   3. a rule removed on reload: originals back
#   4. kill -9, restart with the state file, stop: originals back
#   5. bad values: the file is rejected, naming file:line:column and the range
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
command -v ionice >/dev/null || { echo "SKIP: ionice (util-linux) not installed"; exit 77; }

STATE=$T/tasks.state

io_of() { ionice -p "$1" 2>/dev/null; }
oom_of() { cat "/proc/$1/oom_score_adj" 2>/dev/null; }
io_is() { [ "$(io_of "$1")" = "$2" ]; }
oom_is() { [ "$(oom_of "$1")" = "$2" ]; }

cat >"$POL/10-io.policy" <<'P'
[Rule lnio]
Match = comm:lnio
IOClass = idle
OOMScoreAdj = 300

[Rule lnbe]
Match = comm:lnbe
IOClass = best-effort
IONice = 7
P

# ---- 1. applied
spawn --comm lnio --threads 2
io=("${SPAWNED_TIDS[@]}")
spawn --comm lnbe
be=$SPAWNED_PID
io_is "${io[0]}" "none: prio 0" || fail "lnio does not start without an I/O class: $(io_of "${io[0]}")"
oom_is "${io[0]}" 0 || fail "lnio does not start at oom_score_adj 0"
start_daemon --state-file "$STATE"
for t in "${io[@]}"; do
        wait_until 5 io_is "$t" idle || fail "1: IOClass=idle not applied to $t: $(io_of "$t")"
done
wait_until 5 oom_is "${io[0]}" 300 || fail "1: OOMScoreAdj=300 not applied: $(oom_of "${io[0]}")"
wait_until 5 io_is "$be" "best-effort: prio 7" || fail "1: IONice=7 not applied: $(io_of "$be")"
echo "ok 1: idle on ${#io[@]} threads, oom_score_adj 300, best-effort 7"

# ---- 2. someone else's change is theirs; the rest is restored on exit
ionice -c2 -n0 -p "${io[1]}" || fail "ionice"
echo 100 >"/proc/$be/oom_score_adj"   # not latniced's: it never set it
reload_daemon
io_is "${io[1]}" "best-effort: prio 0" || fail "2: latniced undid ionice on reload: $(io_of "${io[1]}")"
stop_daemon TERM || fail "2: latniced did not exit 0"
io_is "${io[0]}" "none: prio 0" || fail "2: main thread not restored: $(io_of "${io[0]}")"
io_is "${io[2]}" "none: prio 0" || fail "2: thread 2 not restored: $(io_of "${io[2]}")"
io_is "${io[1]}" "best-effort: prio 0" || fail "2: ionice's change was restored over: $(io_of "${io[1]}")"
oom_is "${io[0]}" 0 || fail "2: oom_score_adj not restored: $(oom_of "${io[0]}")"
io_is "$be" "none: prio 0" || fail "2: lnbe's I/O priority not restored: $(io_of "$be")"
oom_is "$be" 100 || fail "2: lnbe's oom_score_adj changed: $(oom_of "$be")"
echo "ok 2: ionice's change kept, the others restored on exit"

# ---- 3. rule removed on reload
echo 0 >"/proc/$be/oom_score_adj"
start_daemon --state-file "$STATE"
wait_until 5 oom_is "${io[0]}" 300 || fail "3: OOMScoreAdj=300 not applied again"
wait_until 5 io_is "${io[0]}" idle || fail "3: IOClass=idle not applied again"
sed -i '/^\[Rule lnio\]/,/^$/d' "$POL/10-io.policy"
reload_daemon
wait_until 5 oom_is "${io[0]}" 0 || fail "3: oom_score_adj not restored on reload: $(oom_of "${io[0]}")"
wait_until 5 io_is "${io[0]}" "none: prio 0" || fail "3: ioprio not restored on reload: $(io_of "${io[0]}")"
io_is "$be" "best-effort: prio 7" || fail "3: lnbe lost its rule"
echo "ok 3: rule removed on reload: originals back, the other rule stays"

# ---- 4. SIGKILL, restart, stop
kill -KILL "$DAEMON"; wait "$DAEMON" 2>/dev/null; DAEMON=
io_is "$be" "best-effort: prio 7" || fail "4: SIGKILL restored something (it cannot)"
cat >>"$POL/10-io.policy" <<'P'

[Rule lnio]
Match = comm:lnio
OOMScoreAdj = 500
P
start_daemon --state-file "$STATE"
grep -q "adopted" "$LOG" || fail "4: the second latniced adopted nothing"
wait_until 5 oom_is "${io[0]}" 500 || fail "4: OOMScoreAdj=500 not applied"
kill -KILL "$DAEMON"; wait "$DAEMON" 2>/dev/null; DAEMON=
start_daemon --state-file "$STATE"
stop_daemon TERM || fail "4: latniced did not exit 0"
io_is "$be" "none: prio 0" || fail "4: after kill -9, restart, stop: $(io_of "$be")"
oom_is "${io[0]}" 0 || fail "4: after kill -9, restart, stop: oom_score_adj $(oom_of "${io[0]}")"
for t in "${io[@]}"; do
        [ "$t" = "${io[1]}" ] && continue
        io_is "$t" "none: prio 0" || fail "4: $t: $(io_of "$t")"
done
echo "ok 4: kill -9, restart, stop: I/O priority and oom_score_adj back"

# ---- 5. bad values
cat >"$POL/20-bad.policy" <<'P'
[Rule bad]
Match = comm:lnbad
IONice = 9
P
start_daemon
grep -q "20-bad.policy:3:10: .*expected an integer in 0..7, found \"9\"" "$LOG" ||
        fail "5: IONice=9 not reported with file:line:column: $(grep -i bad "$LOG" | head -3)"
stop_daemon TERM
printf '[Rule bad]\nMatch = comm:lnbad\nIOClass = none\n' >"$POL/20-bad.policy"
start_daemon
grep -q "20-bad.policy:3:11: .*expected realtime, best-effort or idle, found \"none\"" "$LOG" ||
        fail "5: IOClass=none not reported: $(grep -i bad "$LOG" | head -3)"
stop_daemon TERM
printf '[Rule bad]\nMatch = comm:lnbad\nOOMScoreAdj = -1001\n' >"$POL/20-bad.policy"
start_daemon
grep -q "20-bad.policy:3:15: .*expected an integer in -1000..1000, found \"-1001\"" "$LOG" ||
        fail "5: OOMScoreAdj=-1001 not reported: $(grep -i bad "$LOG" | head -3)"
stop_daemon TERM
echo "ok 5: bad values named with file:line:column"
