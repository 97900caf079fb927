#!/usr/bin/env bash
# Every test that races real processes (roots swapped for links, processes killed at many points,
# syncs racing each other and local editors, an editor appending while Mnemo replaces a file,
# lock holders killed), run N times in a loop while a `-j2` release build of the workspace
# loops beside it — a test that fails under load fails CI at random. Prints one line
# per lap and a table: runs, failures and the slowest run of each test.
#
#   scripts/race-soak.sh [N=20]
#
# Uses the debug test binaries in $CARGO_TARGET_DIR (built first); the load is
# scripts/under-load.sh's (a release target of its own, rebuilt from mnemo-core up each round).
set -euo pipefail
cd "$(dirname "$0")/.."
laps="${1:-20}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mnemo-target}"
export MNEMO_REQUIRE_MODEL="${MNEMO_REQUIRE_MODEL:-0}"

# package  test-target  filter
tests=(
  "mnemo-store store root_swap::"
  "mnemo-store store replace_race::"
  "mnemo-store store lock_processes::"
  "mnemo-sync sync gitsync_props::"
  "mnemo-sync sync gitsync_losses::a_file_held_open_for_appending"
  "mnemo-api import_hostile a_restore_target_swapped_for_a_link"
  "mnemo-cli cli root_swap::"
  "mnemo-cli cli sync_faults::"
  "mnemo-cli cli review_faults::"
  "mnemo-cli cli dream_faults::"
)

# The load is scripts/under-load.sh's: started here unless this already runs under it.
if [ -z "${MNEMO_UNDER_LOAD:-}" ]; then
  exec scripts/under-load.sh -j2 -- "$(pwd)/scripts/race-soak.sh" "$@"
fi

printf '[race-soak] building the test binaries\n' >&2
cargo test --locked -p mnemo-store -p mnemo-sync -p mnemo-api -p mnemo-cli --all-targets --no-run -q 2>/dev/null

declare -A runs fails slowest
log="$(mktemp -d)/race-soak"
mkdir -p "$log"
start=$(date +%s)
for lap in $(seq 1 "$laps"); do
  line="lap $lap:"
  for t in "${tests[@]}"; do
    read -r pkg target filter <<<"$t"
    name="$pkg/$target/$filter"
    t0=$(date +%s)
    if cargo test -q --locked -p "$pkg" --test "$target" -- "$filter" >"$log/$lap-${target}-${filter//[:\/]/_}.txt" 2>&1; then
      ok=1
    else
      ok=0
      fails[$name]=$(( ${fails[$name]:-0} + 1 ))
      line="$line FAIL($name)"
    fi
    dt=$(( $(date +%s) - t0 ))
    runs[$name]=$(( ${runs[$name]:-0} + 1 ))
    (( dt > ${slowest[$name]:-0} )) && slowest[$name]=$dt
    [ "$ok" = 1 ] && rm -f "$log/$lap-${target}-${filter//[:\/]/_}.txt"
  done
  printf '%s done at %ss\n' "$line" "$(( $(date +%s) - start ))"
done
printf '\n%-62s %5s %6s %9s\n' "test" "runs" "fails" "slowest"
total_fail=0
for t in "${tests[@]}"; do
  read -r pkg target filter <<<"$t"
  name="$pkg/$target/$filter"
  printf '%-62s %5s %6s %8ss\n' "$name" "${runs[$name]:-0}" "${fails[$name]:-0}" "${slowest[$name]:-0}"
  total_fail=$(( total_fail + ${fails[$name]:-0} ))
done
printf 'total: %s lap(s) in %ss, %s failure(s); failed runs kept in %s\n' "$laps" "$(( $(date +%s) - start ))" "$total_fail" "$log"
[ "$total_fail" = 0 ]
