#!/usr/bin/env bash
# An unprivileged process that keeps its own mmap_lock busy (ln-mmhog as
# nobody: threads calling mprotect() over 512 MiB in a loop) and renames
# itself every millisecond, so that latniced reads it again and again: a
# read of its /proc/PID/cmdline waits for that lock. latniced's event loop
# must never be the one waiting: its main thread is sampled through the
# kernel's /proc/PID/task/TID/wchan all the while and must not be seen in
# __access_remote_vm reading the hog's files (where such a read waits;
# without the bounded reader it was there in 1150 of 2000 samples), nor
# often waiting for its reader thread (a futex wait: the hog's user may cost
# the loop 10 ms a read and its wait budget, 5% of the time after the first
# 500 ms). Meanwhile matching processes still get their settings, and once
# the process lets go of its memory and takes its final name, that name is
# evaluated (the put-off evaluation is not lost). Every check is on the
# kernel's values (ln-getattr, wchan, syscall); the test waits for its
# samples and probes, however long a busy machine takes, and no timing is
# asserted.
#   $4: ln-mmhog
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
HOG=${4:?ln-mmhog path}
# A ceiling only, past meson's timeout: the test ends the load with SIGUSR1
# once it has its samples and probes, however slowly a busy machine gets
# there (a count of samples in a fixed window failed on a busy machine).
HOG_SECONDS=3600
SAMPLES=1000
# At most this many of every 100 samples may find latniced's main thread
# waiting for its reader: the hog's budget is 5%, other users' reads on a
# busy machine add some; a loop stalled on the hog's reads is in most.
WAITING_MAX_PERCENT=25

cat >"$POL/50-mmlock.policy" <<'P'
[Rule hog-final]
Match = name:lt-hog-final
Nice = 6

[Rule probe]
Match = name:lt-mm-probe
Nice = 3
P

wchan() { # tid of latniced: where its main thread sleeps
        local w=
        read -r w <"/proc/$DAEMON/task/$DAEMON/wchan" 2>/dev/null # no newline at its end
        echo "$w"
}
# The samples are taken without a fork (a busy machine beside the hog's
# threads forks slowly): wchan read in this shell, and 2 ms waited with
# read -t on a FIFO nobody writes to.
mkfifo "$T/never" || fail "mkfifo"
exec {never}<>"$T/never"
# Is latniced's main thread, seen in __access_remote_vm, reading the hog's
# files? (Its read(2)'s descriptor: on a busy machine it may also wait a
# moment for the memory of another process just started, which it reads
# right away, and that is not what this test is about.)
reads_hog() {
        local nr fd _
        read -r nr fd _ <"/proc/$DAEMON/task/$DAEMON/syscall" 2>/dev/null || return 1
        [ "$nr" = 0 ] || [ "$nr" = 17 ] || return 1 # read, pread64
        [[ "$(readlink "/proc/$DAEMON/fd/$((fd))" 2>/dev/null)" == "/proc/$hog/"* ]]
}

start_daemon --log-level info

# The check below reads wchan: it must name where a thread sleeps here.
wait_until 5 eval '[ "$(wchan)" = do_epoll_wait ]' ||
        { echo "SKIP: /proc/PID/wchan does not name do_epoll_wait here ($(wchan))"; exit 77; }

out=$T/hog.out
"${NOBODY[@]}" "$HOG" 512 8 "$HOG_SECONDS" lt-hog-final \
        >"$out" &
PIDS+=($!)
wait_until 60 grep -q '^pid=' "$out" || fail "ln-mmhog did not start"
hog=$(sed -n 's/^pid=//p' "$out")
[ "$(stat -c %u "/proc/$hog")" = 65534 ] || fail "ln-mmhog does not run as nobody"

# The attack must work on this kernel, or the test proves nothing: a plain
# read of the hog's cmdline waits.
t0=$(date +%s%N)
cat "/proc/$hog/cmdline" >/dev/null
waited=$((($(date +%s%N) - t0) / 1000000))
if [ "$waited" -lt 5 ]; then
        echo "SKIP: reading the cmdline of a process busy in mprotect() took ${waited} ms: this kernel does not make it wait"
        exit 77
fi
echo "a plain read of the hog's cmdline took ${waited} ms"

# Sample latniced's main thread while the hog runs, and start matching
# processes in between, until there are enough of both; then let it go.
samples=0
stuck=0
waiting=0
probes=0
while { [ "$samples" -lt "$SAMPLES" ] || [ "$probes" -lt 4 ]; } && ! grep -q '^final' "$out"; do
        for ((i = 0; i < 100; i++)); do
                w=
                read -r w <"/proc/$DAEMON/task/$DAEMON/wchan" 2>/dev/null
                samples=$((samples + 1))
                [ "$w" = __access_remote_vm ] && reads_hog && stuck=$((stuck + 1))
                case $w in futex_*) waiting=$((waiting + 1)) ;; esac
                read -r -t 0.002 -u "$never" _
        done
        if [ "$probes" -lt 4 ]; then
                spawn --argv0 lt-mm-probe
                wait_until 30 attr_is "$SPAWNED_PID" nice 3 ||
                        fail "lt-mm-probe $SPAWNED_PID not applied while the hog runs"
                probes=$((probes + 1))
        fi
done
kill -USR1 "$hog"
echo "latniced's main thread: $stuck of $samples samples waiting for the hog's memory," \
        "$waiting for its reader thread; $probes probe(s) applied"
[ "$samples" -ge "$SAMPLES" ] || fail "only $samples samples: the hog ended by itself"
[ "$probes" -ge 4 ] || fail "only $probes probe(s) started: the hog ended by itself"
[ "$stuck" -le 5 ] ||
        fail "latniced's main thread was waiting for the hog's mmap_lock in $stuck of $samples samples"
[ "$((waiting * 100))" -le "$((samples * WAITING_MAX_PERCENT))" ] ||
        fail "latniced's main thread was waiting for its reader in $waiting of $samples samples" \
                "(over ${WAITING_MAX_PERCENT}%)"
grep -q "was not evaluated: reading its command line" "$LOG" ||
        fail "latniced never said it put an evaluation off (was the hog read at all?)"

# Its final name is evaluated once its memory is free again.
wait_until 10 grep -q '^final' "$out" || fail "ln-mmhog did not reach its final name"
wait_until 90 attr_is "$hog" nice 6 ||
        fail "the hog's final name lt-hog-final was not evaluated (nice $(attr "$hog" nice))"
echo "PASS"
