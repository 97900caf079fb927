#!/usr/bin/env bash
# Every check CI runs: formatting, lints (warnings are errors), and every test of the workspace.
# Installs what a fresh machine lacks first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh

step() { printf '\n== %s\n' "$*" >&2; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test"
cargo test --workspace --all-targets --locked

step "doc tests"
cargo test --workspace --doc --locked

echo "all checks passed" >&2
