#!/usr/bin/env python3
"""Builds every test target of the workspace once, then runs the test binaries two at a time.

`cargo test` runs one binary after another: while the 10,000-memory recall eval embeds or the
local-model walk waits on its server, nothing else runs. Here cargo builds exactly what
`cargo test --workspace --all-targets` builds (linted too, when test.sh's clippy wrapper is
set: it is nothing more to compile after the build step); the
binaries it would run are taken from its JSON messages and run `MNEMO_TEST_LANES` (default 2)
at a time, each as cargo runs it (from its package's folder, with CARGO_MANIFEST_DIR and
CARGO_PKG_NAME set). Each binary's output is printed whole when it ends; every failing binary is
named at the end (as `--no-fail-fast`), with a table of where the time went.

Two steps can share one cargo call: `--build-only LIST` builds and writes the binaries to LIST
(JSON), `--from LIST` runs them without calling cargo again. A second cargo call right after a
build from nothing compiles the app once more: tauri-codegen writes its embedded assets into
OUT_DIR while the app compiles and `include_bytes!`s them, so cargo finds them newer than that
compile the first time it looks again (~17 s on this machine).

The binaries that drive a real model server with time limits on each call (the local-model walk,
the SmolLM2 suite: `ALONE`) run after the others, one at a time, as `cargo test` runs them. The
longest of the rest start first: each run's times are kept in
`$XDG_CACHE_HOME/mnemo/test-times.json` (outside the clone); without them, integration suites go
before unit tests.
"""

import json
import os
import pathlib
import queue
import subprocess
import sys
import threading
import time


# Each of these drives a real model server whose every call has a time limit: they run alone.
ALONE = {"mnemo-cli test local_model", "mnemo-cli test real_model"}


def cache_file() -> pathlib.Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "mnemo" / "test-times.json"


def package_name(package_id: str) -> str:
    """`path+file:///…/mnemo-cli#0.1.0` (named by its folder) or `…#mnemo-app@0.1.0`."""
    if "#" in package_id:
        url, frag = package_id.split("#", 1)
        return frag.split("@")[0] if "@" in frag else url.rstrip("/").rsplit("/", 1)[-1]
    return package_id.split(" ")[0]


def build() -> list[dict]:
    """Compile every test target; the binaries `cargo test` would run, in cargo's order."""
    cmd = ["cargo", "test", "--workspace", "--all-targets", "--locked", "--no-run",
           "--message-format=json-render-diagnostics"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    seen, found = set(), []
    assert proc.stdout is not None
    for line in proc.stdout:
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            sys.stderr.write(line)
            continue
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        kinds = msg["target"]["kind"]
        # What `cargo test` runs: every target compiled as a test (unit tests of libs and bins,
        # integration tests) and the benches (a smoke pass). The plain binaries built for the
        # integration tests and the examples are not tests.
        if not (msg["profile"]["test"] or "bench" in kinds):
            continue
        exe = msg["executable"]
        if exe in seen:
            continue
        seen.add(exe)
        manifest = pathlib.Path(msg["manifest_path"])
        pkg_name = package_name(msg["package_id"])
        found.append({
            "name": f"{pkg_name} {kinds[0]} {msg['target']['name']}",
            "exe": exe,
            "dir": str(manifest.parent),
            "package": pkg_name,
            "kind": kinds[0],
        })
    if proc.wait() != 0:
        sys.exit(f"cargo could not build the tests (exit {proc.returncode}); its messages are above")
    return found


def main() -> int:
    lanes = max(1, int(os.environ.get("MNEMO_TEST_LANES", "2")))
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--build-only":
        bins = build()
        if not bins:
            sys.exit("cargo built no test binaries")
        pathlib.Path(args[1]).write_text(json.dumps(bins))
        return 0
    if len(args) == 2 and args[0] == "--from":
        try:
            bins = json.loads(pathlib.Path(args[1]).read_text())
        except (OSError, ValueError) as e:
            sys.exit(f"cannot read the list of test binaries {args[1]} ({e}): run with --build-only first")
    elif not args:
        bins = build()
    else:
        sys.exit("usage: test-lanes.py [--build-only LIST | --from LIST]")
    if not bins:
        sys.exit("cargo built no test binaries")
    try:
        history = json.loads(cache_file().read_text())
    except (OSError, ValueError):
        history = {}
    # Longest first (list scheduling). With no times kept yet (a fresh machine), the two suites
    # measured longest from bare (the engine's, ~470 s with the 10,000-memory eval; the CLI's,
    # ~210 s) lead, then integration suites before unit tests.
    first_run = {"mnemo-engine test engine": 470.0, "mnemo-cli test cli": 210.0}
    bins.sort(key=lambda b: (-history.get(b["name"], first_run.get(b["name"], 0.0)),
                             b["kind"] != "test"))

    todo: "queue.Queue[dict]" = queue.Queue()
    for b in bins:
        if b["name"] not in ALONE:
            todo.put(b)
    print_lock = threading.Lock()
    results: list[tuple[str, int, float]] = []
    running: set[subprocess.Popen] = set()

    def lane() -> None:
        while True:
            try:
                b = todo.get_nowait()
            except queue.Empty:
                return
            env = dict(os.environ, CARGO_MANIFEST_DIR=b["dir"], CARGO_PKG_NAME=b["package"])
            t0 = time.monotonic()
            with print_lock:
                print(f"[tests] started  {b['name']}", file=sys.stderr, flush=True)
            try:
                proc = subprocess.Popen([b["exe"]], cwd=b["dir"], env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)
            except OSError as e:
                with print_lock:
                    results.append((b["name"], 127, 0.0))
                    print(f"[tests] {b['name']}: could not start {b['exe']}: {e}", flush=True)
                continue
            with print_lock:
                running.add(proc)
            out, _ = proc.communicate()
            took = time.monotonic() - t0
            with print_lock:
                running.discard(proc)
                results.append((b["name"], proc.returncode, took))
                text = out.decode("utf-8", "replace")
                sys.stdout.write(f"\n     Running {b['name']} ({b['exe']})\n{text}")
                status = "ok" if proc.returncode == 0 else f"FAILED (exit {proc.returncode})"
                sys.stdout.write(f"[tests] {b['name']}: {status} in {took:.1f} s\n")
                sys.stdout.flush()

    t0 = time.monotonic()
    try:
        threads = [threading.Thread(target=lane) for _ in range(lanes)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Then the ones that run alone, one after another.
        for b in bins:
            if b["name"] in ALONE:
                todo.put(b)
        lane()
    except KeyboardInterrupt:
        with print_lock:
            for p in running:
                p.kill()
        raise
    wall = time.monotonic() - t0

    missing = {b["name"] for b in bins} - {r[0] for r in results}
    for name in sorted(missing):  # never reported as passed when it did not run
        results.append((name, -1, 0.0))
    failed = [r for r in results if r[1] != 0]
    history.update({name: round(took, 1) for name, _, took in results})
    try:
        cache_file().parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file().with_suffix(".tmp")
        tmp.write_text(json.dumps(history, indent=1, sort_keys=True))
        tmp.replace(cache_file())
    except OSError:
        pass
    print(f"\n[tests] {len(results)} test binaries, {lanes} at a time, in {wall:.0f} s "
          f"(one after another: {sum(r[2] for r in results):.0f} s); the longest:", file=sys.stderr)
    for name, code, took in sorted(results, key=lambda r: -r[2])[:12]:
        print(f"  {took:7.1f} s  {name}{'' if code == 0 else '  FAILED'}", file=sys.stderr)
    if failed:
        print(f"[tests] {len(failed)} test binaries failed:", file=sys.stderr)
        for name, code, _ in failed:
            print(f"  {name} (exit {code})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
