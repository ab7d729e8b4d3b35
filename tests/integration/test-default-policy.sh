#!/usr/bin/env bash
# The shipped default policy under the real latniced: processes named like
# the rules of each category (argv[0], cmdline, thread names set here) get
# their class, as the kernel reports it (sched_getattr via ln-getattr and
# /proc/TID/timerslack_ns, and the I/O class, which no class changes, with
# ionice -p); lookalikes the policy must leave alone stay
# untouched; `latnicectl check` reports no error and no warning.
#
#   test-default-policy.sh LATNICED LN-SPAWN LN-GETATTR LATNICECTL SOURCE_ROOT
#
# The daemon is stopped with SIGTERM at the end, so it restores every task
# it changed (other processes on the machine that match the default policy
# are changed while the test runs, and restored).
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
LATNICECTL=${4:?latnicectl path}
SRC=${5:?source root}
DEFAULT=$SRC/policy/default

# Another latniced (a system service, someone's benchmark) would apply its
# own policy to the processes below as well: say so, the results may differ.
others=$(pgrep -x latniced | tr '\n' ' ')
[ -z "$others" ] || echo "WARNING: other latniced processes are running (pid $others)" >&2

# --- latnicectl check: clean --------------------------------------------------
out=$("$LATNICECTL" check --policy-dir "$DEFAULT" 2>&1) ||
        fail "latnicectl check --policy-dir policy/default failed: $out"
echo "$out" | grep -Eq '(^|[^0-9])0 errors, 0 warnings' ||
        fail "latnicectl check reports problems: $out"
echo "check: $out"

# The daemon loads exactly the shipped files.
cp "$DEFAULT"/*.policy "$POL"/

# --- expected classes (must agree with policy/default/10-profiles.policy) ----
# field values as ln-getattr prints them; slices are the stock-kernel
# emulation of LatencyNice (ln_slice), unless the kernel has latency nice;
# ln "-": the class sets no LatencyNice.
HAS_LN=no
self_attr=$("$GETATTR" $$) || fail "getattr of the test shell failed"
grep -q 'latency_nice=n/a' <<<"$self_attr" || HAS_LN=yes
# An untouched task keeps what it inherited from this shell.
OWN_IO=$(ionice -p $$)
OWN_NICE=$(attr $$ nice)
OWN_SLACK=$(attr $$ timerslack_ns)

expect() { # what tid class
        local what=$1 tid=$2 class=$3 nice policy slack ln io=$OWN_IO
        case $class in
        audio) nice=-11 policy=other slack=1000 ln=-15 ;;
        # PipeWire's data loop: granted SCHED_RR at the cap (MaxRealtimePriority=
        # 20) over the audio class's fair attributes (sched_getattr shows no nice
        # of a real-time thread: getpriority does; the kernel keeps no timer
        # slack for it: 0)
        audio-rt) nice=0 policy=rr slack=0 ln=rt ;;
        media | display) nice=-6 policy=other slack=1000 ln=-10 ;;
        interactive) nice=-3 policy=other slack=$OWN_SLACK ln=-5 ;;
        game) nice=-4 policy=other slack=1000 ln=-10 ;;
        browser-content) nice=3 policy=other slack=$OWN_SLACK ln=- ;;
        background-batch) nice=19 policy=other slack=$OWN_SLACK ln=- ;;
        background-idle) nice=19 policy=idle slack=$OWN_SLACK ln=- ;;
        untouched) nice=$OWN_NICE policy=other slack=$OWN_SLACK ln= ;;
        *) fail "unknown class $class" ;;
        esac

        wait_until 10 attr_is "$tid" nice "$nice" ||
                fail "$what (tid $tid): nice $(attr "$tid" nice), expected $nice ($class)"
        attr_is "$tid" policy "$policy" ||
                fail "$what (tid $tid): policy $(attr "$tid" policy), expected $policy ($class)"
        wait_until 10 attr_is "$tid" timerslack_ns "$slack" ||
                fail "$what (tid $tid): timer slack $(attr "$tid" timerslack_ns), expected $slack"
        wait_until 10 eval '[ "$(ionice -p "$tid")" = "$io" ]' ||
                fail "$what (tid $tid): I/O class $(ionice -p "$tid"), expected $io ($class)"
        if [ "$ln" = rt ]; then
                attr_is "$tid" rt_priority 20 && attr_is "$tid" reset_on_fork yes ||
                        fail "$what (tid $tid): $("$GETATTR" "$tid"), expected rt_priority 20 with reset_on_fork"
                [ "$(python3 -c 'import os, sys; print(os.getpriority(os.PRIO_PROCESS, int(sys.argv[1])))' "$tid")" = -11 ] ||
                        fail "$what (tid $tid): nice under the grant is not -11"
        elif [ -z "$ln" ] || [ "$ln" = - ]; then
                # no LatencyNice in the class: no custom slice either
                [ "$policy" = idle ] || attr_is "$tid" custom_slice no ||
                        fail "$what (tid $tid): custom slice $(attr "$tid" slice_ns), expected none"
        elif [ $HAS_LN = yes ]; then
                attr_is "$tid" latency_nice "$ln" ||
                        fail "$what (tid $tid): latency nice $(attr "$tid" latency_nice), expected $ln"
        elif [ "$policy" != idle ]; then
                attr_is "$tid" slice_ns "$(ln_slice "$ln")" ||
                        fail "$what (tid $tid): slice $(attr "$tid" slice_ns), expected $(ln_slice "$ln") (LatencyNice=$ln emulated)"
        fi
        echo "ok: $what -> $class"
}

# A process with this argv[0] and these extra arguments in its cmdline
# (python sleeping: no child, comm "python3"); sets NAMED_PID.
named() { # argv0 args...
        local argv0=$1
        shift
        (exec -a "$argv0" /usr/bin/python3 -c 'import time; time.sleep(120)' "$@") &
        NAMED_PID=$!
        PIDS+=("$NAMED_PID")
}

start_daemon

# --- audio: PipeWire with a data-loop thread, WirePlumber --------------------
spawn --argv0 /usr/bin/pipewire --threads 1 --thread-name data-loop.0
expect "pipewire main thread" "${SPAWNED_TIDS[0]}" audio
expect "pipewire data-loop.0" "${SPAWNED_TIDS[1]}" audio-rt
# Debian 12's PipeWire 0.3.65: the data thread keeps the process's name;
# the one that is not the main thread gets real time, the main one not.
spawn --argv0 /usr/bin/pipewire-pulse --threads 1 --thread-name pipewire-pulse
expect "pipewire-pulse main thread (0.3.65)" "${SPAWNED_TIDS[0]}" audio
expect "pipewire-pulse data thread (0.3.65)" "${SPAWNED_TIDS[1]}" audio-rt
spawn --argv0 wireplumber
expect wireplumber "$SPAWNED_PID" audio
spawn --argv0 mpv
expect mpv "$SPAWNED_PID" media

# --- display ------------------------------------------------------------------
spawn --argv0 /usr/bin/Xwayland
expect Xwayland "$SPAWNED_PID" display
spawn --argv0 /usr/bin/gnome-shell --threads 2
expect "gnome-shell (every thread)" "${SPAWNED_TIDS[2]}" display
spawn --argv0 kwin_wayland
expect kwin_wayland "$SPAWNED_PID" display

# --- interactive ---------------------------------------------------------------
spawn --argv0 kitty
expect kitty "$SPAWNED_PID" interactive
spawn --argv0 nvim
expect nvim "$SPAWNED_PID" interactive
spawn --argv0 ibus-daemon
expect ibus-daemon "$SPAWNED_PID" interactive

# --- browsers: split by process type from the cmdline ----------------------------
named /usr/lib/chromium/chromium --type=gpu-process --enable-crash-reporter
expect "chromium gpu-process" "$NAMED_PID" display
named /usr/lib/chromium/chromium --type=utility --utility-sub-type=audio.mojom.AudioService
expect "chromium audio service" "$NAMED_PID" audio
named /usr/lib/chromium/chromium --type=renderer --renderer-client-id=7
expect "chromium renderer" "$NAMED_PID" browser-content
named /usr/lib/chromium/chromium --type=utility --utility-sub-type=network.mojom.NetworkService
chromium_network=$NAMED_PID
named /usr/lib/firefox/firefox -contentproc -childID 3 -isForBrowser 2345 true tab
expect "firefox tab content" "$NAMED_PID" browser-content
named /usr/lib/firefox/firefox -contentproc 2345 true rdd
expect "firefox rdd" "$NAMED_PID" media

# --- games ------------------------------------------------------------------------
spawn --argv0 'Z:\games\Foo\Foo.exe'
expect "wine game Foo.exe" "$SPAWNED_PID" game
spawn --argv0 'C:\windows\system32\services.exe' --comm services.exe
wine_services=$SPAWNED_PID

# --- background -----------------------------------------------------------------
spawn --argv0 /usr/lib/gcc/x86_64-linux-gnu/12/cc1plus
cc1plus=$SPAWNED_PID
expect cc1plus "$cc1plus" background-idle
# CPUIdle: a build's group (its autogroup here) is idle (nice 19), unless it
# holds a latency-sensitive process: this session holds pipewire and others.
ag_nice() { sed -n 's/.* nice \(-\?[0-9]*\)$/\1/p' "/proc/$1/autogroup" 2>/dev/null; }
AG_TEST=no
v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ] &&
        ! grep -qw cpu "$v2/cgroup.controllers" 2>/dev/null &&
        ! grep -Eq '^[0-9]+:([^:]*,)?cpu(,[^:]*)?:/.' "/proc/$cc1plus/cgroup"; then
        AG_TEST=yes
        [ "$(ag_nice "$cc1plus")" = 0 ] ||
                fail "cc1plus: the session of pipewire was demoted to nice $(ag_nice "$cc1plus")"
        setsid "$SPAWN" --argv0 /usr/lib/gcc/x86_64-linux-gnu/12/cc1plus >"$T/build.out" 2>&1 &
        build=$!
        PIDS+=("$build")
        wait_until 10 eval '[ "$(ag_nice $build)" = 19 ]' ||
                fail "cc1plus in a session of its own: autogroup nice $(ag_nice "$build"), expected 19 (CPUIdle=yes)"
        echo "ok: cc1plus -> its own session's autogroup at nice 19; the session with pipewire left alone"
fi
spawn --argv0 make
expect make "$SPAWNED_PID" background-idle
named rsync -a /home/ /mnt/backup/
expect rsync "$NAMED_PID" background-batch
named dpkg --unpack x.deb
expect dpkg "$NAMED_PID" background-batch
named xz -T0 -9 image.tar
expect "xz (compressing)" "$NAMED_PID" background-idle
spawn --argv0 /usr/libexec/tracker-miner-fs-3
expect tracker-miner-fs-3 "$SPAWNED_PID" background-idle

# --- left alone ---------------------------------------------------------------------
named xz -d image.tar.xz
xz_d=$NAMED_PID
named flatpak run org.mozilla.firefox
flatpak_run=$NAMED_PID
spawn --argv0 lt-matches-no-rule --threads 1
nothing=$SPAWNED_PID
# Events are handled in order: these were looked at once a later one is done.
spawn --argv0 pulseaudio
expect pulseaudio "$SPAWNED_PID" audio
expect "chromium network service" "$chromium_network" untouched
expect "wine services.exe" "$wine_services" untouched
expect "xz -d (decompressing)" "$xz_d" untouched
expect "flatpak run" "$flatpak_run" untouched
expect "unmatched process" "$nothing" untouched

# --- stop: every change is restored -----------------------------------------------
stop_daemon TERM || fail "latniced did not exit cleanly on SIGTERM"
expect "cc1plus after latniced exited" "$cc1plus" untouched
if [ $AG_TEST = yes ]; then
        [ "$(ag_nice "$build")" = 0 ] || fail "autogroup nice $(ag_nice "$build") after latniced exited, expected 0"
        echo "ok: the autogroup got its nice back"
fi
echo "PASS"
