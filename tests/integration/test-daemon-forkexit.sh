#!/usr/bin/env bash
# A process that forks and exits before latniced has read it does not take
# its child out of the policy. An unprivileged user (nobody) runs a storm of
# processes nothing matches, which latniced then reads in batches (every
# 2 ms, see latniced(8)), and meanwhile, 30 times, a program a rule demotes
# (Nice=7) that forks at once and exits: its exec is read together with its
# exit, or after its fork, and the child, which never calls exec, must
# still get the rule's settings (the kernel's nice value, ln-getattr).
#   $4: ln-storm, $5: ln-forkexit
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
STORM=${4:?ln-storm path}
FORKEXIT=${5:?ln-forkexit path}
ROUNDS=30

cat >"$POL/50-forkexit.policy" <<'P'
[Rule demoted]
Match = name:lt-forkexit-*
Nice = 7
P
mkdir "$T/bin"
cp "$FORKEXIT" "$T/bin/lt-forkexit-x"
chmod 755 "$T" "$T/bin" "$T/bin/lt-forkexit-x"

start_daemon --log-level info

"${NOBODY[@]}" "$STORM" 100000000 2 >/dev/null &
storm=$!
PIDS+=("$storm")
sleep 0.5

kids=$T/kids
: >"$kids"
for _ in $(seq $ROUNDS); do
        "${NOBODY[@]}" "$T/bin/lt-forkexit-x" >>"$kids" || fail "lt-forkexit-x failed"
        sleep 0.05
done
wait_until 5 eval '[ "$(grep -c "^child=" "$kids")" -eq '$ROUNDS' ]' || fail "not every child started"
kill "$storm"
for c in $(sed -n 's/^child=\([0-9]*\).*/\1/p' "$kids"); do
        PIDS+=("$c")
done

all_demoted() {
        local c
        for c in $(sed -n 's/^child=\([0-9]*\).*/\1/p' "$kids"); do
                attr_is "$c" nice 7 || return 1
        done
}
# Wait for latniced to have read every event up to now, however long a
# loaded machine makes it: a process the rule matches, started after every
# child, is the barrier (events are handed on in the order they happened).
# Its bound only guards against a stall; the time it takes is reported.
cp "$SPAWN" "$T/bin/lt-forkexit-mark"
: >"$T/mark"
"${NOBODY[@]}" "$T/bin/lt-forkexit-mark" >"$T/mark" &
PIDS+=($!)
mark=$!
t0=$(now_ms)
wait_until 30 attr_is "$mark" nice 7 ||
        fail "latniced did not apply the rule to a process started after the children ($(( ($(now_ms) - t0) / 1000 )) s): stalled"
echo "latniced caught up $(($(now_ms) - t0)) ms after the storm ended"
# An evaluation latniced put off (a command line read that took over its
# timeout, or its user's reads held off after that: common on a loaded
# machine, where the reader waits for a CPU) is done again by a rescan,
# which latniced starts no sooner than 10 times the last rescan's duration
# after that one (latniced(8)); a rescan under load took 6 s, so the child
# came 60 s later, past a fixed 25 s wait. So the wait follows latniced:
# 5 s, or 10 times the longest rescan so far plus 5 s, from each rescan
# seen, times the slack; it ends when every child is demoted.
rescan_ms() { # the longest rescan so far, in ms
        sed -n 's/^<[0-9]>Rescanned processes .* in \([0-9]*\) us: .*/\1/p' "$LOG" |
                sort -n | tail -n 1 | awk '{ print int($1 / 1000) } END { if (NR == 0) print 0 }'
}
wait_demoted() {
        local seen=-1 n end=0 e
        while ! all_demoted; do
                n=$(grep -c '^<[0-9]>Rescanned processes' "$LOG")
                if [ "$n" != "$seen" ]; then
                        seen=$n
                        e=$(($(now_ms) + (10 * $(rescan_ms) + 5000) * ${LATNICE_TEST_SLACK:-5}))
                        [ "$e" -gt "$end" ] && end=$e
                fi
                [ "$(now_ms)" -ge "$end" ] && return 1
                sleep 0.1
        done
}
t0=$(now_ms)
wait_demoted
echo "every child demoted $(($(now_ms) - t0)) ms after that (longest rescan $(rescan_ms) ms," \
        "$(grep -c '^<[0-9]>Rescanned processes' "$LOG") rescan(s))"
escaped=0
for c in $(sed -n 's/^child=\([0-9]*\).*/\1/p' "$kids"); do
        [ "$(stat -c %u "/proc/$c")" = 65534 ] || fail "child $c does not run as nobody"
        attr_is "$c" nice 7 && continue
        escaped=$((escaped + 1))
        parent=$(sed -n "s/^child=$c parent=//p" "$kids")
        echo "child $c of $parent: nice $(attr "$c" nice); latniced's lines of either:"
        grep -E "(^|[^0-9])($c|$parent)([^0-9]|\$)" "$LOG" | head -n 20
done
[ $escaped -eq 0 ] || grep -E "not evaluated|Rescanned" "$LOG"
[ $escaped -eq 0 ] || fail "$escaped of $ROUNDS children kept nice 0 (their parent forked and exited before latniced read it)"
stop_daemon || fail "exit status"
echo "PASS"
