//! Conversation records found by meaning: a record holds a day of what the person
//! said in one chat, far more than one vector can stand for, so each record is embedded in
//! chunks of [`CHUNK_TURNS`] turns and searched chunk by chunk. A chunk's vector is stored in
//! the `vectors` table like a doc's, under the hash of the chunk's text (content-addressed: a
//! record that grows by a turn keeps the vectors of its earlier chunks), and the chunks are cut
//! again from the record's body whenever they are needed — the body is the truth, nothing else
//! records them.

use std::collections::HashSet;

use mnemo_core::Result;
use rusqlite::params;

use super::vectors::{EmbedJob, VecCache, from_blob};
use super::{Hit, Index, Passage, ms_to_rfc3339};
use crate::db;
use crate::doc::DocKind;

/// What [`Index::records_partly_embedded`]'s answer is kept under: scope, model, dimension and
/// the index's stamp.
pub(super) type PartlyKey = (Option<String>, String, usize, (i64, u64));

/// Turns of a record per chunk.
pub const CHUNK_TURNS: usize = 3;

/// One chunk of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordChunk {
    /// What its vector is stored under: a hash of [`Self::text`].
    pub hash: String,
    /// What is embedded: the turns' words, without their times.
    pub text: String,
    /// The turns as the record writes them (`09:02 — …`), blank-line separated: what recall
    /// shows.
    pub shown: String,
    /// The 1-based line of the body its first turn starts on.
    pub line: u32,
}

/// A record's body cut into chunks of [`CHUNK_TURNS`] turns (its `# Chat on …` heading left
/// out), in order. A turn is a blank-line separated block.
#[must_use]
pub fn record_chunks(body: &str) -> Vec<RecordChunk> {
    // (first line, lines) of each turn.
    let mut turns: Vec<(usize, Vec<&str>)> = Vec::new();
    let mut open = false;
    for (i, line) in body.lines().enumerate() {
        if line.trim().is_empty() {
            open = false;
        } else if open {
            if let Some((_, lines)) = turns.last_mut() {
                lines.push(line);
            }
        } else {
            turns.push((i, vec![line]));
            open = true;
        }
    }
    turns.retain(|(_, lines)| !lines.first().is_some_and(|l| l.starts_with("# ")));
    turns
        .chunks(CHUNK_TURNS)
        .map(|c| {
            let words: Vec<String> = c
                .iter()
                .map(|(_, lines)| without_time(&lines.join("\n")).to_owned())
                .collect();
            let text = words.join("\n");
            let shown = c
                .iter()
                .map(|(_, lines)| lines.join("\n"))
                .collect::<Vec<_>>()
                .join("\n\n");
            RecordChunk {
                hash: chunk_hash(&text),
                text,
                shown,
                line: u32::try_from(c[0].0 + 1).unwrap_or(u32::MAX),
            }
        })
        .collect()
}

/// A turn's text without the `HH:MM — ` the record writer puts before it.
fn without_time(turn: &str) -> &str {
    let b = turn.as_bytes();
    let timed = b.len() > 5
        && b[0].is_ascii_digit()
        && b[1].is_ascii_digit()
        && b[2] == b':'
        && b[3].is_ascii_digit()
        && b[4].is_ascii_digit();
    if timed {
        turn[5..]
            .trim_start()
            .strip_prefix('—')
            .map_or(turn, str::trim_start)
    } else {
        turn
    }
}

/// A chunk's hash: kept apart from files' content hashes by its prefix.
fn chunk_hash(text: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"mnemo record chunk\0");
    h.update(text.as_bytes());
    h.finalize().to_hex().to_string()
}

/// A record as the chunk queries read it.
struct RecordRow {
    hit: Hit,
    body: String,
    body_line: u32,
}

impl Index {
    /// Records of a scope with their bodies.
    fn record_rows(&self, workspace: Option<&str>) -> Result<Vec<RecordRow>> {
        let e = db::err("reading conversation records");
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT workspace, path, name, description, mtime_ms, body, body_line FROM docs
                 WHERE (?1 IS NULL OR workspace = ?1) AND kind = ?2",
            )
            .map_err(&e)?;
        st.query_map(params![workspace, DocKind::Chat.as_str()], |r| {
            Ok(RecordRow {
                hit: Hit {
                    workspace: r.get(0)?,
                    path: r.get(1)?,
                    score: 0.0,
                    name: r.get(2)?,
                    description: r.get(3)?,
                    mtime: ms_to_rfc3339(r.get(4)?),
                    ..Hit::default()
                },
                body: r.get(5)?,
                body_line: r.get(6)?,
            })
        })
        .and_then(Iterator::collect)
        .map_err(&e)
    }

    /// Every chunk hash of every record: the chunk vectors still in use.
    pub(super) fn live_chunk_hashes(&self) -> Result<HashSet<String>> {
        Ok(self
            .record_rows(None)?
            .iter()
            .flat_map(|r| record_chunks(&r.body))
            .map(|c| c.hash)
            .collect())
    }

    fn has_vector(&self, hash: &str, model: &str, dim: usize) -> Result<bool> {
        let dim_bytes = i64::try_from(dim * 4).unwrap_or(i64::MAX);
        self.conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM vectors WHERE hash = ?1 AND model = ?2 AND length(vec) = ?3)",
            )
            .and_then(|mut s| s.query_row(params![hash, model, dim_bytes], |r| r.get(0)))
            .map_err(db::err("reading vectors"))
    }

    /// Record chunks of a scope without a usable vector for `model`, at most `limit`, one job
    /// per distinct chunk.
    pub(super) fn chunks_missing(
        &self,
        workspace: Option<&str>,
        model: &str,
        dim: usize,
        limit: usize,
    ) -> Result<Vec<EmbedJob>> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for r in self.record_rows(workspace)? {
            for c in record_chunks(&r.body) {
                if out.len() >= limit {
                    return Ok(out);
                }
                if seen.insert(c.hash.clone()) && !self.has_vector(&c.hash, model, dim)? {
                    out.push(EmbedJob {
                        hash: c.hash,
                        text: c.text,
                        chunk: true,
                    });
                }
            }
        }
        Ok(out)
    }

    /// How many records of a scope have their own vector but not yet every chunk's: they are
    /// not counted embedded until they do.
    pub(super) fn records_partly_embedded(
        &mut self,
        workspace: Option<&str>,
        model: &str,
        dim: usize,
    ) -> Result<u64> {
        // The status asks often and the answer changes only with a write: kept per stamp.
        let key = (
            workspace.map(str::to_owned),
            model.to_owned(),
            dim,
            (self.data_version()?, self.generation),
        );
        if let Some((k, n)) = &self.partly_cache
            && *k == key
        {
            return Ok(*n);
        }
        let n = self.count_partly_embedded(workspace, model, dim)?;
        self.partly_cache = Some((key, n));
        Ok(n)
    }

    fn count_partly_embedded(
        &self,
        workspace: Option<&str>,
        model: &str,
        dim: usize,
    ) -> Result<u64> {
        let mut n = 0;
        for r in self.record_rows(workspace)? {
            let hash: String = self
                .conn
                .prepare_cached("SELECT hash FROM docs WHERE workspace = ?1 AND path = ?2")
                .and_then(|mut s| {
                    s.query_row(params![r.hit.workspace, r.hit.path], |row| row.get(0))
                })
                .map_err(db::err("reading the index"))?;
            if !self.has_vector(&hash, model, dim)? {
                continue;
            }
            for c in record_chunks(&r.body) {
                if !self.has_vector(&c.hash, model, dim)? {
                    n += 1;
                    break;
                }
            }
        }
        Ok(n)
    }

    /// The `limit` records of a scope nearest to `query` by their best chunk, best first, the
    /// score the chunk's cosine and the passage the chunk's turns (with the line of the file
    /// they start on); each with its chunk's null over `background` when given. Also returns how
    /// many chunks have a vector.
    pub fn record_chunk_search(
        &mut self,
        workspace: Option<&str>,
        model: &str,
        query: &[f32],
        limit: usize,
        background: Option<&[f32]>,
    ) -> Result<(Vec<Hit>, usize)> {
        let key = (workspace.map(str::to_owned), model.to_owned(), None);
        let stamp = (self.data_version()?, self.generation);
        let fresh = self
            .chunk_cache
            .as_ref()
            .is_some_and(|c| c.fresh(&key, stamp, query.len()));
        if !fresh {
            let cache = self.load_chunks(key, stamp, query.len())?;
            self.chunk_cache = Some(cache);
        }
        let Some(cache) = self.chunk_cache.as_mut() else {
            return Ok((Vec::new(), 0));
        };
        Ok(cache.search(query, limit, background))
    }

    fn load_chunks(
        &self,
        key: (Option<String>, String, Option<DocKind>),
        stamp: (i64, u64),
        dim: usize,
    ) -> Result<VecCache> {
        let e = db::err("reading vectors");
        let mut meta = Vec::new();
        let mut mat = Vec::new();
        let mut st = self
            .conn
            .prepare_cached("SELECT vec FROM vectors WHERE hash = ?1 AND model = ?2")
            .map_err(&e)?;
        for r in self.record_rows(key.0.as_deref())? {
            for c in record_chunks(&r.body) {
                let blob: Option<Vec<u8>> = st
                    .query_row(params![c.hash, key.1], |row| row.get(0))
                    .map(Some)
                    .or_else(|err| match err {
                        rusqlite::Error::QueryReturnedNoRows => Ok(None),
                        other => Err(other),
                    })
                    .map_err(&e)?;
                let Some(v) = blob.and_then(|b| from_blob(&b, dim)) else {
                    continue;
                };
                meta.push(Hit {
                    passage: Some(Passage {
                        text: c.shown,
                        line: r.body_line.saturating_add(c.line).saturating_sub(1),
                    }),
                    ..r.hit.clone()
                });
                mat.extend_from_slice(&v);
            }
        }
        Ok(VecCache::new(key, stamp, dim, meta, mat))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "# Chat on 2026-11-27 (UTC)\n\n09:01 — Good morning!\n\n09:02 — I'm allergic to peanuts\nand sesame.\n\n09:05 — Which trains go to Porto?\n\n09:07 — Thanks.\n";

    #[test]
    fn a_record_is_cut_into_chunks_of_turns_without_its_heading_or_times() {
        let c = record_chunks(BODY);
        assert_eq!(c.len(), 2);
        assert_eq!(
            c[0].text,
            "Good morning!\nI'm allergic to peanuts\nand sesame.\nWhich trains go to Porto?"
        );
        assert!(
            c[0].shown
                .starts_with("09:01 — Good morning!\n\n09:02 — I'm allergic")
        );
        assert_eq!(c[0].line, 3);
        assert_eq!((c[1].text.as_str(), c[1].line), ("Thanks.", 10));
        // Content-addressed: the same turns give the same hash in a longer record.
        let longer = format!("{BODY}\n09:30 — One more thing.\n");
        assert_eq!(record_chunks(&longer)[0].hash, c[0].hash);
        assert_ne!(record_chunks(&longer)[1].hash, c[1].hash);
        assert!(record_chunks("# Chat on 2026-11-27 (UTC)\n").is_empty());
        assert_eq!(without_time("12:3x — a"), "12:3x — a");
        assert_eq!(without_time("no time"), "no time");
    }
}
