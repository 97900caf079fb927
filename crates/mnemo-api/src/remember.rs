//! The remember lane: per workspace, serial; tasks queued → running →
//! completed | failed; at most 16 pending (the 17th → `remember_queue_full`); each run one change
//! group; a completed run announces `memory_changed` with scope `managed`, source
//! `workspace_memory_remember`, its task id and touched types. Tasks are memory tasks (listed,
//! `task_updated`); a client id, when given, scopes who may read a task.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use mnemo_core::{
    ChangeSource, Error, ErrorCode, MemoryType, Result, TaskKind, TaskReason, TaskStatus,
};
use mnemo_engine::remember::{self, ContextMode};
use mnemo_llm::CancellationToken;
use mnemo_store::Vault;
use mnemo_store::events::EventBus;
use mnemo_store::journal::Origin;
use mnemo_store::tasks::{TaskInfo, TaskResult};
use mnemo_store::workspace::PERSONAL;
use serde::Serialize;
use specta::Type;

use crate::Api;
use crate::model::ModelState;
use crate::tasks::Tasks;

/// Pending (queued + running) tasks per workspace at most.
pub const MAX_PENDING: usize = 16;

/// A remember task as the HTTP contract shows it.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RememberTask {
    /// `remember-…`.
    pub task_id: String,
    /// Workspace id.
    pub workspace: String,
    /// `queued | running | completed | failed`.
    pub status: TaskStatus,
    /// `workspace | clean`.
    pub context_mode: String,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
    /// Once completed.
    pub result: Option<RememberResult>,
    /// Once failed.
    pub error: Option<Error>,
}

/// What a completed remember wrote.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RememberResult {
    /// One line from the agent.
    pub summary: String,
    /// Files written, relative to the memory root.
    pub files_touched: Vec<String>,
    /// Their types.
    pub touched_types: Vec<MemoryType>,
    /// The change group (undo it as one).
    pub group: Option<i64>,
    /// Review mode: what it would have written is this proposal (`filesTouched` is then empty:
    /// nothing was written until a person accepts).
    pub proposal: Option<i64>,
}

/// `memory_changed` for a remember task (scope `managed`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RememberChanged {
    /// Always `managed`.
    pub scope: &'static str,
    /// `workspace_memory_remember`, or `mcp` for a fact an assistant gave over MCP.
    pub source: &'static str,
    /// Workspace id.
    pub workspace: String,
    /// Files written.
    pub paths: Vec<String>,
    /// The task.
    pub task_id: String,
    /// Types written.
    pub touched_types: Vec<MemoryType>,
}

struct Job {
    task: TaskInfo,
    token: CancellationToken,
    content: String,
    mode: ContextMode,
    /// Journaled as (`remember`, or `mcp` for an assistant over MCP).
    source: ChangeSource,
}

#[derive(Default)]
struct Lane {
    pending: usize,
    queue: VecDeque<Job>,
    running: bool,
}

/// Every workspace's lane, and who asked for each task.
#[derive(Default)]
pub(crate) struct Lanes {
    lanes: Mutex<HashMap<String, Lane>>,
    /// Task id → (context mode, client id).
    asked: Mutex<HashMap<String, (ContextMode, Option<String>)>>,
    pub(crate) bus: EventBus<RememberChanged>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A client id: 1–128 of `A-Z a-z 0-9 . _ : -`.
pub fn check_client_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            ErrorCode::InvalidClientId,
            "the client id must be 1–128 characters of letters, digits, `.`, `_`, `:` or `-`",
        ))
    }
}

fn view(task: &TaskInfo, mode: ContextMode) -> RememberTask {
    let result = (task.status == TaskStatus::Completed).then(|| {
        let r = task.result.clone().unwrap_or_default();
        RememberResult {
            summary: r.summary,
            files_touched: r.files,
            touched_types: r.touched_types,
            group: r.group,
            proposal: r.proposal,
        }
    });
    let error = (task.status == TaskStatus::Failed).then(|| {
        let code = match task.reason {
            Some(TaskReason::RememberPathEscape) => ErrorCode::RememberPathEscape,
            Some(TaskReason::RememberNothingWritten) => ErrorCode::RememberNothingWritten,
            _ => ErrorCode::RememberFailed,
        };
        Error::new(
            code,
            task.error
                .clone()
                .unwrap_or_else(|| "the remember task failed".into()),
        )
    });
    RememberTask {
        task_id: task.id.clone(),
        workspace: task.workspace.clone(),
        status: task.status,
        context_mode: mode.as_str().to_owned(),
        created_at: task.created_at.clone(),
        updated_at: task.updated_at.clone(),
        result,
        error,
    }
}

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// Queue a fact to remember (default workspace `personal`; `contextMode` `workspace` or
    /// `clean`). Errors: `invalid_content`, `invalid_context_mode`, `invalid_client_id`,
    /// `managed_memory_unavailable` (no model; nothing queued), `remember_queue_full`.
    pub fn remember(
        &self,
        workspace: Option<String>,
        content: String,
        context_mode: Option<String>,
        client_id: Option<String>,
    ) -> Result<RememberTask> {
        remember::check_content(&content)?;
        let mode = ContextMode::parse(context_mode.as_deref())?;
        if let Some(c) = &client_id {
            check_client_id(c)?;
        }
        let ws = self
            .vault
            .workspace(workspace.as_deref().unwrap_or(PERSONAL))?;
        if !self.model.client().settings().is_configured() {
            return Err(Error::new(
                ErrorCode::ManagedMemoryUnavailable,
                "remember needs a model: set one in Settings (or MNEMO_LLM_BASE_URL and MNEMO_LLM_MODEL)",
            ));
        }
        // The runtime first: a lane must never be marked running without one to run on.
        let rt = self.model.runtime.get()?;
        let start = {
            let mut lanes = lock(&self.remember.lanes);
            let lane = lanes.entry(ws.id.clone()).or_default();
            if lane.pending >= MAX_PENDING {
                return Err(Error::new(
                    ErrorCode::RememberQueueFull,
                    format!(
                        "{MAX_PENDING} remember tasks are already pending in `{}`; try again when some finish",
                        ws.id
                    ),
                ));
            }
            let (task, token) = self.tasks.create(TaskKind::Remember, &ws.id, None);
            lock(&self.remember.asked).insert(task.id.clone(), (mode, client_id));
            lane.pending += 1;
            let view = view(&task, mode);
            lane.queue.push_back(Job {
                task,
                token,
                content,
                mode,
                source: self.acting_for.unwrap_or(ChangeSource::Remember),
            });
            let start = !lane.running;
            lane.running = true;
            (view, start)
        };
        let (view, start) = start;
        if start {
            rt.spawn(run_lane(
                Arc::clone(&self.vault),
                Arc::clone(&self.model),
                Arc::clone(&self.tasks),
                Arc::clone(&self.remember),
                ws.id,
            ));
        }
        Ok(view)
    }

    /// A remember task. `remember_task_not_found` for an unknown id, a task of another kind, or
    /// one another client asked for.
    pub fn remember_task(&self, id: String, client_id: Option<String>) -> Result<RememberTask> {
        if let Some(c) = &client_id {
            check_client_id(c)?;
        }
        let not_found = || {
            Error::new(
                ErrorCode::RememberTaskNotFound,
                format!("no remember task `{id}` for this client"),
            )
        };
        let task = self.tasks.store().get(&id).map_err(|_| not_found())?;
        if task.kind != TaskKind::Remember {
            return Err(not_found());
        }
        let (mode, owner) = lock(&self.remember.asked)
            .get(&id)
            .cloned()
            .unwrap_or((ContextMode::Workspace, None));
        if owner.is_some() && owner != client_id {
            return Err(not_found());
        }
        Ok(view(&task, mode))
    }

    /// Every remember `memory_changed` (scope `managed`) from now on.
    pub fn subscribe_remembered(&self) -> std::sync::mpsc::Receiver<RememberChanged> {
        self.remember.bus.subscribe()
    }
}

/// Run a workspace's lane until it is empty, one task at a time.
async fn run_lane(
    vault: Arc<Vault>,
    model: Arc<ModelState>,
    tasks: Arc<Tasks>,
    lanes: Arc<Lanes>,
    ws: String,
) {
    loop {
        let job = {
            let mut all = lock(&lanes.lanes);
            let lane = all.entry(ws.clone()).or_default();
            match lane.queue.pop_front() {
                Some(j) => j,
                None => {
                    lane.running = false;
                    return;
                }
            }
        };
        let (v, m, t, l, w) = (
            Arc::clone(&vault),
            Arc::clone(&model),
            Arc::clone(&tasks),
            Arc::clone(&lanes),
            ws.clone(),
        );
        let mut fallback = job.task.clone();
        // Its own task: a panic in one run is reported and the lane moves on.
        if let Err(e) = tokio::spawn(async move { run_one(&v, &m, &t, &l, &w, job).await }).await {
            fallback.error = Some(format!("the remember task stopped unexpectedly: {e}"));
            tasks.finish(
                &mut fallback,
                TaskStatus::Failed,
                Some(TaskReason::RememberFailed),
            );
        }
        let mut all = lock(&lanes.lanes);
        let lane = all.entry(ws.clone()).or_default();
        lane.pending = lane.pending.saturating_sub(1);
    }
}

async fn run_one(
    vault: &Vault,
    model: &ModelState,
    tasks: &Tasks,
    lanes: &Lanes,
    ws: &str,
    job: Job,
) {
    let Job {
        mut task,
        token,
        content,
        mode,
        source,
    } = job;
    if tasks.cancelled(&task, &token) {
        task.error = Some("cancelled".into());
        tasks.finish(
            &mut task,
            TaskStatus::Failed,
            Some(TaskReason::RememberFailed),
        );
        return;
    }
    // The index must know every file (a CLI process has no watcher): MEMORY.md and the manifest
    // come from it.
    if let Ok(w) = vault.workspace(ws)
        && let Err(e) = tokio::task::block_in_place(|| vault.sync(&w))
    {
        tracing::warn!(workspace = %ws, "could not sync before remembering: {e}");
    }
    task.phase = Some("the memory agent is writing".into());
    task.set_status(TaskStatus::Running);
    tasks.save(&task);
    let job = crate::review::open_group(vault, ws, "remember", Some(&task.id), "remember", source);
    let group = job.id;
    let origin = Origin { source, group };
    let mut on_event = |e: &mnemo_engine::AgentEvent| tasks.on_agent_event(&mut task, &token, e);
    let outcome = match model.ready(&vault.home().root).await {
        Ok(client) => {
            remember::run_remember(
                vault,
                &client,
                remember::RememberRequest {
                    workspace: ws,
                    content: &content,
                    mode,
                    origin,
                },
                &token,
                &mut on_event,
            )
            .await
        }
        Err(e) => Err(e),
    };
    // In review mode what it would have written is a proposal; a refused run proposes nothing.
    let proposal_origin = mnemo_store::journal::ProposalOrigin {
        message: Some(content.chars().take(300).collect()),
        client: client_label(source, task.session.as_deref()),
        task: Some(task.id.clone()),
        ..Default::default()
    };
    let ended = crate::review::close_group(
        vault,
        job,
        source,
        "remember",
        "remember",
        &proposal_origin,
        outcome.is_ok(),
    );
    let (group, proposal, outcome) = match ended {
        Ok(e) => (e.group, e.proposal, outcome),
        Err(e) => (None, None, Err(e)),
    };
    task.phase = None;
    match outcome {
        Ok(mut r) => {
            if let Some(p) = proposal {
                r.summary = format!(
                    "{}. {}",
                    crate::review::proposed_summary(p, r.files.len()),
                    r.summary.replacen("Saved:", "Would save:", 1)
                );
            }
            if proposal.is_none() {
                lanes.bus.emit(&RememberChanged {
                    scope: "managed",
                    source: if source == ChangeSource::Mcp {
                        "mcp"
                    } else {
                        "workspace_memory_remember"
                    },
                    workspace: ws.to_owned(),
                    paths: r.files.clone(),
                    task_id: task.id.clone(),
                    touched_types: r.types.clone(),
                });
            }
            task.result = Some(TaskResult {
                summary: r.summary,
                files: if proposal.is_some() {
                    Vec::new()
                } else {
                    r.files
                },
                group,
                touched_types: r.types,
                dream: None,
                undone_by: None,
                proposal,
            });
            tasks.finish(&mut task, TaskStatus::Completed, None);
        }
        Err(e) => {
            // A run that also named a path outside the root is refused whole, and so is one
            // whose writes do not hold the fact: what it wrote inside is taken back, so a retry
            // does not write the fact twice.
            let group = match group {
                Some(g)
                    if matches!(
                        e.code,
                        ErrorCode::RememberPathEscape | ErrorCode::RememberNothingWritten
                    ) =>
                {
                    if let Err(u) = vault.undo_group(g, ChangeSource::Remember) {
                        tracing::warn!("could not take back the refused remember's writes: {u}");
                        Some(g)
                    } else {
                        None
                    }
                }
                other => other,
            };
            task.error = Some(e.message);
            task.result = group.map(|g| TaskResult {
                summary: "failed".into(),
                group: Some(g),
                ..TaskResult::default()
            });
            tasks.finish(
                &mut task,
                TaskStatus::Failed,
                Some(TaskReason::from_error(e.code)),
            );
        }
    }
}

/// Who asked a remember, for its proposal: the MCP client, else the remember client id.
fn client_label(source: ChangeSource, client: Option<&str>) -> Option<String> {
    match (source, client) {
        (ChangeSource::Mcp, _) => Some("an assistant over MCP".to_owned()),
        (_, Some(c)) => Some(c.to_owned()),
        _ => None,
    }
}
