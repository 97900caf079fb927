//! Text → piece ids, exactly as SentencePiece does for this model.
//!
//! The vocabulary (128,000 pieces with their unigram log-probabilities; `<unk>` = 0, `<s>` = 1,
//! `</s>` = 2) is the `Unigram` model of `tokenizer.json`, loaded by the `tokenizers` crate,
//! whose Viterbi search gives SentencePiece's ids on SentencePiece's normalised text (checked
//! over 20,000 random multi-script strings, and by `tests/embed/use_reference.rs`), a run of
//! characters no piece covers included (one `<unk>` for the run).
//!
//! Normalisation is done here, not by the file's `Precompiled` normaliser: that one looks up
//! whole grapheme clusters, where SentencePiece takes the longest match of its rules at each
//! byte, and the two differ on decomposed Hangul, decomposed Vietnamese and half-width kana
//! with sound marks (11 of 72 sentences in four Unicode forms). SentencePiece's way, with the
//! rules of the file's `precompiled_charsmap` (the model's `nmt_nfkc` table):
//! - the table is a little-endian u32 (the trie's size in bytes), a darts-clone double-array
//!   trie of u32 units, then NUL-terminated replacement strings; at each position the longest
//!   key that prefixes the rest of the text is replaced by its string, and where no key matches
//!   one character is kept as it is;
//! - spaces (plain U+0020, after replacement) are trimmed at both ends and runs of them become
//!   one; the text then starts with `▁` (U+2581) and every space becomes `▁`;
//! - text that normalises to nothing has no pieces: its ids are `<s> </s>`.
//!
//! Every text's ids are `<s>`, the pieces, `</s>`.

use std::path::Path;

use tokenizers::Model;
use tokenizers::models::ModelWrapper;

/// `<unk>`.
pub(crate) const UNK: u32 = 0;
/// `<s>`, first of every text.
pub(crate) const BOS: u32 = 1;
/// `</s>`, last of every text.
pub(crate) const EOS: u32 = 2;

/// The model's tokenizer.
pub(crate) struct Tokenizer {
    charsmap: Charsmap,
    /// The whole `tokenizer.json`, of which only the Unigram model is used (a copy of the
    /// model alone would hold its ~100 MB trie twice while loading).
    file: tokenizers::Tokenizer,
}

impl Tokenizer {
    /// Load `tokenizer.json`: its Unigram model and its precompiled charsmap.
    pub(crate) fn load(path: &Path) -> Result<Self, String> {
        /// The part of the file read here; the rest is the `tokenizers` crate's.
        #[derive(serde::Deserialize)]
        struct Head {
            #[serde(default)]
            normalizer: serde_json::Value,
        }
        let name = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
        let head: Head =
            serde_json::from_str(&text).map_err(|e| format!("{name} cannot be read: {e}"))?;
        let encoded = head.normalizer["normalizers"]
            .as_array()
            .and_then(|n| {
                n.iter()
                    .find(|x| x["type"] == "Precompiled")
                    .and_then(|x| x["precompiled_charsmap"].as_str())
            })
            .ok_or_else(|| format!("{name} has no Precompiled normaliser charsmap"))?;
        let bytes = base64(encoded).ok_or_else(|| format!("{name}: the charsmap is not base64"))?;
        let charsmap =
            Charsmap::new(&bytes).ok_or_else(|| format!("{name}: the charsmap is malformed"))?;
        let file: tokenizers::Tokenizer = text
            .parse()
            .map_err(|e| format!("{name} cannot be read by the tokenizers library: {e}"))?;
        let ModelWrapper::Unigram(model) = file.get_model() else {
            return Err(format!("{name} does not hold a Unigram model"));
        };
        if model.get_vocab_size() <= EOS as usize || model.id_to_token(UNK).is_none() {
            return Err(format!("{name}: the vocabulary lacks <unk>, <s> and </s>"));
        }
        Ok(Self { charsmap, file })
    }

    /// Pieces in the vocabulary.
    pub(crate) fn vocab_size(&self) -> usize {
        self.file.get_model().get_vocab_size()
    }

    /// `text`'s ids, `<s>` … `</s>` included.
    pub(crate) fn ids(&self, text: &str) -> Vec<u32> {
        let normalized = self.normalize(text);
        let mut ids = vec![BOS];
        if !normalized.is_empty() {
            match self.file.get_model().tokenize(&normalized) {
                Ok(tokens) => ids.extend(tokens.iter().map(|t| t.id)),
                // Only a model without <unk> can fail, and loading refused that.
                Err(_) => ids.push(UNK),
            }
        }
        ids.push(EOS);
        ids
    }

    /// SentencePiece's normalised form of `text` (`▁` for spaces, one at the start).
    pub(crate) fn normalize(&self, text: &str) -> String {
        let bytes = text.as_bytes();
        let mut pos = 0;
        // Leading input that normalises to a single space is dropped.
        while pos < bytes.len() {
            let (piece, used) = self.charsmap.prefix(&bytes[pos..]);
            if piece != b" " {
                break;
            }
            pos += used;
        }
        if pos >= bytes.len() {
            return String::new();
        }
        const SPACE: &[u8] = "▁".as_bytes();
        let mut out: Vec<u8> = Vec::with_capacity(bytes.len() + 8);
        out.extend_from_slice(SPACE);
        let mut prev_space = true;
        while pos < bytes.len() {
            let (mut piece, used) = self.charsmap.prefix(&bytes[pos..]);
            pos += used;
            if prev_space {
                while let [b' ', rest @ ..] = piece {
                    piece = rest;
                }
            }
            if piece.is_empty() {
                continue;
            }
            for &b in piece {
                if b == b' ' {
                    out.extend_from_slice(SPACE);
                } else {
                    out.push(b);
                }
            }
            prev_space = piece.ends_with(b" ");
        }
        while out.ends_with(SPACE) {
            out.truncate(out.len() - SPACE.len());
        }
        match String::from_utf8(out) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }
    }
}

/// SentencePiece's precompiled normalisation rules.
struct Charsmap {
    /// The double-array trie's units.
    units: Vec<u32>,
    /// NUL-terminated replacement strings, addressed by the trie's values.
    replacements: Vec<u8>,
}

impl Charsmap {
    fn new(bytes: &[u8]) -> Option<Self> {
        let size = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        if !size.is_multiple_of(4) || size == 0 {
            return None;
        }
        let trie = bytes.get(4..4 + size)?;
        let units = trie
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Some(Self {
            units,
            replacements: bytes[4 + size..].to_vec(),
        })
    }

    /// What the start of `input` normalises to, and how many bytes of it that consumed: the
    /// longest matching rule's replacement, else the first character unchanged.
    fn prefix<'a>(&'a self, input: &'a [u8]) -> (&'a [u8], usize) {
        let mut best: Option<(usize, usize)> = None;
        let offset = |unit: u32| ((unit >> 10) << ((unit & 0x200) >> 6)) as usize;
        let Some(&root) = self.units.first() else {
            return (&input[..char_len(input)], char_len(input));
        };
        let mut node = offset(root);
        for (i, &c) in input.iter().enumerate() {
            if c == 0 {
                break;
            }
            node ^= usize::from(c);
            let Some(&unit) = self.units.get(node) else {
                break;
            };
            // The label (low byte, and the leaf bit, which a child never has) must be `c`.
            if unit & 0x8000_00FF != u32::from(c) {
                break;
            }
            node ^= offset(unit);
            if unit & 0x100 != 0 {
                match self.units.get(node) {
                    Some(&leaf) => best = Some((i + 1, (leaf & 0x7FFF_FFFF) as usize)),
                    None => break,
                }
            }
        }
        if let Some((len, at)) = best
            && let Some(rest) = self.replacements.get(at..)
        {
            let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
            return (&rest[..end], len);
        }
        let n = char_len(input);
        (&input[..n], n)
    }
}

/// The byte length of the UTF-8 character `s` starts with (1 for a stray byte).
fn char_len(s: &[u8]) -> usize {
    let n = match s.first() {
        Some(b) if *b < 0x80 => 1,
        Some(b) if b >> 5 == 0b110 => 2,
        Some(b) if b >> 4 == 0b1110 => 3,
        Some(b) if b >> 3 == 0b11110 => 4,
        _ => 1,
    };
    if n > s.len() || s[1..n].iter().any(|b| b >> 6 != 0b10) {
        1.min(s.len())
    } else {
        n
    }
}

/// Standard base64 (with or without `=` padding); `None` on any other character.
fn base64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes().filter(|&c| c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(base64("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64("aGVsbG8").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64("AAEC/w==").as_deref(), Some(&[0u8, 1, 2, 255][..]));
        assert!(base64("a b").is_none());
    }

    #[test]
    fn a_malformed_charsmap_is_refused_and_no_rules_keep_characters() {
        assert!(Charsmap::new(&[1, 2]).is_none());
        assert!(Charsmap::new(&[8, 0, 0, 0, 1]).is_none());
        assert!(Charsmap::new(&[3, 0, 0, 0, 1, 2, 3]).is_none());
        // A trie whose root leads nowhere: every character is kept.
        let c = Charsmap::new(&[4, 0, 0, 0, 0, 0, 0, 0]).expect("one unit");
        assert_eq!(c.prefix("é!".as_bytes()), ("é".as_bytes(), 2));
        assert_eq!(char_len(b"\xe6\x97"), 1);
    }
}
