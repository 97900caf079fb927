//! Embedding vectors in `index.db`: content-addressed — one row per (content hash,
//! model id) — so they are computed once per distinct content, survive an index rebuild, and a
//! model change re-embeds. A doc's vector is the row whose hash is the doc's current hash; a
//! row no doc points at any more (file deleted or changed, or another model's) is removed by
//! [`Index::gc_vectors`]. A row of the wrong length or with non-finite numbers counts as
//! missing and is re-embedded.
//!
//! Search is exact (every vector of the scope is scored): at 10,000 memories × 384 dimensions
//! that is a few million multiply-adds. The matrix is cached per scope and dropped whenever
//! this connection writes or another process commits (`PRAGMA data_version`).

use std::collections::HashSet;

use mnemo_core::{MemoryType, Result};
use rusqlite::params;

use super::{Hit, Index, ms_to_rfc3339};
use crate::db;
use crate::doc::DocKind;

/// One distinct content that needs a vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedJob {
    /// Content hash (what the vector is stored under).
    pub hash: String,
    /// Name, description and body, in that order: the model sees the start when it is long.
    /// For a record's chunk, its turns' words (`chunks::record_chunks`).
    pub text: String,
    /// A chunk of a conversation record, not a whole doc (counted apart by `embed::fill`).
    pub chunk: bool,
}

/// How far embedding has got in a scope.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VectorCounts {
    /// Docs whose current content has a vector for the model.
    pub embedded: u64,
    /// Docs in the scope.
    pub total: u64,
}

/// The cached matrix of one scope.
pub(super) struct VecCache {
    key: (Option<String>, String, Option<DocKind>),
    stamp: (i64, u64),
    meta: Vec<Hit>,
    dim: usize,
    mat: Vec<f32>,
    /// Each doc's null over the background (mean and spread of its cosines to the background
    /// queries), computed when first asked for; `background` is the (length, first value) of
    /// the background they were computed against.
    nulls: Vec<Option<(f64, f64)>>,
    background: Option<(usize, u32)>,
}

impl VecCache {
    pub(super) fn new(
        key: (Option<String>, String, Option<DocKind>),
        stamp: (i64, u64),
        dim: usize,
        meta: Vec<Hit>,
        mat: Vec<f32>,
    ) -> Self {
        Self {
            key,
            stamp,
            nulls: vec![None; meta.len()],
            meta,
            dim,
            mat,
            background: None,
        }
    }

    /// Whether it holds this scope as of `stamp`, for vectors of `dim`.
    pub(super) fn fresh(
        &self,
        key: &(Option<String>, String, Option<DocKind>),
        stamp: (i64, u64),
        dim: usize,
    ) -> bool {
        &self.key == key && self.stamp == stamp && self.dim == dim
    }

    /// The `limit` rows nearest to `query` (one per path, best first), each with its null over
    /// `background` when given, and how many rows there are.
    pub(super) fn search(
        &mut self,
        query: &[f32],
        limit: usize,
        background: Option<&[f32]>,
    ) -> (Vec<Hit>, usize) {
        let mut hits = nearest(self, query, limit);
        if let Some(bg) = background {
            for (h, i) in &mut hits {
                h.doc_null = self.null_of(*i, bg);
            }
        }
        (hits.into_iter().map(|(h, _)| h).collect(), self.rows())
    }

    /// How many vectors it holds.
    pub(super) fn rows(&self) -> usize {
        self.meta.len()
    }

    /// Row `i`'s null over `background` (computed once per background, then kept); `None` when
    /// the background is not rows of this cache's dimension.
    pub(super) fn null_of(&mut self, i: usize, background: &[f32]) -> Option<(f64, f64)> {
        let dim = self.dim;
        if dim == 0
            || background.is_empty()
            || !background.len().is_multiple_of(dim)
            || i >= self.rows()
        {
            return None;
        }
        let id = (background.len(), background[0].to_bits());
        if self.background != Some(id) {
            self.nulls = vec![None; self.meta.len()];
            self.background = Some(id);
        }
        let row = &self.mat[i * dim..(i + 1) * dim];
        Some(*self.nulls[i].get_or_insert_with(|| doc_null(row, background, dim)))
    }
}

fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(super) fn from_blob(b: &[u8], dim: usize) -> Option<Vec<f32>> {
    if b.len() != dim * 4 {
        return None;
    }
    let v: Vec<f32> = b
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    v.iter().all(|x| x.is_finite()).then_some(v)
}

impl Index {
    pub(super) fn data_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(db::err("reading the index"))
    }

    /// Docs (of one workspace, or all) whose content has no usable vector for `model`, one job
    /// per distinct content, at most `limit`.
    pub fn vectors_missing(
        &self,
        workspace: Option<&str>,
        model: &str,
        dim: usize,
        limit: usize,
    ) -> Result<Vec<EmbedJob>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT d.hash, min(d.name), min(d.description), min(d.body) FROM docs d
                 WHERE (?1 IS NULL OR d.workspace = ?1) AND NOT EXISTS (
                   SELECT 1 FROM vectors v WHERE v.hash = d.hash AND v.model = ?2 AND length(v.vec) = ?3)
                 GROUP BY d.hash ORDER BY min(d.mtime_ms) DESC LIMIT ?4",
            )
            .map_err(db::err("reading the index"))?;
        let dim_bytes = i64::try_from(dim * 4).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut jobs = st
            .query_map(params![workspace, model, dim_bytes, limit], |r| {
                let name: String = r.get(1)?;
                let desc: String = r.get(2)?;
                let body: String = r.get(3)?;
                Ok(EmbedJob {
                    hash: r.get(0)?,
                    text: embedding_text(&name, &desc, &body),
                    chunk: false,
                })
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<EmbedJob>>>)
            .map_err(db::err("reading the index"))?;
        drop(st);
        // Then the records' chunks (found by meaning turn by turn).
        let room = usize::try_from(limit)
            .unwrap_or(usize::MAX)
            .saturating_sub(jobs.len());
        if room > 0 {
            jobs.extend(self.chunks_missing(workspace, model, dim, room)?);
        }
        Ok(jobs)
    }

    /// How many docs of a scope have a vector for `model`.
    pub fn vector_counts(
        &mut self,
        workspace: Option<&str>,
        model: &str,
        dim: usize,
    ) -> Result<VectorCounts> {
        let dim_bytes = i64::try_from(dim * 4).unwrap_or(i64::MAX);
        // Two statements, so a workspace's count reads the covering `docs_file_state` index
        // (it holds the hash), never the wide docs rows.
        let sql = if workspace.is_some() {
            "SELECT count(*), count(v.hash) FROM docs d
             LEFT JOIN vectors v ON v.hash = d.hash AND v.model = ?2 AND length(v.vec) = ?3
             WHERE d.workspace = ?1"
        } else {
            "SELECT count(*), count(v.hash) FROM docs d
             LEFT JOIN vectors v ON v.hash = d.hash AND v.model = ?2 AND length(v.vec) = ?3
             WHERE ?1 IS NULL"
        };
        let mut counts = self
            .conn
            .prepare_cached(sql)
            .and_then(|mut s| {
                s.query_row(params![workspace, model, dim_bytes], |r| {
                    Ok(VectorCounts {
                        total: r.get::<_, i64>(0)?.try_into().unwrap_or(0),
                        embedded: r.get::<_, i64>(1)?.try_into().unwrap_or(0),
                    })
                })
            })
            .map_err(db::err("reading the index"))?;
        // A record counts embedded once every chunk of it is.
        counts.embedded = counts
            .embedded
            .saturating_sub(self.records_partly_embedded(workspace, model, dim)?);
        Ok(counts)
    }

    /// How many docs a scope has, counted up to `cap` (cheap at any size).
    pub fn doc_count_capped(&self, workspace: Option<&str>, cap: usize) -> Result<usize> {
        let cap = i64::try_from(cap).unwrap_or(i64::MAX);
        let sql = if workspace.is_some() {
            "SELECT count(*) FROM (SELECT 1 FROM docs WHERE workspace = ?1 LIMIT ?2)"
        } else {
            "SELECT count(*) FROM (SELECT 1 FROM docs WHERE ?1 IS NULL LIMIT ?2)"
        };
        self.conn
            .prepare_cached(sql)
            .and_then(|mut s| s.query_row(params![workspace, cap], |r| r.get::<_, i64>(0)))
            .map(|n| usize::try_from(n).unwrap_or(0))
            .map_err(db::err("reading the index"))
    }

    /// Whether any vector of `model` is stored at all (a one-shot search skips loading the
    /// model when none is).
    pub fn has_vectors(&self, model: &str) -> Result<bool> {
        self.conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM vectors WHERE model = ?1)")
            .and_then(|mut s| s.query_row([model], |r| r.get(0)))
            .map_err(db::err("reading the index"))
    }

    /// Store vectors: (content hash, vector, truncated). One transaction.
    pub fn store_vectors(&mut self, model: &str, rows: &[(String, Vec<f32>, bool)]) -> Result<()> {
        let e = db::err("storing vectors");
        let tx = self.conn.transaction().map_err(&e)?;
        {
            let mut st = tx
                .prepare_cached(
                    "INSERT INTO vectors (hash, model, truncated, vec) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (hash, model) DO UPDATE SET truncated = excluded.truncated, vec = excluded.vec",
                )
                .map_err(&e)?;
            for (hash, v, truncated) in rows {
                st.execute(params![hash, model, truncated, to_blob(v)])
                    .map_err(&e)?;
            }
        }
        tx.commit().map_err(&e)?;
        self.generation += 1;
        Ok(())
    }

    /// Remove vectors no doc or record chunk points at any more, and every other model's.
    /// Returns how many.
    pub fn gc_vectors(&mut self, model: &str) -> Result<usize> {
        let e = db::err("removing old vectors");
        let live = self.live_chunk_hashes()?;
        let tx = self.conn.transaction().map_err(&e)?;
        tx.execute_batch(
            "CREATE TEMP TABLE IF NOT EXISTS live_chunks (hash TEXT PRIMARY KEY) WITHOUT ROWID;
             DELETE FROM temp.live_chunks;",
        )
        .map_err(&e)?;
        {
            let mut st = tx
                .prepare_cached("INSERT OR IGNORE INTO temp.live_chunks (hash) VALUES (?1)")
                .map_err(&e)?;
            for h in &live {
                st.execute([h]).map_err(&e)?;
            }
        }
        let n = tx
            .execute(
                "DELETE FROM vectors WHERE model <> ?1 OR (hash NOT IN (SELECT hash FROM docs)
                   AND hash NOT IN (SELECT hash FROM temp.live_chunks))",
                [model],
            )
            .map_err(&e)?;
        tx.commit().map_err(&e)?;
        if n > 0 {
            self.generation += 1;
        }
        Ok(n)
    }

    /// The `limit` docs of a scope nearest to `query` (a unit vector), best first, with the
    /// cosine similarity as the score. Docs without a vector are not candidates.
    pub fn vector_search(
        &mut self,
        workspace: Option<&str>,
        model: &str,
        query: &[f32],
        limit: usize,
        kind: Option<DocKind>,
    ) -> Result<Vec<Hit>> {
        Ok(self
            .vector_search_against(workspace, model, query, limit, kind, None)?
            .0)
    }

    /// [`Self::vector_search`], each hit with its doc's null over `background` (rows of
    /// background queries embedded by the same model, one after another): how close
    /// the doc sits to text that is not about it, so a memory close to everything (a short,
    /// generic one) does not stand out for every query. Computed once per doc and kept while
    /// the vectors are. Also returns how many docs of the scope have a vector.
    pub fn vector_search_against(
        &mut self,
        workspace: Option<&str>,
        model: &str,
        query: &[f32],
        limit: usize,
        kind: Option<DocKind>,
        background: Option<&[f32]>,
    ) -> Result<(Vec<Hit>, usize)> {
        let key = (workspace.map(str::to_owned), model.to_owned(), kind);
        let stamp = (self.data_version()?, self.generation);
        let fresh = self
            .vec_cache
            .as_ref()
            .is_some_and(|c| c.fresh(&key, stamp, query.len()));
        if !fresh {
            self.vec_cache = Some(self.load_matrix(key, stamp, query.len())?);
        }
        let Some(cache) = self.vec_cache.as_mut() else {
            return Ok((Vec::new(), 0));
        };
        Ok(cache.search(query, limit, background))
    }

    fn load_matrix(
        &self,
        key: (Option<String>, String, Option<DocKind>),
        stamp: (i64, u64),
        dim: usize,
    ) -> Result<VecCache> {
        let e = db::err("reading vectors");
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT d.workspace, d.path, d.name, d.type, d.description, d.mtime_ms, v.vec
                 FROM docs d JOIN vectors v ON v.hash = d.hash AND v.model = ?2
                 WHERE (?1 IS NULL OR d.workspace = ?1) AND (?3 IS NULL OR d.kind = ?3)",
            )
            .map_err(&e)?;
        let mut meta = Vec::new();
        let mut mat = Vec::new();
        let mut rows = st
            .query(params![key.0, key.1, key.2.map(DocKind::as_str)])
            .map_err(&e)?;
        while let Some(r) = rows.next().map_err(&e)? {
            let blob: Vec<u8> = r.get(6).map_err(&e)?;
            // A damaged row is skipped here and re-embedded (`vectors_missing` sees it).
            let Some(v) = from_blob(&blob, dim) else {
                continue;
            };
            let ty: Option<String> = r.get(3).map_err(&e)?;
            meta.push(Hit {
                workspace: r.get(0).map_err(&e)?,
                path: r.get(1).map_err(&e)?,
                score: 0.0,
                name: r.get(2).map_err(&e)?,
                memory_type: ty.and_then(|t| t.parse::<MemoryType>().ok()),
                description: r.get(4).map_err(&e)?,
                mtime: ms_to_rfc3339(r.get(5).map_err(&e)?),
                vector: None,
                lexical: None,
                matched: Vec::new(),
                doc_null: None,
                passage: None,
                weak: false,
            });
            mat.extend_from_slice(&v);
        }
        Ok(VecCache::new(key, stamp, dim, meta, mat))
    }

    /// Remove vectors whose bytes are damaged (non-finite numbers), so they are re-embedded.
    pub fn drop_damaged_vectors(&mut self, model: &str, dim: usize) -> Result<usize> {
        let e = db::err("checking vectors");
        let bad: Vec<String> = {
            let mut st = self
                .conn
                .prepare_cached("SELECT hash, vec FROM vectors WHERE model = ?1")
                .map_err(&e)?;
            let mut rows = st.query([model]).map_err(&e)?;
            let mut bad = Vec::new();
            while let Some(r) = rows.next().map_err(&e)? {
                let blob: Vec<u8> = r.get(1).map_err(&e)?;
                if from_blob(&blob, dim).is_none() {
                    bad.push(r.get(0).map_err(&e)?);
                }
            }
            bad
        };
        for h in &bad {
            self.conn
                .execute(
                    "DELETE FROM vectors WHERE hash = ?1 AND model = ?2",
                    params![h, model],
                )
                .map_err(&e)?;
        }
        if !bad.is_empty() {
            self.generation += 1;
        }
        Ok(bad.len())
    }
}

/// Mean and spread of a doc's cosines to the background rows.
fn doc_null(doc: &[f32], background: &[f32], dim: usize) -> (f64, f64) {
    let cos: Vec<f64> = background
        .chunks_exact(dim)
        .map(|row| f64::from(dot(row, doc)))
        .collect();
    #[allow(clippy::cast_precision_loss)]
    let n = cos.len().max(1) as f64;
    let mean = cos.iter().sum::<f64>() / n;
    let var = cos.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// Exact top-`limit` by dot product (the vectors are unit length, so this is cosine), each with
/// its row in the cache.
fn nearest(cache: &VecCache, query: &[f32], limit: usize) -> Vec<(Hit, usize)> {
    if cache.dim == 0 || limit == 0 {
        return Vec::new();
    }
    let mut scored: Vec<(f32, usize)> = cache
        .mat
        .chunks_exact(cache.dim)
        .enumerate()
        .map(|(i, row)| (dot(row, query), i))
        .collect();
    let cmp = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    if scored.len() > limit {
        scored.select_nth_unstable_by(limit - 1, cmp);
        scored.truncate(limit);
    }
    scored.sort_by(cmp);
    // The same path may appear once per scope; keep the first (best) of any duplicate.
    let mut seen: HashSet<(&str, &str)> = HashSet::new();
    scored
        .into_iter()
        .filter_map(|(s, i)| {
            let m = &cache.meta[i];
            seen.insert((m.workspace.as_str(), m.path.as_str()))
                .then(|| {
                    let hit = Hit {
                        score: f64::from(s),
                        vector: Some(f64::from(s)),
                        ..m.clone()
                    };
                    (hit, i)
                })
        })
        .collect()
}

/// Dot product in eight lanes (auto-vectorised).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0_f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for ((s, x), y) in acc.iter_mut().zip(x).zip(y) {
            *s += x * y;
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// What a memory's vector is made from: `name: description`, then the body — the description
/// left out when the body already starts with it (a description cut from the body would give
/// the model the same words twice). `name: ` reads as a title and what follows as what it says
/// (LoCoMo's dialog turns, a speaker's name for a name: vectors alone R@5 32.7 with the name on
/// a line of its own, 40.2 as `name: text`). Changing this changes `mnemo_embed::TEXT_RECIPE`.
fn embedding_text(name: &str, desc: &str, body: &str) -> String {
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let d = words(desc);
    let d = d.trim_end_matches(['…', '.']).trim_end();
    if !d.is_empty() && words(body).starts_with(d) {
        format!("{name}: {body}")
    } else {
        format!("{name}: {desc}\n{body}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_description_cut_from_the_body_is_not_embedded_twice() {
        let body = "Hey Mel!  How's it going?\nAll good.";
        assert_eq!(
            super::embedding_text("Caroline", "Hey Mel! How's it going? All…", body),
            format!("Caroline: {body}")
        );
        assert_eq!(
            super::embedding_text("Pet", "a beagle named Biscuit", "Walks twice a day."),
            "Pet: a beagle named Biscuit\nWalks twice a day."
        );
        assert_eq!(super::embedding_text("N", "", "b"), "N: \nb");
    }

    use super::*;

    #[test]
    fn blobs_round_trip_and_damage_is_detected() {
        let v = vec![0.5_f32, -0.25, 1.0];
        assert_eq!(from_blob(&to_blob(&v), 3), Some(v));
        assert_eq!(from_blob(&[0, 0, 0], 3), None, "wrong length");
        assert_eq!(from_blob(&to_blob(&[f32::NAN, 0.0, 0.0]), 3), None);
    }

    #[test]
    fn dot_matches_the_plain_sum() {
        let a: Vec<f32> = (0..19).map(|i| i as f32 * 0.1).collect();
        let b: Vec<f32> = (0..19).map(|i| 1.0 - i as f32 * 0.05).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - plain).abs() < 1e-4);
    }
}
