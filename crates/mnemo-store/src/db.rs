//! SQLite plumbing shared by the index and the journal: connection set-up, versioned
//! migrations (`PRAGMA user_version`), and error mapping.

use std::path::Path;

use mnemo_core::{Error, ErrorCode};
use rusqlite::Connection;

/// Map a SQLite error to Mnemo's `io` error with context.
pub fn err(context: &str) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::new(ErrorCode::Io, format!("{context}: {e}"))
}

/// Whether a SQLite error means the file is not a usable database.
#[must_use]
pub fn is_corruption(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

/// Open a database with WAL, a busy timeout (several processes share it) and foreign keys.
pub fn open(path: &Path, durable: bool) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", if durable { "FULL" } else { "NORMAL" })?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

/// Apply migrations past the stored `user_version`, each in its own transaction.
/// A database from a newer Mnemo (higher version) is refused.
pub fn migrate(
    conn: &mut Connection,
    what: &str,
    steps: &[&str],
) -> rusqlite::Result<MigrateOutcome> {
    let current: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let target = i64::try_from(steps.len()).unwrap_or(i64::MAX);
    if current > target {
        return Ok(MigrateOutcome::TooNew {
            found: current,
            known: target,
        });
    }
    for (i, sql) in steps
        .iter()
        .enumerate()
        .skip(usize::try_from(current).unwrap_or(0))
    {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(
            None,
            "user_version",
            i64::try_from(i + 1).unwrap_or(i64::MAX),
        )?;
        tx.commit()?;
        tracing::debug!("{what}: migrated to schema version {}", i + 1);
    }
    Ok(MigrateOutcome::Ready)
}

/// Result of [`migrate`].
#[derive(Debug, PartialEq, Eq)]
pub enum MigrateOutcome {
    /// Schema is current.
    Ready,
    /// The file was written by a newer Mnemo.
    TooNew {
        /// Version found on disk.
        found: i64,
        /// Newest version this build knows.
        known: i64,
    },
}
