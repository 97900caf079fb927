//! The background set: a few hundred neutral passages across the languages Mnemo
//! serves (`background.txt`), embedded once per model and cached beside it. A query's cosines
//! to them are that query's *null distribution* — how close the model puts it to text that is
//! not about it. e5 puts almost every pair of texts between ~0.77 and ~0.88, and where in that
//! band a query's unrelated pairs sit depends on the query's wording; so whether a memory is
//! about the query is read as how far its cosine stands above this query's null ([`Null`]),
//! not as an absolute cosine. The same holds for MiniLM or any future model, with no floors set
//! by hand.
//!
//! Only passages the model reads count ([`crate::Embedder::reads`]): an English-only model's
//! background is its Latin-script passages.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The passages, one per line.
pub const PASSAGES: &str = include_str!("background.txt");

/// How a query's cosines to the background spread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Null {
    /// Their mean.
    pub mean: f64,
    /// Their standard deviation (never under [`MIN_SD`]).
    pub sd: f64,
}

/// The least spread a null is given: a query equally far from every passage would otherwise
/// turn tiny differences into large z-scores.
pub const MIN_SD: f64 = 0.005;

impl Null {
    /// How many standard deviations `cos` stands above the null.
    #[must_use]
    pub fn z(&self, cos: f64) -> f64 {
        (cos - self.mean) / self.sd
    }

    /// The cosine that stands `z` standard deviations above the null.
    #[must_use]
    pub fn cosine_at(&self, z: f64) -> f64 {
        self.mean + z * self.sd
    }
}

/// The embedded background of one model: `n` unit vectors of `dim` numbers, row after row.
#[derive(Debug, Clone, PartialEq)]
pub struct Background {
    dim: usize,
    vectors: Vec<f32>,
}

impl Background {
    /// From vectors (each of `dim` numbers).
    #[must_use]
    pub fn new(dim: usize, rows: &[Vec<f32>]) -> Self {
        Self {
            dim,
            vectors: rows.iter().flatten().copied().collect(),
        }
    }

    /// How many passages.
    #[must_use]
    pub fn len(&self) -> usize {
        self.vectors.len().checked_div(self.dim).unwrap_or(0)
    }

    /// Whether it holds no passage.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The query's null: its cosines to every passage, as mean and spread. `None` for a vector
    /// of another length or an empty background.
    #[must_use]
    pub fn null_of(&self, query: &[f32]) -> Option<Null> {
        if query.len() != self.dim || self.is_empty() {
            return None;
        }
        let cos: Vec<f64> = self
            .vectors
            .chunks_exact(self.dim)
            .map(|row| f64::from(crate::dot(row, query)))
            .collect();
        #[allow(clippy::cast_precision_loss)]
        let n = cos.len() as f64;
        let mean = cos.iter().sum::<f64>() / n;
        let var = cos.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n;
        Some(Null {
            mean,
            sd: var.sqrt().max(MIN_SD),
        })
    }

    /// The rows, one after another.
    #[must_use]
    pub fn rows(&self) -> &[f32] {
        &self.vectors
    }

    /// The cache file for a model and a role (`passage` or `query`):
    /// `<dir>/background-<model id>-<role>-<hash of the passages>.f32`.
    #[must_use]
    pub fn cache_path(dir: &Path, model_id: &str, role: &str) -> PathBuf {
        let safe: String = model_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let hash = blake3::hash(PASSAGES.as_bytes()).to_hex();
        dir.join(format!("background-{safe}-{role}-{}.f32", &hash[..12]))
    }

    /// Read a cached background: a header `MNBG`, the dimension and the row count (u32 little
    /// endian), then the rows. `None` when missing, damaged or of another dimension.
    #[must_use]
    pub fn read(path: &Path, dim: usize) -> Option<Self> {
        let bytes = std::fs::read(path).ok()?;
        let (head, body) = bytes.split_at_checked(12)?;
        let word = |i: usize| -> Option<usize> {
            let b: [u8; 4] = head.get(i..i + 4)?.try_into().ok()?;
            usize::try_from(u32::from_le_bytes(b)).ok()
        };
        if head.get(..4)? != b"MNBG" || word(4)? != dim {
            return None;
        }
        let rows = word(8)?;
        if rows == 0 || body.len() != rows.checked_mul(dim)?.checked_mul(4)? {
            return None;
        }
        let vectors: Vec<f32> = body
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        vectors
            .iter()
            .all(|x| x.is_finite())
            .then_some(Self { dim, vectors })
    }

    /// Write it atomically (a temporary file renamed over the target, so two processes
    /// embedding at once each leave a whole file).
    ///
    /// # Errors
    /// When the folder cannot be written.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or_else(|| Path::new("."));
        let mut tmp = tempfile_in(dir)?;
        let mut out = Vec::with_capacity(12 + self.vectors.len() * 4);
        out.extend_from_slice(b"MNBG");
        for n in [self.dim, self.len()] {
            let n = u32::try_from(n).map_err(std::io::Error::other)?;
            out.extend_from_slice(&n.to_le_bytes());
        }
        for x in &self.vectors {
            out.extend_from_slice(&x.to_le_bytes());
        }
        tmp.1.write_all(&out)?;
        tmp.1.sync_all()?;
        std::fs::rename(&tmp.0, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp.0);
        })
    }
}

/// A new file in `dir` with a name no other process uses.
fn tempfile_in(dir: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let path = dir.join(format!(".background-{}-{nanos}.tmp", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    Ok((path, file))
}

/// The passages a model reads, in file order.
pub fn passages(reads: impl Fn(&str) -> bool) -> Vec<&'static str> {
    PASSAGES
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && reads(l))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_spans_the_languages_mnemo_serves() {
        let all = passages(|_| true);
        assert!(all.len() >= 300, "{} passages", all.len());
        let has = |f: fn(char) -> bool| all.iter().filter(|p| p.chars().any(f)).count();
        assert!(has(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) >= 60);
        assert!(has(|c| ('\u{3040}'..='\u{30ff}').contains(&c)) >= 30);
        assert!(has(|c| ('\u{ac00}'..='\u{d7af}').contains(&c)) >= 30);
        let unique: std::collections::HashSet<&&str> = all.iter().collect();
        assert_eq!(unique.len(), all.len(), "no passage twice");
    }

    #[test]
    fn a_null_is_the_spread_of_the_querys_cosines() {
        let bg = Background::new(2, &[vec![1.0, 0.0], vec![0.0, 1.0]]);
        let n = bg.null_of(&[1.0, 0.0]).expect("null");
        assert!((n.mean - 0.5).abs() < 1e-9 && (n.sd - 0.5).abs() < 1e-9);
        assert!((n.z(1.0) - 1.0).abs() < 1e-9);
        assert!((n.cosine_at(2.0) - 1.5).abs() < 1e-9);
        assert_eq!(bg.null_of(&[1.0, 0.0, 0.0]), None, "another model's vector");
        let flat = Background::new(2, &[vec![1.0, 0.0], vec![1.0, 0.0]]);
        assert!((flat.null_of(&[1.0, 0.0]).expect("null").sd - MIN_SD).abs() < 1e-12);
    }

    #[test]
    fn the_cache_round_trips_and_refuses_what_it_did_not_write() {
        let d = tempfile::tempdir().expect("tmp");
        let bg = Background::new(3, &[vec![0.5, 0.25, -1.0], vec![0.0, 1.0, 0.0]]);
        let path = Background::cache_path(d.path(), "multilingual-e5-small-q4@0123/x", "query");
        assert!(
            path.file_name()
                .is_some_and(|n| !n.to_string_lossy().contains('/'))
        );
        bg.write(&path).expect("write");
        assert_eq!(Background::read(&path, 3), Some(bg));
        assert_eq!(Background::read(&path, 4), None, "another dimension");
        let mut bytes = std::fs::read(&path).expect("read");
        bytes.truncate(bytes.len() - 2);
        std::fs::write(&path, &bytes).expect("write");
        assert_eq!(Background::read(&path, 3), None, "truncated");
        std::fs::write(&path, b"garbage").expect("write");
        assert_eq!(Background::read(&path, 3), None);
        let leftovers = std::fs::read_dir(d.path()).expect("dir").count();
        assert_eq!(leftovers, 1, "no temporary file left behind");
    }
}
