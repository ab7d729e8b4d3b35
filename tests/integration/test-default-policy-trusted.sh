#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped default policy under the real latniced, for an unprivileged
# user (nobody) running programs root installed, named as Debian 12 installs
# them. Everything is read back from the kernel (ln-getattr), never from
# latniced:
#   - a Firefox tab process (firefox-esr -contentproc ... tab, comm
#     "Isolated Web Co") keeps Nice=3, and its AudioIPC threads get the
#     audio class (before, firefox-content came after firefox-audio and gave
#     the threads the tab's Nice=3);
#   - a Chromium renderer (chromium --type=renderer) keeps Nice=3, and its
#     AudioOutputDevice, AudioInputDevice and "Realtime AudioWorklet thread"
#     threads get the audio class;
#   - the GPU process and the audio service of a Chromium get their
#     classes, but nobody's python3 with the same arguments gets nothing
#     (before, those two rules matched on the command line alone);
#   - vim run through its alternatives link (/usr/bin/vim ->
#     /etc/alternatives/vim -> /usr/bin/vim.basic; here a symlink vim ->
#     vim.basic) gets the interactive class: the trusted view of it is named
#     vim.basic, which the editors rule must name.
#
#   test-default-policy-trusted.sh LATNICED LN-SPAWN LN-GETATTR SOURCE-ROOT LN-BROWSER
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
SRC=${4:?source root}
BROWSER=${5:?ln-browser path}

# Another latniced (another test run with an older default policy) applies
# its own rules to the processes below too: say so, results may differ.
others=$(pgrep -x latniced | tr '\n' ' ')
[ -z "$others" ] || echo "WARNING: other latniced processes are running (pid $others)" >&2

# The programs, root's, in a root-only directory below /run: trusted.
TRUSTED=$(mktemp -d /run/lntrust.XXXXXX)
chmod 0755 "$TRUSTED"
chmod 0755 "$T"
trap 'rm -rf "$TRUSTED"; cleanup' EXIT
install -m 0755 "$BROWSER" "$TRUSTED/firefox-esr"
install -m 0755 "$BROWSER" "$TRUSTED/chromium"
install -m 0755 /bin/sleep "$TRUSTED/vim.basic"
ln -s vim.basic "$TRUSTED/vim"

cp "$SRC"/policy/default/*.policy "$POL"/
start_daemon

HAS_LN=no
self_attr=$("$GETATTR" $$) || fail "getattr of the test shell failed"
grep -q 'latency_nice=n/a' <<<"$self_attr" || HAS_LN=yes
BASE=$(attr $$ slice_ns)
SLACK=$(attr $$ timerslack_ns)

# What a class looks like on the kernel (10-profiles.policy).
expect() { # what tid class
        local what=$1 tid=$2 nice slack ln
        case $3 in
        audio) nice=-11 slack=1000 ln=-15 ;;
        display) nice=-6 slack=1000 ln=-10 ;;
        interactive) nice=-3 slack=$SLACK ln=-5 ;;
        browser-content) nice=3 slack=$SLACK ln= ;;
        esac
        wait_until 10 attr_is "$tid" nice "$nice" ||
                fail "$what (tid $tid): nice $(attr "$tid" nice), expected $nice ($3)"
        wait_until 10 attr_is "$tid" timerslack_ns "$slack" ||
                fail "$what (tid $tid): timer slack $(attr "$tid" timerslack_ns), expected $slack ($3)"
        if [ -z "$ln" ]; then
                attr_is "$tid" slice_ns "$BASE" ||
                        fail "$what (tid $tid): slice $(attr "$tid" slice_ns), expected the default $BASE ($3)"
        elif [ $HAS_LN = yes ]; then
                attr_is "$tid" latency_nice "$ln" ||
                        fail "$what (tid $tid): latency nice $(attr "$tid" latency_nice), expected $ln ($3)"
        else
                attr_is "$tid" slice_ns "$(ln_slice "$ln")" ||
                        fail "$what (tid $tid): slice $(attr "$tid" slice_ns), expected $(ln_slice "$ln") (LatencyNice=$ln emulated, $3)"
        fi
        echo "ok: $what -> $3"
}

# Run ln-browser as nobody with these names; sets TIDS (main thread first).
browser() { # comm threads path args...
        local out=$T/browser.$RANDOM$RANDOM
        : >"$out"
        "${NOBODY[@]}" env LN_COMM="$1" LN_THREADS="$2" "${@:3}" >"$out" &
        PIDS+=($!)
        wait_until 10 grep -q "^pid=" "$out" || fail "ln-browser as $3 did not start"
        IFS=, read -r -a TIDS <<<"$(sed -n 's/^pid=[0-9]* tids=//p' "$out")"
}

# --- a Firefox tab with its audio threads ------------------------------------
browser "Isolated Web Co" "AudioIPC Callback,AudioIPC Client Callback,AudioIPC Client RPC,DOM Worker" \
        "$TRUSTED/firefox-esr" -contentproc -childID 3 -isForBrowser -prefsLen 30230 \
        -appDir /usr/lib/firefox-esr/browser "{1a2b}" 2345 true tab
expect "firefox tab main thread" "${TIDS[0]}" browser-content
expect "firefox tab 'AudioIPC Callba'" "${TIDS[1]}" audio
expect "firefox tab 'AudioIPC Client' (callback)" "${TIDS[2]}" audio
expect "firefox tab 'AudioIPC Client' (rpc)" "${TIDS[3]}" audio
expect "firefox tab 'DOM Worker'" "${TIDS[4]}" browser-content

# --- a Chromium renderer with its audio threads --------------------------------
browser "" "AudioOutputDevice,AudioInputDevice,Realtime AudioWorklet thread,Compositor" \
        "$TRUSTED/chromium" --type=renderer --crashpad-handler-pid=2400 --lang=en-US \
        --renderer-client-id=7 --shared-files
expect "chromium renderer main thread" "${TIDS[0]}" browser-content
expect "chromium renderer 'AudioOutputDevi'" "${TIDS[1]}" audio
expect "chromium renderer 'AudioInputDevic'" "${TIDS[2]}" audio
expect "chromium renderer 'Realtime AudioW'" "${TIDS[3]}" audio
expect "chromium renderer 'Compositor'" "${TIDS[4]}" browser-content
renderer_audio=${TIDS[1]}

# --- the GPU process and audio service: only the browsers' own programs ----------
# Before, a rule on the command line alone gave any trusted program the class:
# nobody's python3 with --type=gpu-process got Nice=-6, with the audio
# service's --utility-sub-type Nice=-11 and the 0.1 ms slice.
"${NOBODY[@]}" /usr/bin/python3 -c 'import time; time.sleep(300)' --type=gpu-process &
py_gpu=$!
"${NOBODY[@]}" /usr/bin/python3 -c 'import time; time.sleep(300)' \
        --utility-sub-type=audio.mojom.AudioService &
py_audio=$!
PIDS+=("$py_gpu" "$py_audio")
browser "" "" "$TRUSTED/chromium" --type=gpu-process --crashpad-handler-pid=2400 --shared-files
expect "chromium gpu-process" "${TIDS[0]}" display
browser "" "" "$TRUSTED/chromium" --type=utility --utility-sub-type=audio.mojom.AudioService --shared-files
expect "chromium audio service" "${TIDS[0]}" audio
# Events are handled in order: the python processes came first.
for p in "$py_gpu" "$py_audio"; do
        attr_is "$p" nice 0 && attr_is "$p" slice_ns "$BASE" ||
                fail "nobody's python3 with a Chromium argument (pid $p): $("$GETATTR" "$p")"
done
echo "ok: nobody's python3 with --type=gpu-process or the audio service's argument: untouched"

# --- vim through its alternatives link (Debian: vim.basic) -----------------------
"${NOBODY[@]}" "$TRUSTED/vim" 300 &
vim=$!
PIDS+=("$vim")
wait_until 5 eval '[ "$(readlink /proc/$vim/exe)" = "$TRUSTED/vim.basic" ]' || fail "vim did not start"
expect "vim (exe vim.basic, comm $(cat /proc/$vim/comm))" "$vim" interactive

stop_daemon TERM || fail "latniced did not exit cleanly on SIGTERM"
attr_is "$renderer_audio" nice 0 ||
        fail "chromium renderer audio thread: nice $(attr "$renderer_audio" nice) after latniced exited, expected 0"
echo "PASS"
