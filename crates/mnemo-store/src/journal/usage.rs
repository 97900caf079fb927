//! Usage per memory: every memory a recall injected, with the tokens it cost, the
//! session it served and the recall it belonged to (the id the recall's telemetry event carries).
//! Kept in `journal.db`, not in the disposable index: usage is history.

use mnemo_core::Result;
use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::Journal;
use crate::db;

/// What one memory was recalled for and what it cost.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::MemoryUsage`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryUsage {
    pub path: String,
    pub recalls: u32,
    pub last_recalled: Option<String>,
    pub tokens: u64,
    pub carried: u32,
    pub last_tokens: u32,
    pub sessions: u32,
    pub recent_sessions: Vec<String>,
}

impl Journal {
    /// Record one recall's injected memories: `(path, tokens, carried)` each.
    pub fn record_recall(
        &self,
        workspace: &str,
        session: Option<&str>,
        recall: &str,
        at: &str,
        items: &[(String, u32, bool)],
    ) -> Result<()> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(db::err("writing the journal"))?;
        for (path, tokens, carried) in items {
            tx.execute(
                "INSERT INTO recalls (workspace, path, session, at, tokens, recall, carried) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![workspace, path, session, at, tokens, recall, carried],
            )
            .map_err(db::err("writing the journal"))?;
        }
        tx.commit().map_err(db::err("writing the journal"))
    }

    /// Usage of every memory of `workspace` that was ever recalled (`path` only that one).
    pub fn usage(&self, workspace: &str, path: Option<&str>) -> Result<Vec<MemoryUsage>> {
        let mut q = self
            .conn
            .prepare_cached(
                "SELECT path, sum(carried = 0), max(at), sum(tokens), count(DISTINCT session),
                    (SELECT tokens FROM recalls l WHERE l.workspace = r.workspace AND l.path = r.path ORDER BY l.id DESC LIMIT 1),
                    sum(carried)
                 FROM recalls r WHERE workspace = ?1 AND (?2 IS NULL OR path = ?2)
                 GROUP BY path ORDER BY path",
            )
            .map_err(db::err("reading the journal"))?;
        let mut out: Vec<MemoryUsage> = q
            .query_map(params![workspace, path], |r| {
                Ok(MemoryUsage {
                    path: r.get(0)?,
                    recalls: r.get(1)?,
                    last_recalled: r.get(2)?,
                    tokens: r.get::<_, i64>(3)?.try_into().unwrap_or(0),
                    sessions: r.get(4)?,
                    last_tokens: r.get(5)?,
                    carried: r.get(6)?,
                    recent_sessions: Vec::new(),
                })
            })
            .and_then(Iterator::collect)
            .map_err(db::err("reading the journal"))?;
        if path.is_some() {
            let mut q = self
                .conn
                .prepare_cached(
                    "SELECT session FROM recalls WHERE workspace = ?1 AND path = ?2 AND session IS NOT NULL
                     GROUP BY session ORDER BY max(id) DESC LIMIT 10",
                )
                .map_err(db::err("reading the journal"))?;
            for u in &mut out {
                u.recent_sessions = q
                    .query_map(params![workspace, u.path], |r| r.get(0))
                    .and_then(Iterator::collect)
                    .map_err(db::err("reading the journal"))?;
            }
        }
        Ok(out)
    }
}
