#!/usr/bin/env bash
# The shell completions of latnicectl parse in their shells, and name every verb
# that `latnicectl --help` lists.
# Usage: lint-completion.sh LATNICECTL BASH_COMPLETION ZSH_COMPLETION
set -u
ctl=$1 bashc=$2 zshc=$3
rc=0
bash -n "$bashc" || { echo "FAIL: bash -n $bashc"; rc=1; }
if command -v zsh >/dev/null; then
        zsh -n "$zshc" || { echo "FAIL: zsh -n $zshc"; rc=1; }
else
        echo "note: zsh not installed, $zshc not parsed"
fi
verbs=$("$ctl" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p; s/^  \([a-z][a-z-]*\)$/\1/p' | sort -u)
[ -n "$verbs" ] || { echo "FAIL: no verbs in latnicectl --help"; exit 1; }
for v in $verbs; do
        for f in "$bashc" "$zshc"; do
                grep -qw -- "$v" "$f" || { echo "FAIL: $(basename "$f") does not know '$v'"; rc=1; }
        done
done
[ $rc -eq 0 ] && echo "ok: $(echo $verbs | wc -w) verbs in both completions"
exit $rc
