#!/usr/bin/env bash
# Builds Mnemo and runs it. Until the desktop app lands this is the `mnemo` CLI on a sample home
# it creates (a few memories in English, Chinese, Japanese and Korean), or on $MNEMO_HOME if set.
#   scripts/run.sh                 status, list and a search on the sample home
#   scripts/run.sh <mnemo args>    any mnemo command, e.g. scripts/run.sh search 简洁
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh

cargo build --release --locked -p mnemo-cli >&2
mnemo="$CARGO_TARGET_DIR/release/mnemo"

if [ -z "${MNEMO_HOME:-}" ]; then
  export MNEMO_HOME="${XDG_CACHE_HOME:-$HOME/.cache}/mnemo-sample"
  if [ ! -e "$MNEMO_HOME/index.db" ]; then
    echo "creating a sample home in $MNEMO_HOME" >&2
    "$mnemo" add --type feedback --name "Response style" --description "Keep answers terse; no trailing summaries" \
      --body $'Keep replies short and skip the closing recap.\nWhy: the user reads diffs, not prose.\nHow to apply: any answer longer than a screen.' >/dev/null
    "$mnemo" add --type user --name "Go engineer" --description "Senior Go engineer, new to React" \
      --body "Ten years of Go; first React project. Explain frontend ideas in backend terms." >/dev/null
    "$mnemo" add --type reference --name "Latency dashboard" --description "Grafana board for QWEN API latency" \
      --body "https://grafana.example/d/api-latency — check it before touching request handling." >/dev/null
    "$mnemo" add --type project --name "发布冻结" --description "移动端发布前的合并冻结窗口" \
      --body "每月最后一周冻结合并。" >/dev/null
    "$mnemo" add --type user --name "東京オフィス" --description "東京のオフィスで働いている" --body "朝はコーヒー。" >/dev/null
    "$mnemo" add --type user --name "커피 취향" --description "아메리카노를 좋아한다" --body "매일 아침 커피." >/dev/null
  fi
fi

if [ $# -gt 0 ]; then
  exec "$mnemo" "$@"
fi
"$mnemo" status
echo
"$mnemo" list
echo
echo '$ mnemo search ＱＷＥＮ'
"$mnemo" search 'ＱＷＥＮ'
echo
echo "home: $MNEMO_HOME — try: scripts/run.sh search 冻结 | scripts/run.sh watch | scripts/run.sh --help"
