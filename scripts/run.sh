#!/usr/bin/env bash
# Builds and starts Mnemo: the desktop app when a display is available; otherwise (SSH, CI,
# containers) the same UI served to a browser by `mnemo serve`, with the URL printed.
#   scripts/run.sh                 the app (or the browser UI without a display)
#   scripts/run.sh --sample        the same, on a sample home with a few memories
#   scripts/run.sh <mnemo args>    any mnemo CLI command, e.g. scripts/run.sh search 简洁
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh

# A CLI command needs only the command line; the app (or the browser UI) needs the UI, built
# again only when its sources changed (the app embeds it: a new build means relinking the app).
cli_only=0
if [ $# -gt 0 ] && [ "$1" != "--sample" ]; then cli_only=1; fi
if [ "$cli_only" = 1 ]; then
  cargo build --release --locked -p mnemo-cli >&2
else
  [ -d ui/node_modules ] || npm --prefix ui install --no-audit --no-fund --loglevel=error >&2
  if [ ! -f ui/dist/index.html ] || [ -n "$(find ui/src ui/index.html ui/package.json ui/vite.config.ts \
       -newer ui/dist/index.html -print -quit 2>/dev/null)" ]; then
    npm --prefix ui run build >&2
  fi
  cargo build --release --locked -p mnemo-app -p mnemo-cli >&2
fi
bin="$CARGO_TARGET_DIR/release"

# The model that comes with Mnemo, so chat answers with nothing else set up: llama-server (built
# once into the cache) and Qwen2.5-Coder-1.5B (1.1 GB, fetched once into the shared models
# folder; a stopped install resumes). Used while no model server is set in Settings.
# MNEMO_NO_LOCAL_MODEL=1 skips it.
if [ "${MNEMO_NO_LOCAL_MODEL:-}" != 1 ]; then
  . scripts/llama.sh
  "$bin/mnemo" model install >&2 \
    || echo "The local model could not be installed (above: why); chat needs a model server set in Settings until it is." >&2
fi

if [ "${1:-}" = "--sample" ]; then
  shift
  export MNEMO_HOME="${XDG_CACHE_HOME:-$HOME/.cache}/mnemo-sample"
  if [ ! -e "$MNEMO_HOME/index.db" ]; then
    echo "creating a sample home in $MNEMO_HOME" >&2
    m="$bin/mnemo"
    "$m" add --type feedback --name "Response style" --description "Keep answers terse; no trailing summaries" \
      --body $'Keep replies short and skip the closing recap.\nWhy: the user reads diffs, not prose.\nHow to apply: any answer longer than a screen.' >/dev/null
    "$m" add --type user --name "Go engineer" --description "Senior Go engineer, new to React" \
      --body "Ten years of Go; first React project. Explain frontend ideas in backend terms." >/dev/null
    "$m" add --type reference --name "Latency dashboard" --description "Grafana board for QWEN API latency" \
      --body "https://grafana.example/d/api-latency — check it before touching request handling." >/dev/null
    "$m" add --type project --name "发布冻结" --description "移动端发布前的合并冻结窗口" --body "每月最后一周冻结合并。" >/dev/null
    "$m" add --type user --name "東京オフィス" --description "東京のオフィスで働いている" --body "朝はコーヒー。" >/dev/null
    "$m" add --type user --name "커피 취향" --description "아메리카노를 좋아한다" --body "매일 아침 커피." >/dev/null
  fi
fi

if [ $# -gt 0 ]; then
  exec "$bin/mnemo" "$@"
fi
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec "$bin/mnemo-app"
fi
echo "No display here (DISPLAY/WAYLAND_DISPLAY unset): serving the same UI for a browser instead." >&2
exec "$bin/mnemo" serve --ui ui/dist
