#!/usr/bin/env bash
# Runs a command while a release build of the workspace loops beside it — how a test suite is
# proven not to fail under load. The load rebuilds from mnemo-core up on every
# round, in a target dir of its own, and stops when the command ends. Prints the command's time.
# The command sees MNEMO_UNDER_LOAD=1 (scripts/race-soak.sh starts no load of its own then).
#
#   scripts/under-load.sh [-jN] -- command args…     (default -j2)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
jobs=2
case "${1:-}" in -j*) jobs="${1#-j}"; shift ;; esac
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: scripts/under-load.sh [-jN] -- command args…" >&2; exit 2; }
load_dir="${XDG_CACHE_HOME:-$HOME/.cache}/mnemo-race-load"

(
  cd "$repo"
  while :; do
    cargo clean -q --release -p mnemo-core --target-dir "$load_dir" 2>/dev/null || true
    cargo build -q --release --workspace --locked -j"$jobs" --target-dir "$load_dir" >/dev/null 2>&1 || true
  done
) &
load=$!
stop() { kill -- -"$load" 2>/dev/null || kill "$load" 2>/dev/null || true; pkill -f "target-dir $load_dir" 2>/dev/null || true; }
trap stop EXIT
printf '[under-load] a -j%s release build loops beside: %s\n' "$jobs" "$*" >&2
t0=$(date +%s)
rc=0
MNEMO_UNDER_LOAD=1 "$@" || rc=$?
printf '[under-load] %s ended with %s after %ss\n' "$*" "$rc" "$(( $(date +%s) - t0 ))" >&2
exit "$rc"
