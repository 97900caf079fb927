//! What the user asked to forget: per workspace, the hash of each forgotten entry's
//! case-folded summary (never its text), so agents do not quietly write it back. A person adding
//! it again by hand lifts it.

use rusqlite::params;

use super::Journal;
use crate::db;
use mnemo_core::Result;

pub use mnemo_text::format::forgotten_key;

impl Journal {
    /// Remember these summaries as forgotten in `workspace`.
    pub fn add_forgotten(&self, workspace: &str, summaries: &[String]) -> Result<()> {
        let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        for s in summaries {
            self.conn
                .execute(
                    "INSERT OR REPLACE INTO forgotten (workspace, hash, at) VALUES (?1, ?2, ?3)",
                    params![workspace, forgotten_key(s), at],
                )
                .map_err(db::err("writing the journal"))?;
        }
        Ok(())
    }

    /// When this summary was forgotten in `workspace`, if it was.
    pub fn forgotten_at(&self, workspace: &str, summary: &str) -> Result<Option<String>> {
        use rusqlite::OptionalExtension;
        self.conn
            .query_row(
                "SELECT at FROM forgotten WHERE workspace = ?1 AND hash = ?2",
                params![workspace, forgotten_key(summary)],
                |r| r.get(0),
            )
            .optional()
            .map_err(db::err("reading the journal"))
    }

    /// Lift these summaries' forgotten mark (a person wrote them again).
    pub fn remove_forgotten(&self, workspace: &str, summaries: &[String]) -> Result<usize> {
        let mut n = 0;
        for s in summaries {
            n += self
                .conn
                .execute(
                    "DELETE FROM forgotten WHERE workspace = ?1 AND hash = ?2",
                    params![workspace, forgotten_key(s)],
                )
                .map_err(db::err("writing the journal"))?;
        }
        Ok(n)
    }

    /// Every forgotten hash of `workspace` (what sync carries to other machines).
    pub fn forgotten_keys(&self, workspace: &str) -> Result<std::collections::BTreeSet<String>> {
        let mut st = self
            .conn
            .prepare("SELECT hash FROM forgotten WHERE workspace = ?1")
            .map_err(db::err("reading the journal"))?;
        let rows = st
            .query_map(params![workspace], |r| r.get::<_, String>(0))
            .map_err(db::err("reading the journal"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(db::err("reading the journal"))
    }

    /// Add and remove forgotten hashes as they are (a sync bringing another machine's forgets).
    pub fn change_forgotten_keys(
        &self,
        workspace: &str,
        add: &[String],
        remove: &[String],
    ) -> Result<()> {
        let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(db::err("writing the journal"))?;
        for h in add {
            tx.execute(
                "INSERT OR IGNORE INTO forgotten (workspace, hash, at) VALUES (?1, ?2, ?3)",
                params![workspace, h, at],
            )
            .map_err(db::err("writing the journal"))?;
        }
        for h in remove {
            tx.execute(
                "DELETE FROM forgotten WHERE workspace = ?1 AND hash = ?2",
                params![workspace, h],
            )
            .map_err(db::err("writing the journal"))?;
        }
        tx.commit().map_err(db::err("writing the journal"))
    }
}
