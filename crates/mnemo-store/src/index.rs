//! `index.db`: every doc of every workspace, its entries, and an FTS5 table over
//! pre-tokenised text (see [`crate::tokenize`]) ranked with bm25 (name and description weigh
//! more than the body).
//!
//! Invariant: the index is derived from the files and holds nothing that cannot be rebuilt.
//! A corrupt or too-new `index.db` is moved aside and rebuilt from the files.

use std::collections::HashMap;
use std::path::Path;

use mnemo_core::{Error, ErrorCode, MemoryType, Result};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use crate::db::{self, MigrateOutcome};
use crate::doc::{DocKind, DocRecord};
use crate::fsutil;
use crate::tokenize;

mod chunks;
mod schema;
mod search;
mod vectors;

pub use chunks::{CHUNK_TURNS, RecordChunk, record_chunks};
pub use vectors::{EmbedJob, VectorCounts};

use schema::MIGRATIONS;

/// A doc as `list` shows it.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::DocSummary`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocSummary {
    pub workspace: String,
    pub path: String,
    pub kind: DocKind,
    /// Memory type (`None` for logs and invalid files).
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    pub name: String,
    pub description: String,
    pub mtime: String,
    pub valid: bool,
    /// Why not, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<ProblemOut>,
    /// What secrets the file holds (`github_token (line 3)`): another program wrote them. Mnemo
    /// shows, indexes and recalls it redacted, keeps none of its bytes, and its jobs never change
    /// it; a person should remove the secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    pub pinned: bool,
    pub archived: bool,
}

/// A flagged file's problem as it crosses the wire.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ProblemOut`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProblemOut {
    pub code: String,
    pub message: String,
}

/// A search result.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Hit`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Hit {
    pub workspace: String,
    pub path: String,
    pub score: f64,
    pub name: String,
    /// Memory type (`None` for logs and invalid files).
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    pub description: String,
    pub mtime: String,
    /// Cosine similarity to the query's vector (hybrid search, when it was a vector candidate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector: Option<f64>,
    /// BM25 as 0–1 of the best match (when it shared words with the query).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexical: Option<f64>,
    /// The words of its name and description that match the query's content words, as they
    /// are written there (folded): what a list highlights. Function words never count; a
    /// memory found by meaning alone has none.
    #[serde(default)]
    pub matched: Vec<String>,
    /// The doc's null over the model's background (mean and spread of its cosines to text not
    /// about it), when the vector search was given one; internal to ranking, never sent.
    #[serde(skip)]
    pub doc_null: Option<(f64, f64)>,
    /// The part of its text that matched best, with its place in the file (search fills it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passage: Option<Passage>,
    /// Below where search stops counting it a match (its fused score far under the best, or
    /// its meaning under the model's floor): ranked after every match, returned only to give a
    /// client as many hits as it asked for. The app's list leaves them out.
    #[serde(default)]
    pub weak: bool,
}

/// The passage of a memory that matched a search.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Passage`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Passage {
    pub text: String,
    pub line: u32,
}

/// What the index knows of a file, to decide whether to re-read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    /// Modification time, ms since the epoch.
    pub mtime_ms: i64,
    /// Size in bytes.
    pub size: i64,
    /// Content hash.
    pub hash: String,
}

/// Per-workspace counts.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Counts`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub topics: u64,
    pub invalid: u64,
    pub logs: u64,
}

/// A topic as MEMORY.md lists it: path, name, description.
pub type IndexLineRow = (String, String, String);

/// The SQLite index.
pub struct Index {
    conn: Connection,
    /// Bumped by every write through this connection (the vector cache's staleness check,
    /// with `PRAGMA data_version` for other connections' commits).
    generation: u64,
    vec_cache: Option<vectors::VecCache>,
    /// The same for conversation records' chunks (`chunks`).
    chunk_cache: Option<vectors::VecCache>,
    /// How many records of a scope wait for a chunk's vector, as of a stamp (`chunks`).
    partly_cache: Option<(chunks::PartlyKey, u64)>,
}

fn ms_to_rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn summary_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<DocSummary> {
    let kind: String = r.get(2)?;
    let ty: Option<String> = r.get(3)?;
    let code: Option<String> = r.get(8)?;
    let message: Option<String> = r.get(9)?;
    Ok(DocSummary {
        workspace: r.get(0)?,
        path: r.get(1)?,
        kind: DocKind::parse(&kind),
        memory_type: ty.and_then(|t| t.parse().ok()),
        name: r.get(4)?,
        description: r.get(5)?,
        mtime: ms_to_rfc3339(r.get(6)?),
        valid: r.get(7)?,
        problem: code.map(|code| ProblemOut {
            code,
            message: message.unwrap_or_default(),
        }),
        secret: r.get(10)?,
        pinned: r.get(11)?,
        archived: r.get(12)?,
    })
}

impl Index {
    /// Open `index.db`, creating or migrating it. A corrupt or newer-schema file is moved aside
    /// and a fresh one created; the returned flag says a full rebuild is needed.
    pub fn open(path: &Path) -> Result<(Self, Option<String>)> {
        let why = match Self::try_open(path) {
            Ok(Some(index)) => return Ok((index, None)),
            Ok(None) => "it was written by a newer Mnemo".to_owned(),
            Err(e) if db::is_corruption(&e) => e.to_string(),
            Err(e) => {
                return Err(Error::new(
                    ErrorCode::Io,
                    format!("opening {}: {e}", path.display()),
                ));
            }
        };
        let aside = fsutil::quarantine(path)?;
        for suffix in ["-wal", "-shm"] {
            let mut side = path.as_os_str().to_owned();
            side.push(suffix);
            let _ = std::fs::remove_file(side);
        }
        let warning = format!(
            "index.db was unusable ({why}); moved it to {} and rebuilt it from the files",
            aside.display()
        );
        tracing::warn!("{warning}");
        match Self::try_open(path) {
            Ok(Some(index)) => Ok((index, Some(warning))),
            Ok(None) => Err(Error::new(ErrorCode::Corrupt, "cannot create index.db")),
            Err(e) => Err(Error::new(ErrorCode::Io, format!("creating index.db: {e}"))),
        }
    }

    fn try_open(path: &Path) -> rusqlite::Result<Option<Self>> {
        let mut conn = db::open(path, false)?;
        match db::migrate(&mut conn, "index", MIGRATIONS)? {
            MigrateOutcome::Ready => {
                // Touch the tables so a damaged file fails here, not mid-command.
                conn.query_row("SELECT count(*) FROM docs", [], |r| r.get::<_, i64>(0))?;
                Ok(Some(Self {
                    conn,
                    generation: 0,
                    vec_cache: None,
                    chunk_cache: None,
                    partly_cache: None,
                }))
            }
            MigrateOutcome::TooNew { .. } => Ok(None),
        }
    }

    /// Run `f` inside one transaction (bulk updates are much faster that way).
    pub fn batch<T>(&mut self, f: impl FnOnce(&Batch<'_>) -> Result<T>) -> Result<T> {
        self.generation += 1;
        let tx = self
            .conn
            .transaction()
            .map_err(db::err("starting an index transaction"))?;
        let batch = Batch {
            conn: &tx,
            fts: std::cell::RefCell::new(std::collections::BTreeMap::new()),
        };
        let out = f(&batch)?;
        batch.write_fts()?;
        drop(batch);
        tx.commit().map_err(db::err("committing the index"))?;
        Ok(out)
    }

    /// Known file states of a workspace (path → mtime/size/hash).
    pub fn file_states(&self, workspace: &str) -> Result<HashMap<String, FileState>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT path, mtime_ms, size, hash FROM docs WHERE workspace = ?1")
            .map_err(db::err("reading the index"))?;
        st.query_map([workspace], |r| {
            Ok((
                r.get(0)?,
                FileState {
                    mtime_ms: r.get(1)?,
                    size: r.get(2)?,
                    hash: r.get(3)?,
                },
            ))
        })
        .and_then(Iterator::collect)
        .map_err(db::err("reading the index"))
    }

    /// Every indexed path of a workspace with its (mtime ms, size): what a scan compares.
    pub fn file_stats(&self, workspace: &str) -> Result<HashMap<String, (i64, i64)>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT path, mtime_ms, size FROM docs WHERE workspace = ?1")
            .map_err(db::err("reading the index"))?;
        st.query_map([workspace], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))
            .and_then(Iterator::collect)
            .map_err(db::err("reading the index"))
    }

    /// Known states of some paths of a workspace (absent paths are left out).
    pub fn file_states_of(
        &self,
        workspace: &str,
        paths: &[String],
    ) -> Result<HashMap<String, FileState>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT mtime_ms, size, hash FROM docs WHERE workspace = ?1 AND path = ?2",
            )
            .map_err(db::err("reading the index"))?;
        let mut out = HashMap::new();
        for p in paths {
            let state = st
                .query_row(params![workspace, p], |r| {
                    Ok(FileState {
                        mtime_ms: r.get(0)?,
                        size: r.get(1)?,
                        hash: r.get(2)?,
                    })
                })
                .optional()
                .map_err(db::err("reading the index"))?;
            if let Some(state) = state {
                out.insert(p.clone(), state);
            }
        }
        Ok(out)
    }

    /// The stored raw bytes of one doc, and the secrets it holds (then no bytes are stored).
    #[allow(clippy::type_complexity)]
    pub fn raw(
        &self,
        workspace: &str,
        path: &str,
    ) -> Result<Option<(Option<Vec<u8>>, Option<String>)>> {
        self.conn
            .query_row(
                "SELECT raw, secret FROM docs WHERE workspace = ?1 AND path = ?2",
                [workspace, path],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(db::err("reading the index"))
    }

    /// Topic docs (optionally one workspace, one type), sorted by workspace then path.
    pub fn list(
        &self,
        workspace: Option<&str>,
        memory_type: Option<MemoryType>,
    ) -> Result<Vec<DocSummary>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT workspace, path, kind, type, name, description, mtime_ms, valid, problem_code, problem, secret, pinned, archived
                 FROM docs WHERE kind = 'topic' AND (?1 IS NULL OR workspace = ?1) AND (?2 IS NULL OR type = ?2)
                 ORDER BY workspace, path",
            )
            .map_err(db::err("reading the index"))?;
        st.query_map(
            params![workspace, memory_type.map(MemoryType::as_str)],
            summary_row,
        )
        .and_then(Iterator::collect)
        .map_err(db::err("reading the index"))
    }

    /// Paths of a workspace's archived memories (left out of recall).
    pub fn archived_paths(&self, workspace: &str) -> Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT path FROM docs WHERE workspace = ?1 AND archived = 1")
            .map_err(db::err("reading the index"))?;
        st.query_map([workspace], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(db::err("reading the index"))
    }

    /// The daily logs and conversation records of a workspace (plain-markdown records).
    pub fn list_logs(&self, workspace: &str) -> Result<Vec<DocSummary>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT workspace, path, kind, type, name, description, mtime_ms, valid, problem_code, problem, secret, pinned, archived
                 FROM docs WHERE kind IN ('log', 'chat') AND workspace = ?1",
            )
            .map_err(db::err("reading the index"))?;
        st.query_map(params![workspace], summary_row)
            .and_then(Iterator::collect)
            .map_err(db::err("reading the index"))
    }

    /// Valid topic docs of a workspace as (path, name, description), for MEMORY.md.
    pub fn index_lines(&self, workspace: &str) -> Result<Vec<(String, String, String)>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT path, name, description FROM docs
                 WHERE workspace = ?1 AND kind = 'topic' AND valid = 1 AND archived = 0 ORDER BY path",
            )
            .map_err(db::err("reading the index"))?;
        st.query_map([workspace], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(Iterator::collect)
            .map_err(db::err("reading the index"))
    }

    /// The first `limit` lines of [`Index::index_lines`] and how many there are in all: what
    /// MEMORY.md shows (it lists at most 200), read from the `docs_listed` index alone.
    pub fn index_lines_head(
        &self,
        workspace: &str,
        limit: usize,
    ) -> Result<(Vec<IndexLineRow>, usize)> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT path, name, description FROM docs
                 WHERE workspace = ?1 AND kind = 'topic' AND valid = 1 AND archived = 0 ORDER BY path LIMIT ?2",
            )
            .map_err(db::err("reading the index"))?;
        let head: Vec<IndexLineRow> = st
            .query_map(
                params![workspace, i64::try_from(limit).unwrap_or(i64::MAX)],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .and_then(Iterator::collect)
            .map_err(db::err("reading the index"))?;
        if head.len() < limit {
            let n = head.len();
            return Ok((head, n));
        }
        let total: i64 = self
            .conn
            .prepare_cached(
                "SELECT count(*) FROM docs
                 WHERE workspace = ?1 AND kind = 'topic' AND valid = 1 AND archived = 0",
            )
            .and_then(|mut s| s.query_row([workspace], |r| r.get(0)))
            .map_err(db::err("reading the index"))?;
        Ok((head, usize::try_from(total).unwrap_or(usize::MAX)))
    }

    /// Record a telemetry event (recall, extract, dream…) with its fields as JSON.
    pub fn record_event(
        &self,
        kind: &str,
        workspace: &str,
        data: &serde_json::Value,
    ) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO telemetry (at, kind, workspace, data) VALUES (?1, ?2, ?3, ?4)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                    kind,
                    workspace,
                    data.to_string()
                ])
            })
            .map(|_| ())
            .map_err(db::err("recording telemetry"))
    }

    /// The newest telemetry events, optionally of one kind: (at, kind, workspace, data).
    pub fn events(
        &self,
        kind: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, String, String, serde_json::Value)>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT at, kind, workspace, data FROM telemetry WHERE (?1 IS NULL OR kind = ?1) ORDER BY id DESC LIMIT ?2",
            )
            .map_err(db::err("reading telemetry"))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        st.query_map(params![kind, limit], |r| {
            let data: String = r.get(3)?;
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                serde_json::from_str(&data).unwrap_or_default(),
            ))
        })
        .and_then(Iterator::collect)
        .map_err(db::err("reading telemetry"))
    }

    /// Counts per workspace.
    pub fn counts(&self) -> Result<HashMap<String, Counts>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT workspace, sum(kind = 'topic'), sum(kind = 'topic' AND valid = 0), sum(kind = 'log')
                 FROM docs GROUP BY workspace",
            )
            .map_err(db::err("reading the index"))?;
        st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                Counts {
                    topics: r.get::<_, i64>(1)?.unsigned_abs(),
                    invalid: r.get::<_, i64>(2)?.unsigned_abs(),
                    logs: r.get::<_, i64>(3)?.unsigned_abs(),
                },
            ))
        })
        .and_then(Iterator::collect)
        .map_err(db::err("reading the index"))
    }

    /// Topic memories in one workspace (recall's candidate count).
    pub fn topic_count(&self, workspace: &str) -> Result<u64> {
        self.conn
            .prepare_cached("SELECT count(*) FROM docs WHERE workspace = ?1 AND kind = 'topic'")
            .and_then(|mut s| s.query_row([workspace], |r| r.get::<_, i64>(0)))
            .map(i64::unsigned_abs)
            .map_err(db::err("reading the index"))
    }

    /// Whether a workspace has been scanned into this index before.
    pub fn was_synced(&self, workspace: &str) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT 1 FROM synced_workspaces WHERE workspace = ?1",
                [workspace],
                |_| Ok(()),
            )
            .optional()
            .map(|o| o.is_some())
            .map_err(db::err("reading the index"))
    }

    /// Workspaces present in the index.
    pub fn indexed_workspaces(&self) -> Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare("SELECT DISTINCT workspace FROM docs")
            .map_err(db::err("reading the index"))?;
        st.query_map([], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(db::err("reading the index"))
    }
}

/// Write access inside one transaction.
pub struct Batch<'a> {
    conn: &'a Connection,
    /// Full-text rows of the docs written in this batch, by rowid: inserted together at its end
    /// ([`Batch::write_fts`]). FTS5 flushes its pending terms to a new segment at the start of
    /// every statement that writes it inside a transaction, so a row per statement cost a
    /// segment per document (a third of a 10,000-note import's index time).
    fts: std::cell::RefCell<std::collections::BTreeMap<i64, tokenize::FtsText>>,
}

/// Full-text rows per `INSERT` statement (4 parameters each, well under SQLite's limit).
const FTS_ROWS_PER_INSERT: usize = 200;

impl Batch<'_> {
    /// Insert or replace a doc with its entries and full-text row. A doc whose content changed
    /// is stored under a new rowid, so rowids follow recency (search ranks the newest matches of
    /// very common words by rowid; see `index::search`).
    pub fn upsert(&self, workspace: &str, path: &str, d: &DocRecord) -> Result<()> {
        let e = db::err("updating the index");
        let old: Option<(i64, String)> = self
            .conn
            .prepare_cached("SELECT id, hash FROM docs WHERE workspace = ?1 AND path = ?2")
            .and_then(|mut s| {
                s.query_row([workspace, path], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()
            })
            .map_err(&e)?;
        if old.as_ref().is_some_and(|(_, hash)| *hash != d.hash) {
            // Its entries go with it (ON DELETE CASCADE).
            self.remove(workspace, path)?;
        }
        // Updated in place (same content, same rowid): its entries and full-text row are
        // replaced below. A new row has neither (every delete of a doc takes both), and a
        // full-text statement per row costs a flush of FTS5's pending terms.
        let in_place = old.is_some_and(|(_, hash)| hash == d.hash);
        let id: i64 = self
            .conn
            .prepare_cached(
                "INSERT INTO docs (workspace, path, kind, type, name, description, body, raw, valid, problem_code, problem, mtime_ms, size, hash, secret, pinned, archived, body_line)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
                 ON CONFLICT (workspace, path) DO UPDATE SET kind = excluded.kind, type = excluded.type,
                   name = excluded.name, description = excluded.description, body = excluded.body, raw = excluded.raw,
                   valid = excluded.valid, problem_code = excluded.problem_code, problem = excluded.problem,
                   mtime_ms = excluded.mtime_ms, size = excluded.size, hash = excluded.hash, secret = excluded.secret,
                   pinned = excluded.pinned, archived = excluded.archived, body_line = excluded.body_line
                 RETURNING id",
            )
            .map_err(&e)?
            .query_row(
                params![
                    workspace,
                    path,
                    d.kind.as_str(),
                    d.memory_type.map(MemoryType::as_str),
                    d.name,
                    d.description,
                    d.body,
                    d.kept_raw(),
                    d.problem.is_none(),
                    d.problem.as_ref().map(|p| p.code.as_str()),
                    d.problem.as_ref().map(|p| p.message.as_str()),
                    d.mtime_ms,
                    d.size,
                    d.hash,
                    d.secret,
                    d.pinned,
                    d.archived,
                    d.body_line,
                ],
                |r| r.get(0),
            )
            .map_err(&e)?;
        if in_place {
            self.conn
                .prepare_cached("DELETE FROM entries WHERE doc_id = ?1")
                .and_then(|mut s| s.execute([id]))
                .map_err(&e)?;
        }
        let total = d.entries.len();
        let mut ins = self
            .conn
            .prepare_cached(
                "INSERT INTO entries (doc_id, idx, entry_id, summary, why, how) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .map_err(&e)?;
        for en in &d.entries {
            ins.execute(params![
                id,
                i64::try_from(en.index).unwrap_or(i64::MAX),
                crate::format::entry_id(path, en.index, total),
                en.summary,
                en.why,
                en.how
            ])
            .map_err(&e)?;
        }
        if in_place {
            self.conn
                .prepare_cached("DELETE FROM docs_fts WHERE rowid = ?1")
                .and_then(|mut s| s.execute([id]))
                .map_err(&e)?;
        }
        let fts = match &d.fts {
            Some(f) => f.clone(),
            None => tokenize::FtsText::of(path, &d.name, &d.description, &d.body),
        };
        self.fts.borrow_mut().insert(id, fts);
        Ok(())
    }

    /// Insert the batch's full-text rows, [`FTS_ROWS_PER_INSERT`] per statement.
    fn write_fts(&self) -> Result<()> {
        let rows = std::mem::take(&mut *self.fts.borrow_mut());
        let rows: Vec<(i64, tokenize::FtsText)> = rows.into_iter().collect();
        for chunk in rows.chunks(FTS_ROWS_PER_INSERT) {
            let sql = format!(
                "INSERT INTO docs_fts (rowid, name, description, body) VALUES {}",
                vec!["(?, ?, ?, ?)"; chunk.len()].join(", ")
            );
            let params: Vec<&dyn rusqlite::ToSql> = chunk
                .iter()
                .flat_map(|(id, f)| {
                    [
                        id as &dyn rusqlite::ToSql,
                        &f.name as &dyn rusqlite::ToSql,
                        &f.description,
                        &f.body,
                    ]
                })
                .collect();
            self.conn
                .prepare_cached(&sql)
                .and_then(|mut s| s.execute(params.as_slice()))
                .map_err(db::err("updating the index"))?;
        }
        Ok(())
    }

    /// Remove a doc. Returns whether it was indexed.
    pub fn remove(&self, workspace: &str, path: &str) -> Result<bool> {
        let e = db::err("updating the index");
        let id: Option<i64> = self
            .conn
            .prepare_cached("DELETE FROM docs WHERE workspace = ?1 AND path = ?2 RETURNING id")
            .map_err(&e)?
            .query_row([workspace, path], |r| r.get(0))
            .optional()
            .map_err(&e)?;
        if let Some(id) = id {
            self.fts.borrow_mut().remove(&id);
            self.conn
                .prepare_cached("DELETE FROM docs_fts WHERE rowid = ?1")
                .and_then(|mut s| s.execute([id]))
                .map_err(&e)?;
        }
        Ok(id.is_some())
    }

    /// Remove everything (before a full rebuild).
    pub fn clear(&self) -> Result<()> {
        self.fts.borrow_mut().clear();
        self.conn
            .execute_batch(
                "DELETE FROM entries; DELETE FROM docs; DELETE FROM docs_fts; DELETE FROM synced_workspaces;",
            )
            .map_err(db::err("clearing the index"))
    }

    /// Record that a workspace has been scanned.
    pub fn mark_synced(&self, workspace: &str) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO synced_workspaces (workspace) VALUES (?1)")
            .and_then(|mut s| s.execute([workspace]))
            .map(|_| ())
            .map_err(db::err("updating the index"))
    }

    /// Remove every doc of a workspace.
    pub fn clear_workspace(&self, workspace: &str) -> Result<()> {
        let e = db::err("clearing the index");
        // Rows still waiting are written first, so the delete below takes them too.
        self.write_fts()?;
        self.conn
            .execute(
                "DELETE FROM docs_fts WHERE rowid IN (SELECT id FROM docs WHERE workspace = ?1)",
                [workspace],
            )
            .map_err(&e)?;
        self.conn
            .execute("DELETE FROM docs WHERE workspace = ?1", [workspace])
            .map_err(&e)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{DocKind, analyze_bytes};

    fn rec(rel: &str, body: &str) -> DocRecord {
        let text = format!("---\nname: {rel}\ndescription: d\ntype: user\n---\n{body}\n");
        analyze_bytes(rel, DocKind::Topic, text.as_bytes(), 0)
    }

    /// A word of its own for each number, of consonants only (no stemmer changes it).
    fn letters(mut i: usize) -> String {
        const C: &[u8] = b"bcdfghjklmnpqrtvwxz";
        let mut w: Vec<u8> = Vec::new();
        for _ in 0..3 {
            w.push(C[i % C.len()]);
            i /= C.len();
        }
        format!("pfx{}", String::from_utf8(w).unwrap())
    }

    fn found(index: &Index, word: &str) -> Vec<String> {
        let mut paths: Vec<String> = index
            .search(Some("w"), word, 50)
            .unwrap()
            .into_iter()
            .map(|h| h.path)
            .collect();
        paths.sort();
        paths
    }

    /// The full-text rows of a batch are written at its end: every change made inside it —
    /// an update in place, a new version, a removal, a rowid given again — shows in search
    /// exactly as if each row had been written at once, and no row is left without its doc.
    #[test]
    fn a_batch_s_full_text_rows_match_its_docs_whatever_happened_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let (mut index, _) = Index::open(&dir.path().join("index.db")).unwrap();
        index
            .batch(|b| {
                b.upsert("w", "kept.md", &rec("kept.md", "apricot stays"))?;
                b.upsert("w", "old.md", &rec("old.md", "banana leaves"))?;
                b.upsert("w", "edited.md", &rec("edited.md", "cherry first"))?;
                Ok(())
            })
            .unwrap();
        index
            .batch(|b| {
                // Same content again (in place), a new version, a removal, and a doc written
                // and removed inside the batch, its rowid then given to another.
                b.upsert("w", "kept.md", &rec("kept.md", "apricot stays"))?;
                b.upsert("w", "edited.md", &rec("edited.md", "damson second"))?;
                b.remove("w", "old.md")?;
                b.upsert("w", "brief.md", &rec("brief.md", "elderberry brief"))?;
                b.remove("w", "brief.md")?;
                b.upsert("w", "late.md", &rec("late.md", "fig late"))?;
                Ok(())
            })
            .unwrap();
        assert_eq!(found(&index, "apricot"), ["kept.md"]);
        assert_eq!(found(&index, "damson"), ["edited.md"]);
        for gone in ["banana", "cherry", "elderberry"] {
            assert!(found(&index, gone).is_empty(), "{gone}");
        }
        assert_eq!(found(&index, "fig"), ["late.md"]);
        let count = |index: &Index, sql: &str| -> i64 {
            index.conn.query_row(sql, [], |r| r.get(0)).unwrap()
        };
        assert_eq!(count(&index, "SELECT count(*) FROM docs_fts"), 3);
        assert_eq!(
            count(
                &index,
                "SELECT count(*) FROM docs_fts WHERE rowid NOT IN (SELECT id FROM docs)"
            ),
            0
        );
        // A batch of more rows than one statement takes.
        index
            .batch(|b| {
                for i in 0..(FTS_ROWS_PER_INSERT * 2 + 7) {
                    let rel = format!("many-{i}.md");
                    b.upsert("w", &rel, &rec(&rel, &format!("grape {}", letters(i))))?;
                }
                Ok(())
            })
            .unwrap();
        assert_eq!(found(&index, &letters(406)), ["many-406.md"]);
        assert_eq!(found(&index, &letters(0)), ["many-0.md"]);
        assert_eq!(
            count(&index, "SELECT count(*) FROM docs_fts"),
            count(&index, "SELECT count(*) FROM docs")
        );
    }
}
