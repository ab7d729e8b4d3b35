#!/usr/bin/env bash
# A thread storm as nobody (issue 36, item 6): one process of nobody's,
# named pipewire, creates thousands of threads named data-loop.0 (the
# shipped policy's boosted PipeWire thread rule) and renames each of them
# away and back. Checked, all from the kernel (ln-getattr, /proc):
#   - the storm's threads get what they should: the rule's TimerSlack, and
#     none of its boosts (nobody chose the name: nice 0, no custom slice);
#   - another user's matched processes, started one by one meanwhile, each
#     get their setting;
#   - latniced says "boosts withheld" for the storm's process a handful of
#     times at most, not once per thread;
#   - latniced's own CPU time (utime + stime of /proc/PID/stat) stays below
#     a bound per thread of the storm (a resource count, not a clock window:
#     LATNICE_THREADSTORM_US_PER_THREAD, 1000 us by default; measured on a
#     busy 2-core VM: 240-440 us after the fix, 1,644 us before it, and more
#     with more threads: the cost per thread grew with the count).
#   $4: ln-threadstorm  $5: source root
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
STORM=${4:?ln-threadstorm path}
SRC=${5:?source root}
THREADS=${LATNICE_THREADSTORM_THREADS:-5000}
US_PER_THREAD=${LATNICE_THREADSTORM_US_PER_THREAD:-1000}
KEEPERS=10

# The shipped policy as it is, but for its browser and background rules: on
# a shared machine those would have latniced work for every compiler and
# browser test others run, and count that as the storm's. What is left still
# follows ancestors (60-games: parent:), as the whole does, so every
# evaluation reads the process's stat, whose cost grows with its threads.
for f in 10-profiles 20-audio-video 30-display 40-interactive 60-games; do
        cp "$SRC/policy/default/$f.policy" "$POL/"
done
cat >"$POL/90-keepers.policy" <<'P'
[Rule keeper]
Match = name:lt-ts-keeper-*
Nice = 3
P

cpu_ticks() { # pid: utime + stime in clock ticks
        awk '{ print $14 + $15 }' "/proc/$1/stat"
}

start_daemon --log-level info
c0=$(cpu_ticks "$DAEMON")

out=$T/storm.out
: >"$out"
# argv[0] pipewire: the rule's name: matches, but its user chose it.
"${NOBODY[@]}" bash -c 'exec -a pipewire "$0" "$@"' "$STORM" "$THREADS" data-loop.0 1 >"$out" &
STORM_PID=$!
PIDS+=("$STORM_PID")
wait_until 10 grep -q "^pid=" "$out" || fail "ln-threadstorm did not start"
[ "$(sed -n 's/^pid=//p' "$out")" = "$STORM_PID" ] || fail "ln-threadstorm pid mismatch"
[ "$(stat -c %u "/proc/$STORM_PID")" = 65534 ] || fail "ln-threadstorm does not run as nobody"

# Meanwhile another user's matched processes, one by one: each gets its
# setting (the time it took is printed, not checked). The user is uid 65533,
# not root: on a shared machine root's other processes can have root's
# reads of command lines held off (latniced(8), SECURITY), which is not
# what this test is about.
OTHER=(setpriv --reuid=65533 --regid=65533 --clear-groups --)
lat=()
for ((k = 1; k <= KEEPERS; k++)); do
        t0=$(now_ms)
        kout=$T/keeper.$k
        : >"$kout"
        "${OTHER[@]}" "$SPAWN" --argv0 "lt-ts-keeper-$k" >"$kout" &
        kpid=$!
        PIDS+=("$kpid")
        wait_until 10 grep -q "^pid=" "$kout" || fail "keeper $k did not start"
        wait_until 60 attr_is "$kpid" nice 3 ||
                fail "keeper $k ($kpid) of uid 65533 did not get Nice=3 during the storm"
        lat+=($(($(now_ms) - t0)))
        [ "$(stat -c %u "/proc/$kpid")" = 65533 ] || fail "keeper $k does not run as uid 65533"
        kill -KILL "$kpid"
        sleep 0.1
done
echo "keepers (spawn to applied, ms): ${lat[*]}"

wait_until 120 grep -q "^done" "$out" || fail "the storm did not finish: $(cat "$out")"
echo "storm: $(sed -n 's/^done //p' "$out") (threads, ms)"
n=$(ls "/proc/$STORM_PID/task" | wc -l)
[ "$n" -gt "$THREADS" ] || fail "the storm has $n tasks, expected $THREADS threads and its main one"

# Every thread of the storm gets the rule's TimerSlack (1 us) in the end,
# none of its boosts: checked on a sample of 50, the last ones created
# among them (the merged evaluation that reaches them may come seconds
# later: the user's budget; before the fix, the backlog took minutes).
mapfile -t tids < <(ls "/proc/$STORM_PID/task" | sort -n | awk -v p="$STORM_PID" '$1 != p' |
        awk -v n="$THREADS" 'NR % int(n / 50) == 0 || NR == n')
[ "${#tids[@]}" -ge 50 ] || fail "sampled ${#tids[@]} threads only"
for t in "${tids[@]}"; do
        [ "$(cat "/proc/$STORM_PID/task/$t/comm")" = data-loop.0 ] ||
                fail "storm thread $t is not named data-loop.0"
        wait_until 300 attr_is "$t" timerslack_ns 1000 ||
                fail "storm thread $t never got the rule's TimerSlack=1us: $("$GETATTR" "$t")"
        a=$("$GETATTR" "$t")
        case "$a" in
        *" nice=0 "*"custom_slice=no"*) ;;
        *) fail "storm thread $t got a boost nobody may have: $a" ;;
        esac
done
# latniced's CPU time once it has nothing left to do for the storm: no
# tick more over 2 s, or 10 s after every sampled thread had its decision
# (other processes' events on a busy machine keep it from being idle, and
# add a little).
idle() {
        local a b
        a=$(cpu_ticks "$DAEMON")
        sleep 2
        b=$(cpu_ticks "$DAEMON")
        [ "$a" = "$b" ]
}
wait_until 10 idle || echo "(latniced was not idle 10 s later)"
c1=$(cpu_ticks "$DAEMON")
cpu_ms=$(((c1 - c0) * 1000 / $(getconf CLK_TCK)))
bound_ms=$((THREADS * US_PER_THREAD / 1000))
echo "latniced CPU time for the storm: $cpu_ms ms for $THREADS threads" \
        "($((cpu_ms * 1000 / THREADS)) us per thread; bound $bound_ms ms)"

# One "boosts withheld" line per process and reason (and one more per
# interval), not one per thread.
nw=$(grep -c "^<[0-9]>$STORM_PID .*boosts withheld" "$LOG")
echo "\"boosts withheld\" lines for the storm's process: $nw"
[ "$nw" -ge 1 ] || fail "latniced never said it withheld the storm's boosts"
[ "$nw" -le 5 ] || fail "latniced said \"boosts withheld\" $nw times for one process"
na=$(grep -c "^<[0-9]>$STORM_PID[/ ].*thread rules applied" "$LOG")
[ "$na" -le 10 ] || fail "latniced said \"thread rules applied\" $na times for one process"

[ "$cpu_ms" -le "$bound_ms" ] ||
        fail "latniced used $cpu_ms ms of CPU for $THREADS threads (bound $bound_ms ms)"

kill -KILL "$STORM_PID"
stop_daemon || fail "latniced did not exit cleanly"
echo "PASS"
