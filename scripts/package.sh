#!/usr/bin/env bash
# Builds the Linux package: the UI, then the desktop app (Tauri bundle) with the
# `mnemo` command line beside it in /usr/bin and llama-server in /usr/lib/mnemo — so `mnemo`, `mnemo serve` and `mnemo mcp` are on
# the PATH of whoever installs it. Prints the .deb's path on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mnemo-target}"
log() { printf '[package] %s\n' "$*" >&2; }

# MNEMO_PACKAGE_PROFILE=debug builds the package from the debug profile: the test suite's
# package check (scripts/test-deb.sh) proves the package, not the optimiser, and shares the
# compilation the suite already made. People get release (the default).
profile="${MNEMO_PACKAGE_PROFILE:-release}"
case "$profile" in
  release) cargo_profile=(--release) ;;
  debug) cargo_profile=() ;;
  *) log "MNEMO_PACKAGE_PROFILE must be release or debug, not '$profile'"; exit 2 ;;
esac
log "building the mnemo command line ($profile)"
# The debug package shares the test suite's compilation: built for the whole workspace, as the
# suite builds it (`-p mnemo-cli` alone would unify features differently and rebuild the deps).
if [ "$profile" = debug ]; then scope=(--workspace); else scope=(-p mnemo-cli); fi
cargo build "${cargo_profile[@]}" --locked "${scope[@]}" >&2
cli="$CARGO_TARGET_DIR/$profile/mnemo"
log "building the UI"
npm --prefix ui install --no-audit --no-fund --loglevel=error >&2
npm --prefix ui run build >&2
log "building the desktop app and its .deb (Tauri CLI)"
# The UI is built above: the Tauri CLI would run `beforeBuildCommand` from the first folder with
# a package.json it finds (tests/e2e), not from the repository root.
# llama-server goes in too (/usr/lib/mnemo, where `mnemo` looks beside itself), so the model that
# comes with Mnemo runs from the package once `mnemo model install` (or the app) fetched it.
# MNEMO_NO_LOCAL_MODEL=1 leaves it out.
files=$(printf '"/usr/bin/mnemo":"%s"' "$cli")
depends='"libgomp1"'
if [ "${MNEMO_NO_LOCAL_MODEL:-}" != 1 ]; then
  . scripts/llama.sh
  files="$files$(printf ',"/usr/lib/mnemo/llama-server":"%s"' "$MNEMO_LLAMA_SERVER")"
fi
config=$(printf '{"build":{"beforeBuildCommand":""},"bundle":{"linux":{"deb":{"files":{%s},"depends":[%s]}}}}' "$files" "$depends")
if [ "$profile" = debug ]; then
  # The app was built above with the workspace (its default feature embeds the UI): the Tauri
  # CLI only bundles it. Its own build (`cargo build` of the app alone) would unify features
  # differently and compile every dependency again.
  npx --yes @tauri-apps/cli@2.12.5 bundle --debug --bundles deb --config "$config" >&2
else
  npx --yes @tauri-apps/cli@2.12.5 build --bundles deb --config "$config" >&2
fi
version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' tauri.conf.json)
deb="$CARGO_TARGET_DIR/$profile/bundle/deb/Mnemo_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || { log "no package at $deb"; exit 1; }
echo "$deb"
