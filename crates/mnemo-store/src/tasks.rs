//! The task store: every background memory task — extract, dream, remember, forget, embed,
//! import — with its status and progress, in `$MNEMO_HOME/tasks.db`, so the app, `mnemo serve`
//! and the CLI all see one list.
//!
//! Invariants:
//! - A task whose process died while it was queued or running reads `failed` (`interrupted`):
//!   every read settles rows whose owner (PID + a per-process instance id) is gone.
//! - At most [`MAX_FINISHED`] finished tasks are kept; the oldest go first.
//! - A corrupt store is moved aside (`tasks.db.corrupt-<ts>`) and recreated, with a warning —
//!   tasks are a record of work, not memory; nothing is lost from the memory files.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use chrono::{SecondsFormat, Utc};
use mnemo_core::{Error, ErrorCode, Result, TaskKind, TaskReason, TaskStatus};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::db::{self, MigrateOutcome};
use crate::fsutil;
use crate::lock::pid_alive;

/// Finished tasks kept at most.
pub const MAX_FINISHED: usize = 1_000;
/// Tool calls kept in a task's progress (the newest).
pub const MAX_TOOL_STEPS: usize = 200;

const MIGRATIONS: &[&str] = &[r"
CREATE TABLE tasks (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    workspace  TEXT NOT NULL,
    status     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    pid        INTEGER NOT NULL,
    instance   TEXT NOT NULL,
    cancel     INTEGER NOT NULL DEFAULT 0,
    body       TEXT NOT NULL             -- the whole TaskInfo as JSON
);
CREATE INDEX tasks_by_status ON tasks(status, updated_at);
CREATE INDEX tasks_by_workspace ON tasks(workspace, created_at);
"];

/// One tool call of a task's agent.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ToolStep`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolStep {
    pub name: String,
    pub detail: String,
    pub ok: Option<bool>,
}

/// What a task did.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::TaskResult`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskResult {
    pub summary: String,
    pub files: Vec<String>,
    pub group: Option<i64>,
    /// Memory types of the files it wrote.
    #[serde(default)]
    pub touched_types: Vec<mnemo_core::MemoryType>,
    /// A dream's report (`null` for other kinds).
    #[serde(default)]
    pub dream: Option<crate::dream_report::DreamReport>,
    /// The change group that undid `group` (`null`: its changes are in effect). Read from the
    /// journal whenever the task is read (`Api::tasks`, `Api::task`): undone is the journal's fact.
    #[serde(default)]
    pub undone_by: Option<i64>,
    /// The proposal its writes became (review mode: nothing was written until a person accepts).
    #[serde(default)]
    pub proposal: Option<i64>,
}

/// How far a task's work has got, in the units its phase names (files, memories, conversations,
/// bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskProgress {
    pub done: u64,
    pub total: u64,
}

/// A background memory task.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::TaskInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskInfo {
    pub id: String,
    pub kind: TaskKind,
    pub workspace: String,
    pub session: Option<String>,
    pub status: TaskStatus,
    pub reason: Option<TaskReason>,
    pub phase: Option<String>,
    /// Counted progress, when the phase counts something (a row written before it existed has
    /// none).
    #[serde(default)]
    pub progress: Option<TaskProgress>,
    pub tools: Vec<ToolStep>,
    pub result: Option<TaskResult>,
    pub error: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
}

impl TaskInfo {
    /// A new queued task.
    #[must_use]
    pub fn new(kind: TaskKind, workspace: &str, session: Option<&str>) -> Self {
        let now = now();
        Self {
            id: new_id(kind),
            kind,
            workspace: workspace.to_owned(),
            session: session.map(str::to_owned),
            status: TaskStatus::Queued,
            reason: None,
            phase: Some("waiting".to_owned()),
            progress: None,
            tools: Vec::new(),
            result: None,
            error: None,
            created_at: now.clone(),
            updated_at: now,
            started_at: None,
            finished_at: None,
        }
    }

    /// Where the work is: `phase` for people, `done` of `total` for a progress bar.
    pub fn set_progress(&mut self, phase: impl Into<String>, done: u64, total: u64) {
        self.phase = Some(phase.into());
        self.progress = Some(TaskProgress {
            done: done.min(total),
            total,
        });
    }

    /// Move to `status`, stamping the times that go with it.
    pub fn set_status(&mut self, status: TaskStatus) {
        let now = now();
        if status == TaskStatus::Running && self.started_at.is_none() {
            self.started_at = Some(now.clone());
        }
        if status.is_finished() {
            self.finished_at = Some(now.clone());
            self.phase = None;
            self.progress = None;
        }
        self.status = status;
        self.updated_at = now;
    }

    /// Add a tool call to the progress (keeping the newest [`MAX_TOOL_STEPS`]).
    pub fn push_tool(&mut self, step: ToolStep) {
        self.tools.push(step);
        if self.tools.len() > MAX_TOOL_STEPS {
            let extra = self.tools.len() - MAX_TOOL_STEPS;
            self.tools.drain(..extra);
        }
        self.updated_at = now();
    }
}

fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A new task id, `<kind>-<time>-<pid>-<seq>`: it says what it is, and is unique by construction
/// — the PID tells live processes apart, a per-process counter this process's tasks
/// (`remember-20261122-195812123-3f2a-0`).
fn new_id(kind: TaskKind) -> String {
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!(
        "{}-{}-{:x}-{seq:x}",
        kind.as_str(),
        Utc::now().format("%Y%m%d-%H%M%S%3f"),
        std::process::id()
    )
}

/// Which tasks to list.
#[derive(Debug, Clone, Default)]
pub struct TaskFilter {
    /// Only this workspace.
    pub workspace: Option<String>,
    /// Only this kind.
    pub kind: Option<TaskKind>,
    /// Only this status.
    pub status: Option<TaskStatus>,
    /// At most this many (newest first).
    pub limit: usize,
}

/// `tasks.db`.
pub struct TaskStore {
    path: PathBuf,
    conn: Mutex<Connection>,
    /// This process's instance: tells our own rows from a dead predecessor's with the same PID.
    instance: String,
    warnings: Vec<String>,
}

fn open_conn(path: &Path) -> rusqlite::Result<(Connection, MigrateOutcome)> {
    let mut conn = db::open(path, false)?;
    let outcome = db::migrate(&mut conn, "tasks", MIGRATIONS)?;
    Ok((conn, outcome))
}

/// This process's instance id (one per process, shared by every store it opens).
fn process_instance() -> &'static str {
    static INSTANCE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    INSTANCE.get_or_init(|| format!("{}-{}", std::process::id(), new_id(TaskKind::Extract)))
}

fn lock(m: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl TaskStore {
    /// Open (or create) the store; a corrupt or unknown-version file is moved aside and a new one
    /// started (see [`TaskStore::warnings`]).
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_as(path, process_instance().to_owned())
    }

    fn open_as(path: &Path, instance: String) -> Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io(format!("creating {}", dir.display()), &e))?;
        }
        let mut warnings = Vec::new();
        let conn = match open_conn(path) {
            Ok((conn, MigrateOutcome::Ready)) => conn,
            Err(e) if !path.exists() => {
                return Err(db::err("creating the task list")(e));
            }
            Ok((_, MigrateOutcome::TooNew { .. })) | Err(_) => {
                let aside = fsutil::quarantine(path)?;
                for ext in ["-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
                }
                let w = format!(
                    "the task list {} was unreadable; moved aside to {} and started afresh",
                    path.display(),
                    aside.display()
                );
                tracing::warn!("{w}");
                warnings.push(w);
                match open_conn(path).map_err(db::err("creating the task list"))? {
                    (conn, MigrateOutcome::Ready) => conn,
                    (_, MigrateOutcome::TooNew { .. }) => {
                        return Err(Error::new(ErrorCode::Corrupt, "the task list is unusable"));
                    }
                }
            }
        };
        let store = Self {
            path: path.to_owned(),
            conn: Mutex::new(conn),
            instance,
            warnings,
        };
        store.settle_orphans()?;
        Ok(store)
    }

    /// Recoveries made while opening.
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Where the store lives.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Tasks left queued or running by a process that is gone now read `failed` (`interrupted`).
    pub fn settle_orphans(&self) -> Result<usize> {
        let conn = lock(&self.conn);
        let mut st = conn
            .prepare_cached(
                "SELECT id, pid, instance, body FROM tasks WHERE status IN ('queued', 'running')",
            )
            .map_err(db::err("reading the task list"))?;
        let rows: Vec<(String, u32, String, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .and_then(Iterator::collect)
            .map_err(db::err("reading the task list"))?;
        drop(st);
        let mut n = 0;
        for (_id, pid, instance, body) in rows {
            let ours = instance == self.instance;
            let alive = if pid == std::process::id() {
                ours
            } else {
                pid_alive(pid)
            };
            if alive {
                continue;
            }
            let Ok(mut task) = serde_json::from_str::<TaskInfo>(&body) else {
                continue;
            };
            task.reason = Some(TaskReason::Interrupted);
            task.error = Some(format!(
                "its process (PID {pid}) ended before the task finished; nothing half-written was kept (writes are atomic)"
            ));
            task.set_status(TaskStatus::Failed);
            write_row(&conn, &task, pid, &instance)?;
            n += 1;
        }
        Ok(n)
    }

    /// Reads settle orphans first; a store that cannot be written right now (busy, read-only)
    /// still answers the read.
    fn settle_quietly(&self) {
        if let Err(e) = self.settle_orphans() {
            tracing::warn!("could not settle interrupted tasks: {e}");
        }
    }

    /// Insert or replace a task (owned by this process).
    pub fn put(&self, task: &TaskInfo) -> Result<()> {
        let conn = lock(&self.conn);
        write_row(&conn, task, std::process::id(), &self.instance)?;
        if task.status.is_finished() {
            prune(&conn)?;
        }
        Ok(())
    }

    /// One task. `not_found` for an unknown id.
    pub fn get(&self, id: &str) -> Result<TaskInfo> {
        self.settle_quietly();
        let body: Option<String> = lock(&self.conn)
            .query_row("SELECT body FROM tasks WHERE id = ?1", [id], |r| r.get(0))
            .optional()
            .map_err(db::err("reading the task list"))?;
        let body =
            body.ok_or_else(|| Error::not_found(format!("no task `{id}`: see `mnemo tasks`")))?;
        serde_json::from_str(&body).map_err(|e| {
            Error::new(
                ErrorCode::Corrupt,
                format!("task `{id}` is unreadable: {e}"),
            )
        })
    }

    /// Tasks, newest first.
    pub fn list(&self, filter: &TaskFilter) -> Result<Vec<TaskInfo>> {
        self.settle_quietly();
        let conn = lock(&self.conn);
        let mut st = conn
            .prepare_cached(
                "SELECT body FROM tasks
                 WHERE (?1 IS NULL OR workspace = ?1) AND (?2 IS NULL OR kind = ?2) AND (?3 IS NULL OR status = ?3)
                 ORDER BY created_at DESC, id DESC LIMIT ?4",
            )
            .map_err(db::err("reading the task list"))?;
        let limit = i64::try_from(filter.limit.max(1)).unwrap_or(i64::MAX);
        let bodies: Vec<String> = st
            .query_map(
                params![
                    filter.workspace,
                    filter.kind.map(TaskKind::as_str),
                    filter.status.map(TaskStatus::as_str),
                    limit
                ],
                |r| r.get(0),
            )
            .and_then(Iterator::collect)
            .map_err(db::err("reading the task list"))?;
        Ok(bodies
            .iter()
            .filter_map(|b| serde_json::from_str(b).ok())
            .collect())
    }

    /// Ask the owner of a task (maybe another process) to cancel it.
    pub fn request_cancel(&self, id: &str) -> Result<()> {
        lock(&self.conn)
            .execute("UPDATE tasks SET cancel = 1 WHERE id = ?1", [id])
            .map(|_| ())
            .map_err(db::err("writing the task list"))
    }

    /// Whether someone asked to cancel this task.
    pub fn cancel_requested(&self, id: &str) -> Result<bool> {
        lock(&self.conn)
            .query_row("SELECT cancel FROM tasks WHERE id = ?1", [id], |r| {
                r.get::<_, i64>(0)
            })
            .optional()
            .map(|v| v.unwrap_or(0) != 0)
            .map_err(db::err("reading the task list"))
    }
}

fn write_row(conn: &Connection, task: &TaskInfo, pid: u32, instance: &str) -> Result<()> {
    let body = serde_json::to_string(task)
        .map_err(|e| Error::new(ErrorCode::Io, format!("encoding a task: {e}")))?;
    conn.execute(
        "INSERT INTO tasks (id, kind, workspace, status, created_at, updated_at, pid, instance, body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT(id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at,
             body = excluded.body",
        params![
            task.id,
            task.kind.as_str(),
            task.workspace,
            task.status.as_str(),
            task.created_at,
            task.updated_at,
            pid,
            instance,
            body
        ],
    )
    .map(|_| ())
    .map_err(db::err("writing the task list"))
}

fn prune(conn: &Connection) -> Result<()> {
    conn.execute(
        "DELETE FROM tasks WHERE status IN ('completed', 'failed', 'skipped') AND id NOT IN (
            SELECT id FROM tasks WHERE status IN ('completed', 'failed', 'skipped')
            ORDER BY updated_at DESC, id DESC LIMIT ?1)",
        [i64::try_from(MAX_FINISHED).unwrap_or(i64::MAX)],
    )
    .map(|_| ())
    .map_err(db::err("pruning the task list"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, TaskStore) {
        let d = tempfile::tempdir().unwrap();
        let s = TaskStore::open(&d.path().join("tasks.db")).unwrap();
        (d, s)
    }

    #[test]
    fn put_get_list_filter() {
        let (_d, s) = store();
        let mut a = TaskInfo::new(TaskKind::Extract, "personal", Some("s1"));
        s.put(&a).unwrap();
        let b = TaskInfo::new(TaskKind::Dream, "other", None);
        s.put(&b).unwrap();
        a.set_status(TaskStatus::Running);
        a.push_tool(ToolStep {
            name: "write_file".into(),
            detail: "a.md".into(),
            ok: None,
        });
        s.put(&a).unwrap();
        assert_eq!(s.get(&a.id).unwrap(), a);
        assert_eq!(s.get("t-nope").unwrap_err().code, ErrorCode::NotFound);
        let all = s
            .list(&TaskFilter {
                limit: 10,
                ..TaskFilter::default()
            })
            .unwrap();
        assert_eq!(all.len(), 2);
        let only = s
            .list(&TaskFilter {
                kind: Some(TaskKind::Extract),
                status: Some(TaskStatus::Running),
                workspace: Some("personal".into()),
                limit: 10,
            })
            .unwrap();
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].tools[0].name, "write_file");
        assert!(!s.cancel_requested(&a.id).unwrap());
        s.request_cancel(&a.id).unwrap();
        assert!(s.cancel_requested(&a.id).unwrap());
    }

    #[test]
    fn a_dead_owner_leaves_its_tasks_failed_interrupted() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("tasks.db");
        let id = {
            let s = TaskStore::open_as(&path, "an-earlier-process".into()).unwrap();
            let mut t = TaskInfo::new(TaskKind::Extract, "personal", None);
            t.set_status(TaskStatus::Running);
            s.put(&t).unwrap();
            t.id
        };
        // The same PID, another instance: that process is gone.
        let s = TaskStore::open_as(&path, "a-later-process".into()).unwrap();
        let t = s.get(&id).unwrap();
        assert_eq!(t.status, TaskStatus::Failed);
        assert_eq!(t.reason, Some(TaskReason::Interrupted));
        assert!(t.finished_at.is_some());
    }

    #[test]
    fn another_process_pid_that_is_gone_leaves_its_task_interrupted_and_a_live_one_not() {
        let (_d, s) = store();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let mut t = TaskInfo::new(TaskKind::Dream, "w", None);
        t.set_status(TaskStatus::Running);
        write_row(&lock(&s.conn), &t, dead, "gone").unwrap();
        let mut live = TaskInfo::new(TaskKind::Dream, "w", None);
        live.set_status(TaskStatus::Running);
        // PID 1 is alive for as long as the machine runs.
        write_row(&lock(&s.conn), &live, 1, "init").unwrap();
        assert_eq!(s.get(&t.id).unwrap().reason, Some(TaskReason::Interrupted));
        assert_eq!(s.get(&live.id).unwrap().status, TaskStatus::Running);
    }

    #[test]
    fn a_cancel_request_reaches_the_owner_through_the_file() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("tasks.db");
        let owner = TaskStore::open(&path).unwrap();
        let other = TaskStore::open_as(&path, "another-process".into()).unwrap();
        let mut t = TaskInfo::new(TaskKind::Extract, "w", None);
        t.set_status(TaskStatus::Running);
        owner.put(&t).unwrap();
        assert!(!owner.cancel_requested(&t.id).unwrap());
        other.request_cancel(&t.id).unwrap();
        assert!(owner.cancel_requested(&t.id).unwrap());
    }

    #[test]
    fn only_the_newest_thousand_finished_tasks_are_kept() {
        let (_d, s) = store();
        let running = TaskInfo::new(TaskKind::Dream, "w", None);
        s.put(&running).unwrap();
        for _ in 0..(MAX_FINISHED + 5) {
            let mut t = TaskInfo::new(TaskKind::Extract, "w", None);
            t.set_status(TaskStatus::Completed);
            s.put(&t).unwrap();
        }
        let all = s
            .list(&TaskFilter {
                limit: 5_000,
                ..TaskFilter::default()
            })
            .unwrap();
        assert_eq!(
            all.len(),
            MAX_FINISHED + 1,
            "unfinished ones are never pruned"
        );
        assert!(s.get(&running.id).is_ok());
    }

    #[test]
    fn a_corrupt_store_is_moved_aside_with_a_warning() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("tasks.db");
        std::fs::write(&path, vec![9u8; 4096]).unwrap();
        let s = TaskStore::open(&path).unwrap();
        assert_eq!(s.warnings().len(), 1);
        let t = TaskInfo::new(TaskKind::Extract, "w", None);
        s.put(&t).unwrap();
        assert!(s.get(&t.id).is_ok());
        let aside = std::fs::read_dir(d.path()).unwrap().flatten().any(|e| {
            e.file_name()
                .to_string_lossy()
                .contains("tasks.db.corrupt-")
        });
        assert!(aside, "the bad file is kept aside");
    }

    #[test]
    fn tool_steps_are_capped() {
        let mut t = TaskInfo::new(TaskKind::Extract, "w", None);
        for i in 0..(MAX_TOOL_STEPS + 3) {
            t.push_tool(ToolStep {
                name: format!("t{i}"),
                detail: String::new(),
                ok: Some(true),
            });
        }
        assert_eq!(t.tools.len(), MAX_TOOL_STEPS);
        assert_eq!(t.tools[0].name, "t3");
    }
}
