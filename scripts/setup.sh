#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks to build and test Mnemo. Idempotent and quiet
# when everything is already there. Sourced by run.sh and test.sh; safe to run on its own.
set -euo pipefail

log() { printf '[setup] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
  else log "need root to run: $*"; return 1
  fi
}

# Debian packages: git (worktree tests), util-linux (setpriv, used by the read-only-folder test
# when running as root), procps, and a C toolchain for the bundled SQLite.
missing=()
command -v git >/dev/null 2>&1 || missing+=(git)
command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    log "installing ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    log "please install: ${missing[*]}"; exit 1
  fi
fi

# Rust: cargo with clippy and rustfmt.
if ! command -v cargo >/dev/null 2>&1; then
  [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
fi
if ! command -v cargo >/dev/null 2>&1; then
  log "cargo not found: install Rust (https://rustup.rs), then run this again"; exit 1
fi
for comp in clippy rustfmt; do
  if ! cargo "${comp/rustfmt/fmt}" --version >/dev/null 2>&1; then
    log "adding rustup component $comp"
    rustup component add "$comp"
  fi
done

# Build outputs live outside the clone so repeated runs (and CI) reuse them.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mnemo-target}"
