#!/usr/bin/env bash
# The Linux package as a user gets it: build it (scripts/package.sh), install it with dpkg,
# check the installed `mnemo` (version, and `mnemo mcp` answering an MCP client's hello), the
# app binary, the desktop entry and the icon; then remove it and check nothing is left.
# Needs root (or sudo) for dpkg.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[deb] %s\n' "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
  else fail "need root to run: $*"
  fi
}

# The debug profile: this proves the package (its files, dependencies, entry points), not the
# optimiser, and reuses the suite's own build instead of a cold release build of everything.
deb=$(MNEMO_PACKAGE_PROFILE="${MNEMO_PACKAGE_PROFILE:-debug}" scripts/package.sh)
log "built $deb"
pkg=$(dpkg-deb --field "$deb" Package)
contents=$(dpkg-deb --contents "$deb")
for f in usr/bin/mnemo usr/bin/mnemo-app usr/lib/mnemo/llama-server; do
  grep -qE " (\./)?$f\$" <<<"$contents" || fail "/$f is not in the package"
done

log "installing $pkg"
if ! as_root dpkg -i "$deb" >/dev/null; then
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -f >/dev/null
fi
trap 'as_root dpkg -r "$pkg" >/dev/null 2>&1 || true' EXIT

[ "$(command -v mnemo)" = /usr/bin/mnemo ] || [ -x /usr/bin/mnemo ] || fail "mnemo is not on the PATH"
version=$(/usr/bin/mnemo --version) || fail "the installed mnemo does not run"
log "installed: $version"
grep -q "0.1.0" <<<"$version" || fail "unexpected version: $version"
[ -x /usr/bin/mnemo-app ] || fail "no /usr/bin/mnemo-app"
# The model server the package ships: it runs, and the installed mnemo finds it with nothing of
# this machine's set-up in reach (a fresh cache folder, no MNEMO_LLAMA_SERVER).
/usr/lib/mnemo/llama-server --version >/dev/null 2>&1 || fail "the packaged llama-server does not run"
bare=$(mktemp -d)
found=$(env -u MNEMO_LLAMA_SERVER XDG_CACHE_HOME="$bare/cache" MNEMO_HOME="$bare/home" \
  /usr/bin/mnemo --json model status | python3 -c 'import json,sys; print(json.load(sys.stdin)["server_found"])')
rm -rf "$bare"
[ "$found" = True ] || fail "the installed mnemo does not find the packaged llama-server"
desktop=$(dpkg -L "$pkg" | grep '^/usr/share/applications/.*\.desktop$' | head -1)
[ -n "$desktop" ] && [ -f "$desktop" ] || fail "no desktop entry"
grep -q '^Exec=mnemo-app' "$desktop" || fail "the desktop entry does not start mnemo-app: $(cat "$desktop")"
grep -q '^Icon=' "$desktop" || fail "the desktop entry names no icon"
icon=$(dpkg -L "$pkg" | grep '^/usr/share/icons/hicolor/.*/apps/.*\.png$' | head -1)
[ -n "$icon" ] && [ -s "$icon" ] || fail "no icon installed"

# `mnemo mcp` from the package answers an MCP hello on a throwaway home, then exits on EOF.
home=$(mktemp -d)
answer=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"deb-test","version":"0"}}}' \
  | MNEMO_HOME="$home/home" MNEMO_CLAUDE_DIR="$home/c" MNEMO_QWEN_DIR="$home/q" MNEMO_EMBED_MODEL=off timeout 20 /usr/bin/mnemo mcp)
rm -rf "$home"
grep -q '"serverInfo":{"name":"mnemo"' <<<"$answer" || fail "mnemo mcp did not answer: $answer"

log "removing $pkg"
as_root dpkg -r "$pkg" >/dev/null
trap - EXIT
for f in /usr/bin/mnemo /usr/bin/mnemo-app /usr/lib/mnemo/llama-server "$desktop" "$icon"; do
  [ ! -e "$f" ] || fail "$f is still there after removal"
done
log "package builds, installs, runs and removes cleanly"
