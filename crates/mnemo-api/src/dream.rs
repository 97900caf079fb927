//! Dream as memory tasks: a manual dream (`dream`: the Dream button, `mnemo dream`,
//! `/dream`) skips the time and session gates but never the lock; after each chat turn the gates
//! decide whether an automatic one is queued (each skip is a recorded task with its reason). One
//! dream per workspace in this process at a time; the consolidation lock keeps other processes —
//! and other tools — out. Each dream is one task and one change group; its report is the task's
//! result.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use mnemo_core::{ChangeSource, Error, ErrorCode, Result, TaskKind, TaskReason, TaskStatus};
use mnemo_engine::dream::{self, DreamRequest, Progress, gates};
use mnemo_llm::CancellationToken;
use mnemo_store::dream_report::{DreamStatus, DreamTrigger};
use mnemo_store::journal::Origin;
use mnemo_store::tasks::{TaskInfo, TaskResult, ToolStep};
use mnemo_store::{Vault, Workspace, lock, settings};

use crate::Api;
use crate::model::ModelState;
use crate::tasks::Tasks;
use crate::wire::{self, DreamPlan, PlannedChange};

/// Longest an automatic dream waits for the extraction of its turn to finish first.
const WAIT_FOR_EXTRACTION: Duration = Duration::from_secs(180);

/// Dreams of this process: which workspace has one queued or running, and when each
/// workspace's transcripts were last scanned by the gates.
#[derive(Default)]
pub(crate) struct Dreams {
    running: Mutex<HashMap<String, String>>,
    scans: Mutex<HashMap<String, DateTime<Utc>>>,
}

fn guard<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Job {
    ws: String,
    task: TaskInfo,
    token: CancellationToken,
    trigger: DreamTrigger,
    mechanical: bool,
    session: Option<String>,
    /// Extraction to wait for first (an automatic dream after a turn).
    after: Option<String>,
}

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// Start a dream of a workspace now (the Dream button, `mnemo dream`, `/dream`): the time and
    /// session gates are skipped, the lock never. Returns its task — the one already under way
    /// when this process is dreaming that workspace. `locked` when another process (Mnemo's or
    /// another tool's) holds the workspace's consolidation lock. `mechanical`: skip the agent.
    pub fn dream(&self, workspace: String, mechanical: Option<bool>) -> Result<wire::TaskInfo> {
        self.start_dream(&workspace, mechanical.unwrap_or(false), None)
            .map(Into::into)
    }

    /// What a mechanical dream would change now, without writing (`mnemo dream --dry-run`).
    pub fn dream_plan(&self, workspace: String) -> Result<DreamPlan> {
        let ws = self.vault.workspace(&workspace)?;
        let plan = dream::plan_mechanical(&ws);
        Ok(DreamPlan {
            workspace: ws.id,
            changes: plan
                .changes
                .iter()
                .map(|c| PlannedChange {
                    path: c.path.clone(),
                    delete: c.new.is_none(),
                    entries_before: u32::try_from(c.entries_before).unwrap_or(u32::MAX),
                    entries_after: u32::try_from(c.entries_after).unwrap_or(u32::MAX),
                })
                .collect(),
            entries_merged: plan.entries_merged,
            merges: wire::all(plan.merges),
        })
    }

    /// Whether dream runs on its own after chat turns in a workspace.
    pub fn auto_dream(&self, workspace: String) -> Result<bool> {
        let ws = self.vault.workspace(&workspace)?;
        Ok(self.switches(&ws).auto_dream)
    }

    /// Switch auto-dream for a workspace; returns the new setting.
    pub fn set_auto_dream(&self, workspace: String, enabled: bool) -> Result<bool> {
        let ws = self.vault.workspace(&workspace)?;
        settings::set_switch(
            &self.vault.home().root,
            settings::AUTO_DREAM,
            &ws.id,
            enabled,
        )?;
        Ok(enabled)
    }

    pub(crate) fn start_dream(
        &self,
        workspace: &str,
        mechanical: bool,
        session: Option<&str>,
    ) -> Result<TaskInfo> {
        let ws = self.vault.workspace(workspace)?;
        if let Some(t) = self.dream_under_way(&ws.id) {
            return Ok(t);
        }
        if let Some(lock::Holder::Pid(pid)) = lock::holder_for(&ws) {
            return Err(Error::new(
                ErrorCode::Locked,
                format!(
                    "{} is being consolidated by process {pid} (its lock: {}); try again when it finishes",
                    ws.id,
                    lock::lock_path(&ws).display()
                ),
            ));
        }
        Ok(self
            .queue_dream(&ws, DreamTrigger::Manual, mechanical, session, None)
            .0)
    }

    /// This process's dream of a workspace that is queued or running, if any.
    fn dream_under_way(&self, ws: &str) -> Option<TaskInfo> {
        let id = guard(&self.dreams.running).get(ws).cloned()?;
        self.tasks
            .store()
            .get(&id)
            .ok()
            .filter(|t| !t.status.is_finished())
    }

    /// After a chat turn (extraction already queued as `extract_task`): run the gates and queue an
    /// automatic dream, or record why not. Returns the dream task's id when one was queued.
    pub(crate) fn dream_after_turn(
        &self,
        workspace: &str,
        session: &str,
        extract_task: Option<&str>,
    ) -> Option<String> {
        let ws = self.vault.workspace(workspace).ok()?;
        let meta = self.vault.meta(&ws).ok()?.value;
        let last_dream_at = dream::last_dream_at(&self.vault, &ws).ok().flatten();
        let running = guard(&self.dreams.running).get(&ws.id).cloned();
        let last_scan_at = guard(&self.dreams.scans).get(&ws.id).copied();
        let now = Utc::now();
        let facts = gates::Facts {
            enabled: self.switches(&ws).auto_dream,
            session: Some(session),
            last_dream_session: meta.last_dream_session_id.as_deref(),
            last_dream_at,
            last_scan_at,
            running,
            now,
        };
        let verdict = gates::check(
            &facts,
            |since| dream::sessions_touched_since(&ws, since),
            || lock::holder_for(&ws).is_some(),
        );
        if verdict.scanned {
            guard(&self.dreams.scans).insert(ws.id.clone(), now);
        }
        if let Some(skip) = verdict.skip {
            let (mut task, _) = self.tasks.create(TaskKind::Dream, &ws.id, Some(session));
            task.error = Some(skip.explain());
            self.tasks
                .finish(&mut task, TaskStatus::Skipped, Some(skip.reason()));
            tracing::debug!(workspace = %ws.id, reason = %skip.reason(), "auto-dream skipped");
            return None;
        }
        let (task, new) = self.queue_dream(
            &ws,
            DreamTrigger::Auto,
            false,
            Some(session),
            extract_task.map(str::to_owned),
        );
        // Another request's dream may have been queued in between: that one runs, not a second.
        new.then_some(task.id)
    }

    fn queue_dream(
        &self,
        ws: &Workspace,
        trigger: DreamTrigger,
        mechanical: bool,
        session: Option<&str>,
        after: Option<String>,
    ) -> (TaskInfo, bool) {
        // Checked and claimed at once: two requests never start two dreams of one workspace.
        let (task, token) = {
            let mut running = guard(&self.dreams.running);
            if let Some(t) = running
                .get(&ws.id)
                .and_then(|id| self.tasks.store().get(id).ok())
                .filter(|t| !t.status.is_finished())
            {
                return (t, false);
            }
            let (task, token) = self.tasks.create(TaskKind::Dream, &ws.id, session);
            running.insert(ws.id.clone(), task.id.clone());
            (task, token)
        };
        let job = Job {
            ws: ws.id.clone(),
            task: task.clone(),
            token,
            trigger,
            mechanical,
            session: session.map(str::to_owned),
            after,
        };
        let rt = match self.model.runtime.get() {
            Ok(rt) => rt,
            Err(e) => {
                let mut t = task;
                t.error = Some(e.message);
                self.tasks
                    .finish(&mut t, TaskStatus::Failed, Some(TaskReason::NoRuntime));
                release(&self.dreams, &ws.id, &t.id);
                return (t, true);
            }
        };
        let (vault, model, tasks, dreams) = (
            Arc::clone(&self.vault),
            Arc::clone(&self.model),
            Arc::clone(&self.tasks),
            Arc::clone(&self.dreams),
        );
        let handle = rt.handle().clone();
        rt.spawn(async move {
            let ws_id = job.ws.clone();
            let mut fallback = job.task.clone();
            let id = job.task.id.clone();
            let (v, m, t) = (Arc::clone(&vault), Arc::clone(&model), Arc::clone(&tasks));
            // Off the runtime's one worker (a mechanical dream over thousands of files is
            // blocking work); a panic in it is reported, and its lock guard is dropped by the
            // unwinding, so the lock is released on that path too.
            let run =
                tokio::task::spawn_blocking(move || handle.block_on(run_job(&v, &m, &t, job)));
            if let Err(e) = run.await {
                fallback.error = Some(format!("the dream stopped unexpectedly: {e}"));
                tasks.finish(
                    &mut fallback,
                    TaskStatus::Failed,
                    Some(TaskReason::Panicked),
                );
            }
            release(&dreams, &ws_id, &id);
        });
        (task, true)
    }
}

/// Free a workspace's dream slot — only if it is still this dream's.
fn release(dreams: &Dreams, ws: &str, id: &str) {
    let mut running = guard(&dreams.running);
    if running.get(ws).is_some_and(|r| r == id) {
        running.remove(ws);
    }
}

/// Wait until the extraction `id` has finished (or [`WAIT_FOR_EXTRACTION`] passed); `false` when
/// the dream was cancelled meanwhile.
async fn wait_for(tasks: &Tasks, task: &TaskInfo, token: &CancellationToken, id: &str) -> bool {
    let deadline = tokio::time::Instant::now() + WAIT_FOR_EXTRACTION;
    while tokio::time::Instant::now() < deadline {
        if tasks.cancelled(task, token) {
            return false;
        }
        match tasks.store().get(id) {
            Ok(t) if !t.status.is_finished() => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            _ => return true,
        }
    }
    true
}

/// One dream: wait for its turn's extraction, take the lock, open the group, run, record.
async fn run_job(vault: &Vault, model: &ModelState, tasks: &Tasks, job: Job) {
    let Job {
        ws,
        mut task,
        token,
        trigger,
        mechanical,
        session,
        after,
    } = job;
    task.set_status(TaskStatus::Running);
    if let Some(id) = &after {
        task.phase = Some("waiting for this turn's extraction".into());
        tasks.save(&task);
        let _ = wait_for(tasks, &task, &token, id).await;
    }
    if tasks.cancelled(&task, &token) {
        tasks.finish(&mut task, TaskStatus::Skipped, Some(TaskReason::Cancelled));
        return;
    }
    let workspace = match vault.workspace(&ws) {
        Ok(w) => w,
        Err(e) => {
            task.error = Some(e.message);
            tasks.finish(&mut task, TaskStatus::Failed, Some(TaskReason::Error));
            return;
        }
    };
    // The index must know every file (a CLI process has no watcher): MEMORY.md is rebuilt from it.
    if let Err(e) = vault.sync(&workspace) {
        tracing::warn!(workspace = %ws, "could not sync before the dream: {e}");
    }
    task.phase = Some("taking the consolidation lock".into());
    tasks.save(&task);
    let mut held = match lock::acquire_workspace(&workspace) {
        Ok(l) => l,
        Err(e) => {
            task.error = Some(e.message);
            let reason = TaskReason::from_error(e.code);
            let status = if e.code == ErrorCode::Locked {
                TaskStatus::Skipped
            } else {
                TaskStatus::Failed
            };
            tasks.finish(&mut task, status, Some(reason));
            return;
        }
    };
    // Another process may have dreamed while this one waited: the time gate again, under the lock.
    if trigger == DreamTrigger::Auto
        && dream::last_dream_at(vault, &workspace)
            .ok()
            .flatten()
            .is_some_and(|t| Utc::now() - t < chrono::Duration::hours(gates::MIN_HOURS))
    {
        task.error = Some(gates::Skip::MinHours.explain());
        drop(held);
        tasks.finish(&mut task, TaskStatus::Skipped, Some(TaskReason::MinHours));
        return;
    }
    let label = match trigger {
        DreamTrigger::Manual => "dream (manual)",
        DreamTrigger::Auto => "dream (automatic)",
    };
    let job = crate::review::open_group(
        vault,
        &ws,
        "dream",
        Some(&task.id),
        label,
        ChangeSource::Dream,
    );
    let group = job.id;
    // A model the dream cannot reach leaves it to the mechanical pass, as no model does.
    let client = if mechanical {
        None
    } else {
        match model.ready(&vault.home().root).await {
            Ok(c) => c.settings().is_configured().then_some(c),
            Err(e) => {
                tracing::warn!("dream: {}; the mechanical pass runs", e.message);
                None
            }
        }
    };
    let req = DreamRequest {
        workspace: &ws,
        trigger,
        mechanical,
        session: session.as_deref(),
        origin: Origin {
            source: ChangeSource::Dream,
            group,
        },
    };
    let mut phase = String::new();
    let mut on_progress = |p: Progress<'_>| match p {
        Progress::Phase(s) => {
            s.clone_into(&mut phase);
            task.phase = Some(s.to_owned());
            tasks.save(&task);
            tasks.cancelled(&task, &token);
        }
        Progress::Agent(e) => {
            tasks.on_agent_event(&mut task, &token, e);
            // Keep the phase's name next to the turn count.
            if let mnemo_engine::AgentEvent::Turn(n) = e {
                task.phase = Some(format!(
                    "{phase} (model turn {n} of {})",
                    dream::LIMITS.max_turns
                ));
                tasks.save(&task);
            }
        }
        Progress::File(path) => {
            task.push_tool(ToolStep {
                name: "write".into(),
                detail: path.to_owned(),
                ok: Some(true),
            });
            tasks.save(&task);
            tasks.cancelled(&task, &token);
        }
    };
    let report = dream::run_dream(vault, client.as_deref(), &req, &token, &mut on_progress).await;
    if report.status != DreamStatus::Failed {
        held.succeeded();
    }
    drop(held);
    // In review mode the dream's whole diff is one proposal (a failed dream proposes nothing).
    let origin = mnemo_store::journal::ProposalOrigin {
        session: session.clone(),
        task: Some(task.id.clone()),
        ..Default::default()
    };
    let mut report = report;
    let ended = match crate::review::close_group(
        vault,
        job,
        ChangeSource::Dream,
        "dream",
        label,
        &origin,
        report.status != DreamStatus::Failed,
    ) {
        Ok(e) => e,
        Err(e) => {
            report.status = DreamStatus::Failed;
            report
                .notes
                .push(format!("the proposal was not saved: {}", e.message));
            crate::review::JobEnd::default()
        }
    };
    let kept_group = ended.group;
    if let Some(p) = ended.proposal {
        report.notes.push(format!(
            "review mode: these changes are proposal {p}; nothing was written until you accept it"
        ));
    }
    tracing::info!(workspace = %ws, task = %task.id, status = report.status.as_str(), merged = report.entries_merged, "dream finished");
    let mut files = report.files_touched.clone();
    files.extend(report.files_deleted.iter().cloned());
    let failed = report.status == DreamStatus::Failed;
    if failed {
        task.error = report.notes.last().cloned();
    }
    task.phase = None;
    let proposed = files.len();
    if ended.proposal.is_some() {
        files.clear();
    }
    task.result = Some(TaskResult {
        summary: match ended.proposal {
            Some(p) => crate::review::proposed_summary(p, proposed),
            None => dream::summary_line(&report),
        },
        files,
        group: kept_group,
        touched_types: report.touched_types.clone(),
        dream: Some(report),
        undone_by: None,
        proposal: ended.proposal,
    });
    let (status, reason) = match (failed, token.is_cancelled()) {
        (false, _) => (TaskStatus::Completed, None),
        (true, true) => (TaskStatus::Failed, Some(TaskReason::Cancelled)),
        (true, false) => (TaskStatus::Failed, Some(TaskReason::Error)),
    };
    tasks.finish(&mut task, status, reason);
}
