#!/usr/bin/env bash
# Lint the built man pages: groff must not warn about any of them.
# Usage: lint-man.sh PAGE...
set -u
command -v groff >/dev/null || { echo "groff not installed"; exit 77; }
rc=0
for page in "$@"; do
        out=$(groff -ww -z -man -Tutf8 "$page" 2>&1)
        if [ -n "$out" ]; then
                echo "FAIL: $page:"
                echo "$out"
                rc=1
        else
                echo "ok: $(basename "$page")"
        fi
done
exit $rc
