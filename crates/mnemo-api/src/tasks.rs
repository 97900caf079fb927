//! Memory tasks: one runtime for background memory jobs — extraction, remember, dream, forget,
//! embedding and import all run through it. Each task is recorded in the task store
//! (`tasks.db`, shared by every process on the home) and announced as `task_updated` on every
//! change. Cancelling a task of this process stops it through its token; a task of another
//! process gets a cancel request its owner sees at its next step.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use mnemo_core::{Result, TaskKind, TaskReason, TaskStatus};
use mnemo_engine::AgentEvent;
use mnemo_llm::CancellationToken;
use mnemo_store::events::EventBus;
use mnemo_store::tasks::{TaskFilter, TaskInfo, TaskStore, ToolStep};

use crate::{Api, wire};

/// Tasks listed when no limit is given.
const DEFAULT_TASKS: u32 = 100;

/// The task runtime's state, shared by every clone of the API.
pub(crate) struct Tasks {
    store: TaskStore,
    bus: EventBus<wire::TaskInfo>,
    tokens: Mutex<HashMap<String, CancellationToken>>,
}

fn short(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if s.chars().count() > 80 {
        out.push('…');
    }
    out
}

/// What a tool call is about, for the progress list: the path or pattern it names — never its
/// content (which may hold text the secret scan refused).
fn tool_detail(arguments: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(arguments).unwrap_or_default();
    ["file_path", "path", "pattern", "dir_path"]
        .iter()
        .find_map(|k| v[k].as_str())
        .map(short)
        .unwrap_or_default()
}

impl Tasks {
    pub(crate) fn open(store: TaskStore) -> Self {
        Self {
            store,
            bus: EventBus::default(),
            tokens: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn store(&self) -> &TaskStore {
        &self.store
    }

    pub(crate) fn warnings(&self) -> Vec<String> {
        self.store.warnings().to_vec()
    }

    pub(crate) fn subscribe(&self) -> std::sync::mpsc::Receiver<wire::TaskInfo> {
        self.bus.subscribe()
    }

    /// Record and announce a change to a task. A failure to record is logged: the work itself
    /// goes on (the list is a record of work, the memory files are the truth).
    pub(crate) fn save(&self, task: &TaskInfo) {
        // Every task row and every `task_updated` event passes the secret gate: an error or a
        // summary a model or a server worded may quote what it was given.
        let task = &redacted(task);
        if let Err(e) = self.store.put(task) {
            tracing::warn!(task = %task.id, "could not record the task: {e}");
        }
        self.bus.emit(&task.clone().into());
    }

    /// A new queued task with its cancel token.
    pub(crate) fn create(
        &self,
        kind: TaskKind,
        workspace: &str,
        session: Option<&str>,
    ) -> (TaskInfo, CancellationToken) {
        let task = TaskInfo::new(kind, workspace, session);
        let token = CancellationToken::new();
        self.tokens
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(task.id.clone(), token.clone());
        self.save(&task);
        (task, token)
    }

    /// End a task: status, reason, stamped and announced; its token is dropped.
    pub(crate) fn finish(
        &self,
        task: &mut TaskInfo,
        status: TaskStatus,
        reason: Option<TaskReason>,
    ) {
        task.reason = reason;
        task.set_status(status);
        self.tokens
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&task.id);
        self.save(task);
    }

    /// Whether the task was asked to stop (here or from another process).
    pub(crate) fn cancelled(&self, task: &TaskInfo, token: &CancellationToken) -> bool {
        if token.is_cancelled() {
            return true;
        }
        if self.store.cancel_requested(&task.id).unwrap_or(false) {
            token.cancel();
            return true;
        }
        false
    }

    /// Progress from the agent: each tool call, then whether it succeeded.
    pub(crate) fn on_agent_event(
        &self,
        task: &mut TaskInfo,
        token: &CancellationToken,
        e: &AgentEvent,
    ) {
        match e {
            AgentEvent::Turn(n) => task.phase = Some(format!("model turn {n}")),
            AgentEvent::ToolCall { name, arguments } => task.push_tool(ToolStep {
                name: name.clone(),
                detail: tool_detail(arguments),
                ok: None,
            }),
            AgentEvent::ToolResult { name, ok } => {
                if let Some(step) = task
                    .tools
                    .iter_mut()
                    .rev()
                    .find(|s| &s.name == name && s.ok.is_none())
                {
                    step.ok = Some(*ok);
                }
            }
        }
        self.save(task);
        self.cancelled(task, token);
    }
}

/// A task with every text it carries redacted (see [`mnemo_engine::secrets::redact`]).
fn redacted(task: &TaskInfo) -> TaskInfo {
    let r = |s: &str| mnemo_engine::secrets::redact(s).0;
    let mut t = task.clone();
    t.error = t.error.as_deref().map(r);
    t.phase = t.phase.as_deref().map(r);
    for step in &mut t.tools {
        step.detail = r(&step.detail);
    }
    if let Some(res) = &mut t.result {
        res.summary = r(&res.summary);
    }
    t
}

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// Every `task_updated` event from now on (tasks of this process).
    pub fn subscribe_tasks(&self) -> std::sync::mpsc::Receiver<wire::TaskInfo> {
        self.tasks.subscribe()
    }

    /// Memory tasks of every process on this home, newest first; filter by workspace, kind,
    /// status.
    pub fn tasks(
        &self,
        workspace: Option<String>,
        kind: Option<TaskKind>,
        status: Option<TaskStatus>,
        limit: Option<u32>,
    ) -> Result<Vec<wire::TaskInfo>> {
        let mut tasks = self.tasks.store.list(&TaskFilter {
            workspace,
            kind,
            status,
            limit: limit.unwrap_or(DEFAULT_TASKS).clamp(1, crate::MAX_LIMIT) as usize,
        })?;
        for t in &mut tasks {
            self.mark_undone(t);
        }
        Ok(wire::all(tasks))
    }

    /// Fill in whether the task's changes were undone since (the journal knows).
    pub(crate) fn mark_undone(&self, task: &mut TaskInfo) {
        if let Some(r) = &mut task.result
            && let Some(g) = r.group
        {
            r.undone_by = self.vault.group_undone_by(g).unwrap_or(None);
        }
    }

    /// One task. `not_found` for an unknown id.
    pub fn task(&self, id: String) -> Result<wire::TaskInfo> {
        let mut task = self.tasks.store.get(&id)?;
        self.mark_undone(&mut task);
        Ok(task.into())
    }

    /// Cancel a task: a queued one is skipped (`cancelled`), a running one stops at its next
    /// step (its writes are atomic, so nothing is left half-written). A finished task is
    /// returned as it is. `not_found` for an unknown id.
    pub fn task_cancel(&self, id: String) -> Result<wire::TaskInfo> {
        let task = self.tasks.store.get(&id)?;
        if task.status.is_finished() {
            return Ok(task.into());
        }
        // The flag reaches the owner wherever it runs; a task of this process also stops at once,
        // and one still waiting in this process's queue is skipped right away.
        self.tasks.store.request_cancel(&id)?;
        if task.status == TaskStatus::Queued
            && task.kind == TaskKind::Extract
            && self.drop_waiting_extract(&task.workspace, &id)
        {
            return self.tasks.store.get(&id).map(Into::into);
        }
        if let Some(t) = self
            .tasks
            .tokens
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
        {
            t.cancel();
        }
        self.tasks.store.get(&id).map(Into::into)
    }

    /// Wait until a task has finished (or `timeout` passed) and return it as it is then. For
    /// clients that must not exit before their background work ends (the CLI's `chat`).
    pub fn wait_task(&self, id: &str, timeout: Duration) -> Result<wire::TaskInfo> {
        let updates = self.tasks.subscribe();
        let deadline = Instant::now() + timeout;
        let mut task: wire::TaskInfo = self.tasks.store.get(id)?.into();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if task.status.is_finished() || left.is_zero() {
                return Ok(task);
            }
            // This process's updates arrive as events; another process's task is re-read every
            // 200 ms.
            task = match updates.recv_timeout(left.min(Duration::from_millis(200))) {
                Ok(t) if t.id == id => t,
                Ok(_) => continue,
                Err(_) => self.tasks.store.get(id)?.into(),
            };
        }
    }
}
