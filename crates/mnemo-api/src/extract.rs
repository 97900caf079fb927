//! Extraction after chat turns, scheduled as memory tasks: one run per workspace at a
//! time; while one runs, one job per session waits — a newer request for the same session
//! replaces the waiting one (that task reads `skipped`, reason `replaced`). Each run writes in
//! one change group tied to its task.

use std::sync::{Arc, Mutex, PoisonError};

use mnemo_core::{ChangeSource, TaskKind, TaskReason, TaskStatus};
use mnemo_engine::chat::{self, ExtractContext};
use mnemo_engine::extract::{Admission, ExtractQueue, ExtractResult, ExtractStatus};
use mnemo_llm::CancellationToken;
use mnemo_store::Vault;
use mnemo_store::journal::Origin;
use mnemo_store::tasks::{TaskInfo, TaskResult};

use crate::Api;
use crate::chat::ChatEvent;
use crate::model::ModelState;
use crate::tasks::Tasks;

/// A waiting or running extraction.
#[derive(Debug, Clone)]
pub(crate) struct ExtractJob {
    session: String,
    chat_wrote: bool,
    task: TaskInfo,
    token: CancellationToken,
}

/// Extraction queues of every workspace.
pub(crate) type Queue = Mutex<ExtractQueue<Vec<ExtractJob>>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Api {
    /// Take a cancelled job out of its workspace's waiting list; `true` when it was waiting
    /// there (it is then recorded `skipped`, reason `cancelled`).
    pub(crate) fn drop_waiting_extract(&self, workspace: &str, task: &str) -> bool {
        let removed: Vec<ExtractJob> = {
            let mut queue = lock(&self.model.queue);
            let Some(waiting) = queue.waiting_mut(workspace) else {
                return false;
            };
            let (removed, kept) = std::mem::take(waiting)
                .into_iter()
                .partition(|j| j.task.id == task);
            *waiting = kept;
            removed
        };
        let found = !removed.is_empty();
        for j in removed {
            let mut t = j.task;
            self.tasks
                .finish(&mut t, TaskStatus::Skipped, Some(TaskReason::Cancelled));
        }
        found
    }

    /// Queue extraction for a session after a turn; returns its task id.
    pub(crate) fn schedule_extract(
        &self,
        workspace: &str,
        session: &str,
        chat_wrote: bool,
    ) -> String {
        let (task, token) = self
            .tasks
            .create(TaskKind::Extract, workspace, Some(session));
        let id = task.id.clone();
        let job = ExtractJob {
            session: session.to_owned(),
            chat_wrote,
            task,
            token,
        };
        let mut replaced: Vec<TaskInfo> = Vec::new();
        let admission = lock(&self.model.queue).request_merge(
            workspace,
            vec![job.clone()],
            |mut waiting, new| {
                for j in new {
                    let (same, others): (Vec<_>, Vec<_>) =
                        waiting.into_iter().partition(|w| w.session == j.session);
                    replaced.extend(same.into_iter().map(|w| w.task));
                    waiting = others;
                    waiting.push(j);
                }
                waiting
            },
        );
        // Recorded after the queue is unlocked: the store's IO never holds up the queue.
        for mut old in replaced {
            old.error = Some(format!("a newer request for this chat replaced it ({id})"));
            self.tasks
                .finish(&mut old, TaskStatus::Skipped, Some(TaskReason::Replaced));
        }
        if let Admission::Queued { .. } = admission {
            tracing::debug!(workspace, "extraction queued behind a running one");
            return id;
        }
        let rt = match self.model.runtime.get() {
            Ok(rt) => rt,
            Err(e) => {
                tracing::warn!("extraction could not start: {e}");
                // This job and any that queued behind it meanwhile: none can run.
                let mut stranded = vec![job];
                while let Some(waiting) = lock(&self.model.queue).finished(workspace) {
                    stranded.extend(waiting);
                }
                for j in stranded {
                    let mut t = j.task;
                    t.error = Some(e.message.clone());
                    self.tasks
                        .finish(&mut t, TaskStatus::Failed, Some(TaskReason::NoRuntime));
                }
                return id;
            }
        };
        rt.spawn(run_queue(
            Arc::clone(&self.vault),
            Arc::clone(&self.model),
            Arc::clone(&self.tasks),
            workspace.to_owned(),
            vec![job],
        ));
        id
    }
}

/// Run a workspace's extractions until its queue is empty.
async fn run_queue(
    vault: Arc<Vault>,
    model: Arc<ModelState>,
    tasks: Arc<Tasks>,
    ws: String,
    first: Vec<ExtractJob>,
) {
    let mut next = Some(first);
    while let Some(jobs) = next {
        for job in jobs {
            let (vault, model2, tasks2, ws2) = (
                Arc::clone(&vault),
                Arc::clone(&model),
                Arc::clone(&tasks),
                ws.clone(),
            );
            let mut task = job.task.clone();
            let session = job.session.clone();
            // Its own task: a panic in one run is reported and the queue moves on.
            let run =
                tokio::spawn(async move { run_one(&vault, &model2, &tasks2, &ws2, job).await });
            let (result, finished) = match run.await {
                Ok(done) => done,
                Err(e) => {
                    let detail = format!("extraction stopped unexpectedly: {e}");
                    task.error = Some(detail.clone());
                    tasks.finish(&mut task, TaskStatus::Failed, Some(TaskReason::Panicked));
                    (ExtractResult::failed(detail), task)
                }
            };
            tracing::info!(
                workspace = %ws,
                task = %finished.id,
                status = ?result.status,
                written = result.files_written.len(),
                "extraction finished"
            );
            model.bus.emit(&ChatEvent::Extracted {
                workspace: ws.clone(),
                session,
                task: finished.id.clone(),
                result: result.into(),
            });
        }
        next = lock(&model.queue).finished(&ws);
    }
}

/// One extraction run as a task: running → the agent's steps as progress → completed / skipped
/// / failed, its writes in one change group.
async fn run_one(
    vault: &Vault,
    model: &ModelState,
    tasks: &Tasks,
    ws: &str,
    job: ExtractJob,
) -> (ExtractResult, TaskInfo) {
    let ExtractJob {
        session,
        chat_wrote,
        mut task,
        token,
    } = job;
    if tasks.cancelled(&task, &token) {
        tasks.finish(&mut task, TaskStatus::Skipped, Some(TaskReason::Cancelled));
        return (ExtractResult::skipped("cancelled", 0), task);
    }
    task.phase = Some("reading the new messages".into());
    task.set_status(TaskStatus::Running);
    tasks.save(&task);
    model.bus.emit(&ChatEvent::Extracting {
        workspace: ws.to_owned(),
        session: session.clone(),
        task: task.id.clone(),
    });
    let label = format!("extraction after chat {session}");
    let job = crate::review::open_group(
        vault,
        ws,
        "extract",
        Some(&task.id),
        &label,
        ChangeSource::Extract,
    );
    let client = model.ready(&vault.home().root).await;
    let mut on_event = |e: &mnemo_engine::AgentEvent| tasks.on_agent_event(&mut task, &token, e);
    let ctx = ExtractContext {
        origin: Origin {
            source: ChangeSource::Extract,
            group: job.id,
        },
        on_event: &mut on_event,
    };
    let mut result = match client {
        Ok(client) => {
            chat::extract_after_turn(vault, &client, ws, &session, chat_wrote, &token, ctx).await
        }
        Err(e) => ExtractResult::failed(&e.message),
    };
    // A run that wrote nothing leaves no group behind; in review mode its writes are a proposal.
    let origin = mnemo_store::journal::ProposalOrigin {
        session: Some(session.clone()),
        message: last_user_message(vault, ws, &session),
        client: None,
        task: Some(task.id.clone()),
    };
    let ended = match crate::review::close_group(
        vault,
        job,
        ChangeSource::Extract,
        "extract",
        &label,
        &origin,
        result.status != ExtractStatus::Failed,
    ) {
        Ok(e) => e,
        Err(e) => {
            result.status = ExtractStatus::Failed;
            result.detail = Some(e.message);
            crate::review::JobEnd::default()
        }
    };
    let mut summary = match (ended.proposal, result.files_written.len()) {
        (Some(p), n) => crate::review::proposed_summary(p, n),
        (None, 0) => result
            .detail
            .clone()
            .unwrap_or_else(|| "nothing written".to_owned()),
        (None, 1) => "wrote 1 memory".to_owned(),
        (None, n) => format!("wrote {n} memories"),
    };
    if result.road == Some(mnemo_engine::planner::choice::Road::Planner) {
        summary.push_str(" (planner)");
    }
    // Every fact the planner did not save is named in the task, with why (at most three in
    // words; the chat's result carries them all).
    if !result.dropped.is_empty() {
        let shown: Vec<String> = result
            .dropped
            .iter()
            .take(3)
            .map(|d| {
                format!(
                    "\"{}\" ({})",
                    d.fact.chars().take(80).collect::<String>(),
                    d.reason
                )
            })
            .collect();
        let more = result.dropped.len().saturating_sub(3);
        summary.push_str(&format!("; not saved: {}", shown.join("; ")));
        if more > 0 {
            summary.push_str(&format!("; and {more} more"));
        }
    }
    task.result = Some(TaskResult {
        summary,
        // Review mode: nothing was written; the proposal holds the files.
        files: if ended.proposal.is_some() {
            Vec::new()
        } else {
            result.files_written.clone()
        },
        group: ended.group,
        touched_types: result.touched_types.clone(),
        dream: None,
        undone_by: None,
        proposal: ended.proposal,
    });
    if job.staged && ended.proposal.is_none() && result.files_written.is_empty() {
        result
            .detail
            .get_or_insert_with(|| "nothing proposed".to_owned());
    }
    let (status, reason) = match result.status {
        ExtractStatus::Completed => (TaskStatus::Completed, None),
        ExtractStatus::Skipped => (TaskStatus::Skipped, Some(TaskReason::NothingToDo)),
        _ if token.is_cancelled() => (TaskStatus::Failed, Some(TaskReason::Cancelled)),
        _ => (TaskStatus::Failed, Some(TaskReason::Error)),
    };
    if status == TaskStatus::Failed || status == TaskStatus::Skipped {
        task.error = result.detail.clone();
    }
    tasks.finish(&mut task, status, reason);
    (result, task)
}

/// The newest user message of a session (what a proposal came from), cut to 300 characters.
fn last_user_message(vault: &Vault, ws: &str, session: &str) -> Option<String> {
    let w = vault.workspace(ws).ok()?;
    let messages = mnemo_engine::chat::Sessions::of(&w)
        .messages(session)
        .ok()?;
    let text = messages
        .iter()
        .rev()
        .find(|m| m.role == mnemo_llm::Role::User)?
        .content
        .clone()?;
    Some(text.chars().take(300).collect())
}
