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

/// Open a database (mode 0600, its `-wal` / `-shm` too) with WAL, a busy timeout (several processes share it) and foreign keys.
pub fn open(path: &Path, durable: bool) -> rusqlite::Result<Connection> {
    // Only the owner may read it (it holds memory text): 0600 from the start, or tightened.
    crate::fsutil::private_file(path).map_err(|e| {
        rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
            Some(format!("making {} private: {e}", path.display())),
        )
    })?;
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    // Switching a fresh file to WAL needs it to itself for an instant; SQLite reports a busy
    // file at once here (no busy handler), so a process opening it while another does retries.
    let mut tries = 0;
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && tries < 200 =>
            {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            other => break other?,
        }
    }
    conn.pragma_update(None, "synchronous", if durable { "FULL" } else { "NORMAL" })?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

/// Apply migrations past the stored `user_version`, each in its own transaction.
/// A database from a newer Mnemo (higher version) is refused.
///
/// Safe when several processes open a fresh file at once: each step runs in an immediate (write)
/// transaction that re-reads the version first, so a step another process already applied is
/// skipped instead of failing on "table already exists".
pub fn migrate(
    conn: &mut Connection,
    what: &str,
    steps: &[&str],
) -> rusqlite::Result<MigrateOutcome> {
    let target = i64::try_from(steps.len()).unwrap_or(i64::MAX);
    let version =
        |c: &Connection| c.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0));
    let current = version(conn)?;
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
        let step = i64::try_from(i + 1).unwrap_or(i64::MAX);
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        if version(&tx)? >= step {
            continue; // another process applied it meanwhile
        }
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", step)?;
        tx.commit()?;
        tracing::debug!("{what}: migrated to schema version {step}");
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

#[cfg(test)]
mod tests {
    use super::*;

    const STEPS: &[&str] = &["CREATE TABLE a (x INTEGER);", "CREATE TABLE b (y INTEGER);"];

    /// Several processes opening a fresh database at once (here: connections on threads) all
    /// end up ready, each step applied once.
    #[test]
    fn concurrent_first_opens_all_succeed() {
        let d = tempfile::tempdir().unwrap();
        for round in 0..10 {
            let path = d.path().join(format!("x{round}.db"));
            let start = std::sync::Arc::new(std::sync::Barrier::new(8));
            let threads: Vec<_> = (0..8)
                .map(|_| {
                    let (path, start) = (path.clone(), std::sync::Arc::clone(&start));
                    std::thread::spawn(move || {
                        let mut c = open(&path, false).unwrap();
                        start.wait();
                        migrate(&mut c, "test", STEPS).unwrap()
                    })
                })
                .collect();
            for t in threads {
                assert_eq!(t.join().unwrap(), MigrateOutcome::Ready);
            }
            let c = open(&path, false).unwrap();
            let v: i64 = c
                .pragma_query_value(None, "user_version", |r| r.get(0))
                .unwrap();
            assert_eq!(v, 2);
        }
    }
}
