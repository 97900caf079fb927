//! XLM-RoBERTa's SentencePiece Unigram tokenizer, from the vocabulary and normaliser inside the
//! model file: map each code point through the normaliser, collapse runs of spaces, mark word
//! starts with `▁` (one prepended unless the text starts with a space), then pick the split with
//! the highest total piece score (Viterbi). A character no piece covers is `<unk>` scored at the
//! lowest piece score − 10; there is no byte fallback.
//!
//! The arithmetic (f32 sums, first-found wins ties, candidate order) follows the reference
//! engine so that both give the same ids (tested against it).

use super::format::{Normaliser, Vocab};

/// SentencePiece's word-start marker.
const META: char = '\u{2581}';

/// The tokenizer: pieces, their scores and a hash index over their bytes.
#[derive(Debug)]
pub(crate) struct Tokenizer {
    vocab: Vocab,
    normaliser: Normaliser,
    /// Open addressing: piece id + 1, 0 = empty.
    table: Vec<u32>,
    mask: usize,
    unk_score: f32,
    max_piece_bytes: usize,
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Tokenizer {
    pub(crate) fn new(vocab: Vocab, normaliser: Normaliser) -> Self {
        let n = vocab.scores.len();
        let size = (n * 2).next_power_of_two().max(2);
        let mask = size - 1;
        let mut table = vec![0u32; size];
        let mut min_score = f32::INFINITY;
        let mut max_piece_bytes = 1;
        for i in 0..n {
            min_score = min_score.min(vocab.scores[i]);
            let piece = &vocab.blob[vocab.offsets[i] as usize..vocab.offsets[i + 1] as usize];
            max_piece_bytes = max_piece_bytes.max(piece.len());
            if piece.is_empty() {
                continue;
            }
            #[allow(clippy::cast_possible_truncation)]
            let mut at = (fnv1a(piece) as usize) & mask;
            while table[at] != 0 {
                at = (at + 1) & mask;
            }
            table[at] = u32::try_from(i + 1).unwrap_or(u32::MAX);
        }
        Self {
            vocab,
            normaliser,
            table,
            mask,
            unk_score: if n == 0 { -10.0 } else { min_score - 10.0 },
            max_piece_bytes,
        }
    }

    pub(crate) fn bos(&self) -> u32 {
        self.vocab.bos
    }

    pub(crate) fn eos(&self) -> u32 {
        self.vocab.eos
    }

    fn piece(&self, id: usize) -> &[u8] {
        &self.vocab.blob[self.vocab.offsets[id] as usize..self.vocab.offsets[id + 1] as usize]
    }

    fn lookup(&self, bytes: &[u8]) -> Option<usize> {
        #[allow(clippy::cast_possible_truncation)]
        let mut at = (fnv1a(bytes) as usize) & self.mask;
        loop {
            let v = self.table[at];
            if v == 0 {
                return None;
            }
            let id = v as usize - 1;
            if self.piece(id) == bytes {
                return Some(id);
            }
            at = (at + 1) & self.mask;
        }
    }

    /// Push what `c` normalises to.
    fn normalise_into(&self, c: char, out: &mut Vec<char>) {
        match self.normaliser.from.binary_search(&u32::from(c)) {
            Ok(i) => {
                let (a, b) = self.normaliser.ranges[i];
                out.extend(
                    self.normaliser.to[a as usize..b as usize]
                        .iter()
                        .filter_map(|cp| char::from_u32(*cp)),
                );
            }
            Err(_) => out.push(c),
        }
    }

    /// The text's piece ids, without `<s>` / `</s>`. Like the reference engine, the text ends at
    /// its first NUL.
    pub(crate) fn encode(&self, text: &str) -> Vec<u32> {
        let text = text.split('\0').next().unwrap_or("");
        let mut chars: Vec<char> = Vec::with_capacity(text.len() + 1);
        for c in text.chars() {
            let before = chars.len();
            self.normalise_into(c, &mut chars);
            // Collapse runs of spaces as they form.
            let mut w = before;
            for r in before..chars.len() {
                if chars[r] == ' ' && w > 0 && chars[w - 1] == ' ' {
                    continue;
                }
                chars[w] = chars[r];
                w += 1;
            }
            chars.truncate(w);
        }
        // Word-start markers: one in front unless the text starts with a space.
        let mut buf = String::with_capacity(chars.len() * 3 + 3);
        let mut starts: Vec<usize> = Vec::with_capacity(chars.len() + 2);
        if chars.first() != Some(&' ') {
            starts.push(0);
            buf.push(META);
        }
        for c in &chars {
            starts.push(buf.len());
            buf.push(if *c == ' ' { META } else { *c });
        }
        starts.push(buf.len());
        self.viterbi(buf.as_bytes(), &starts)
    }

    fn viterbi(&self, buf: &[u8], starts: &[usize]) -> Vec<u32> {
        let n = starts.len() - 1;
        let mut best = vec![-1e30_f32; n + 1];
        let mut piece: Vec<Option<u32>> = vec![None; n + 1];
        let mut from = vec![0usize; n + 1];
        best[0] = 0.0;
        let unk = self.vocab.unk as usize;
        for i in 0..n {
            if best[i] <= -1e29 {
                continue;
            }
            let b = starts[i];
            for e in i + 1..=n {
                let len = starts[e] - b;
                if len > self.max_piece_bytes {
                    break;
                }
                if let Some(id) = self.lookup(&buf[b..starts[e]])
                    && id != unk
                {
                    let s = best[i] + self.vocab.scores[id];
                    if s > best[e] {
                        best[e] = s;
                        piece[e] = u32::try_from(id).ok();
                        from[e] = i;
                    }
                }
            }
            let s = best[i] + self.unk_score;
            if s > best[i + 1] {
                best[i + 1] = s;
                piece[i + 1] = None;
                from[i + 1] = i;
            }
        }
        let mut out = Vec::new();
        let mut i = n;
        while i > 0 {
            out.push(piece[i].unwrap_or(self.vocab.unk));
            i = from[i];
        }
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy vocabulary: specials, then pieces with scores.
    fn toy(pieces: &[(&str, f32)], norm: &[(u32, &[u32])]) -> Tokenizer {
        let mut all = vec![("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)];
        all.extend_from_slice(pieces);
        let mut offsets = vec![0u32];
        let mut blob = Vec::new();
        for (p, _) in &all {
            blob.extend_from_slice(p.as_bytes());
            offsets.push(u32::try_from(blob.len()).expect("small"));
        }
        let vocab = Vocab {
            offsets,
            scores: all.iter().map(|p| p.1).collect(),
            blob,
            bos: 0,
            eos: 2,
            unk: 3,
        };
        let mut normaliser = Normaliser {
            from: Vec::new(),
            ranges: Vec::new(),
            to: Vec::new(),
        };
        for (cp, to) in norm {
            let a = u32::try_from(normaliser.to.len()).expect("small");
            normaliser.to.extend_from_slice(to);
            let b = u32::try_from(normaliser.to.len()).expect("small");
            normaliser.from.push(*cp);
            normaliser.ranges.push((a, b));
        }
        Tokenizer::new(vocab, normaliser)
    }

    #[test]
    fn the_best_scoring_split_wins_and_words_start_with_the_marker() {
        let t = toy(
            &[
                ("▁", -3.0),
                ("▁hello", -5.0),
                ("▁he", -2.0),
                ("llo", -2.5),
                ("▁world", -4.0),
                ("h", -6.0),
            ],
            &[],
        );
        // "▁he" + "llo" = -4.5 beats "▁hello" = -5.
        assert_eq!(t.encode("hello world"), vec![6, 7, 8]);
        // Spaces collapse; a leading space is the marker itself.
        assert_eq!(t.encode("hello   world"), vec![6, 7, 8]);
        assert_eq!(t.encode(" world"), vec![8]);
    }

    #[test]
    fn unknown_characters_are_unk_and_the_normaliser_applies() {
        let t = toy(
            &[("▁", -3.0), ("a", -1.0), ("▁a", -1.0)],
            &[(0x200B, &[]), (0xFF41, &[0x61])],
        );
        // Full-width "ａ" becomes "a"; a zero-width space disappears; "€" has no piece.
        assert_eq!(t.encode("\u{FF41}\u{200B}a"), vec![6, 5]);
        assert_eq!(t.encode("€€"), vec![4, 3, 3]);
        assert_eq!(t.encode(""), vec![4]);
        assert_eq!(t.encode("a\0hidden"), vec![6]);
    }
}
