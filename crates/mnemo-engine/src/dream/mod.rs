//! Dream — consolidation. [`run_dream`] runs one dream of one workspace inside a
//! change group the caller opened, while the caller holds the workspace's consolidation lock
//! (`mnemo_store::lock::acquire_workspace`): the agent path when a model is given (its changes
//! checked after; a failed run falls back), else — or after a failure, or when asked — the
//! mechanical path ([`mechanical::plan`], pure). Either way: snapshot first; every write atomic
//! and journaled; MEMORY.md rebuilt once at the end; meta.json and a telemetry event record it.
//!
//! No fact is lost at any instant: mechanical merges write each kept copy before its sources
//! shrink (and a merged summary already lives in its target), and the agent may delete a file
//! only when each of its entries lives on in another one — so a process killed mid-dream leaves
//! every summary it found.

mod agent;
pub mod gates;
pub mod mechanical;
pub mod planner;
mod usage;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Instant;

use chrono::{DateTime, SecondsFormat, Utc};
use mnemo_core::{MemoryType, Result, WorkspaceKind};
use mnemo_llm::{CancellationToken, Client};
use mnemo_store::dream_report::{DreamReport, DreamStatus, DreamStrategy, DreamTrigger};
use mnemo_store::format::TopicFile;
use mnemo_store::journal::Origin;
use mnemo_store::{Vault, Workspace, doc, fsutil, lock};

use crate::{AgentEvent, telemetry};
pub use agent::LIMITS;
use usage::usage_note;
pub use usage::usage_text;

/// Every memory file's bytes at the start of a dream, by relative path.
pub type Snapshot = BTreeMap<String, Vec<u8>>;

pub use mnemo_store::format::summary_key;

/// Entries of valid topic files by summary key, each copy with its other lines (case-folded,
/// trimmed) — to tell whether an entry lives on elsewhere with all its text.
#[derive(Debug, Default)]
pub struct EntryPool(std::collections::HashMap<String, Vec<BTreeSet<String>>>);

fn entry_lines(e: &mnemo_store::format::Entry) -> impl Iterator<Item = String> + '_ {
    e.text
        .lines()
        .skip(1)
        .map(|l| l.trim().to_lowercase())
        .filter(|l| !l.is_empty())
}

impl EntryPool {
    /// Add the entries of one file's text (nothing when it is not a valid topic file).
    pub fn add(&mut self, text: &str) {
        let file = TopicFile::parse(text);
        if file.problem.is_some() {
            return;
        }
        for e in file.entries() {
            let k = summary_key(&e.summary);
            if !k.is_empty() {
                let lines = entry_lines(&e).collect();
                self.0.entry(k).or_default().push(lines);
            }
        }
    }

    /// Whether an entry lives on here: a copy with its summary whose lines contain each of its
    /// other lines (a merged `Why:` such as "a; b" contains "a"). An entry without a summary
    /// has nothing to lose.
    #[must_use]
    pub fn holds(&self, e: &mnemo_store::format::Entry) -> bool {
        let k = summary_key(&e.summary);
        if k.is_empty() {
            return true;
        }
        let wanted: Vec<String> = entry_lines(e).collect();
        self.0.get(&k).is_some_and(|copies| {
            copies.iter().any(|have| {
                wanted
                    .iter()
                    .all(|w| have.iter().any(|h| h == w || h.contains(w.as_str())))
            })
        })
    }
}

/// The entries of every valid topic file on disk now, except `except`: where an entry would
/// have to live on (deletes, the safety pass).
#[must_use]
pub fn entries_elsewhere(vault: &Vault, ws: &Workspace, origin: Origin, except: &str) -> EntryPool {
    let mut pool = EntryPool::default();
    for (p, b) in read_docs_as(vault, ws, origin) {
        if p != except && doc::doc_kind(&p) == Some(doc::DocKind::Topic) {
            pool.add(&String::from_utf8_lossy(&b));
        }
    }
    pool
}

/// Progress of a dream, for its task.
#[derive(Debug)]
pub enum Progress<'a> {
    /// A new phase.
    Phase(&'a str),
    /// The agent's turn or tool call.
    Agent(&'a AgentEvent),
    /// A file was written or deleted.
    File(&'a str),
}

/// One dream's inputs.
#[derive(Debug, Clone, Copy)]
pub struct DreamRequest<'a> {
    /// Workspace id.
    pub workspace: &'a str,
    /// Auto or manual.
    pub trigger: DreamTrigger,
    /// Skip the agent even when a model is given.
    pub mechanical: bool,
    /// The chat session that asked, if any (recorded as `lastDreamSessionId`).
    pub session: Option<&'a str>,
    /// Source `dream`, in the run's change group.
    pub origin: Origin,
}

/// Every memory file (topic files and daily logs) under the memory root, with its bytes; files
/// too large to read are left out (and so never touched).
#[must_use]
pub fn read_docs(ws: &Workspace) -> Snapshot {
    let mut out = Snapshot::new();
    // Listed and read beneath the root's handle: a folder swapped during the dream is never
    // read through.
    let Ok(root) = mnemo_store::rootdir::RootDir::open(&ws.memory_root) else {
        return out;
    };
    for (rel, meta) in root.documents() {
        if meta.is_file()
            && let Ok(fsutil::ReadOutcome::Bytes(b)) = root.read_capped(&rel)
        {
            out.insert(rel, b);
        }
    }
    out
}

/// [`read_docs`] as a run writing as `origin` sees them: its staged writes (review mode) laid
/// over the disk.
#[must_use]
pub fn read_docs_as(vault: &Vault, ws: &Workspace, origin: Origin) -> Snapshot {
    let mut docs = read_docs(ws);
    vault.overlay(origin, &mut docs);
    docs
}

/// Where a workspace's chat transcripts are (read-only to a dream; their mtimes count sessions):
/// only where the person's own tools keep them — Mnemo's sessions, Claude Code's and Qwen Code's
/// folders under their own base dirs —, never a repository's (a repository's
/// `.qwen/chats` is anyone's, so Qwen Code's team memory has none).
#[must_use]
pub fn transcript_dirs(ws: &Workspace) -> Vec<PathBuf> {
    match ws.kind {
        WorkspaceKind::Mnemo => vec![ws.state_dir.join("sessions")],
        // Claude Code keeps `<session>.jsonl` next to the project's memory folder.
        WorkspaceKind::Claude => ws
            .memory_root
            .parent()
            .map(PathBuf::from)
            .into_iter()
            .collect(),
        WorkspaceKind::Qwen if ws.id.starts_with(mnemo_store::workspace::QWEN_TEAM_PREFIX) => {
            Vec::new()
        }
        WorkspaceKind::Qwen => vec![ws.lock_dir.join("chats")],
        WorkspaceKind::Folder => Vec::new(),
    }
}

/// Sessions whose transcript changed after `since` (all of them when `None`); regular files
/// only, as [`mnemo_store::transcripts::list`] sees them (a link is not followed).
#[must_use]
pub fn sessions_touched_since(ws: &Workspace, since: Option<DateTime<Utc>>) -> usize {
    transcript_dirs(ws)
        .iter()
        .flat_map(|d| mnemo_store::transcripts::list(d))
        .filter(|t| t.regular)
        .filter(|t| since.is_none_or(|s| DateTime::<Utc>::from(t.modified) > s))
        .count()
}

/// When the workspace last dreamed: meta.json's `lastDreamAt`, or for a Claude Code folder the
/// later of that and Claude Code's own last consolidation (its lock file's mtime).
pub fn last_dream_at(vault: &Vault, ws: &Workspace) -> Result<Option<DateTime<Utc>>> {
    let meta = vault.meta(ws)?.value;
    let ours = meta
        .last_dream_at
        .as_deref()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc));
    let theirs = lock::last_consolidated(ws).map(DateTime::<Utc>::from);
    Ok(ours.max(theirs))
}

/// The mechanical plan for a workspace as it is on disk now (`--dry-run` shows it).
pub fn plan_mechanical(ws: &Workspace) -> mechanical::Plan {
    plan_of(&read_docs(ws))
}

fn plan_of(snap: &Snapshot) -> mechanical::Plan {
    let texts: Vec<(String, String)> = snap
        .iter()
        .filter(|(p, _)| doc::doc_kind(p) == Some(doc::DocKind::Topic))
        .filter_map(|(p, b)| Some((p.clone(), String::from_utf8(b.clone()).ok()?)))
        .collect();
    mechanical::plan(&texts)
}

/// What every step of one dream works in.
#[derive(Clone, Copy)]
pub(crate) struct Scope<'a> {
    pub vault: &'a Vault,
    pub ws: &'a Workspace,
    /// Source `dream`, in the run's group.
    pub origin: Origin,
    pub cancel: &'a CancellationToken,
}

/// Carry out a mechanical plan: each change only if the file is still as planned (an outside
/// edit meanwhile is kept, with a note — and then the files merging into it keep their copies
/// too). Writes come first, deletes last. Returns the entries actually merged away.
fn apply_plan(
    scope: Scope<'_>,
    snap: &Snapshot,
    plan: &mechanical::Plan,
    notes: &mut Vec<String>,
    on_progress: &mut (dyn FnMut(Progress<'_>) + Send),
) -> Result<u32> {
    let Scope {
        vault,
        ws,
        origin,
        cancel,
    } = scope;
    let mut blocked: BTreeSet<String> = BTreeSet::new();
    let mut merged = 0u32;
    for c in &plan.changes {
        if cancel.is_cancelled() {
            notes.push("cancelled: the rest of the plan was not applied".to_owned());
            return Err(mnemo_core::Error::new(
                mnemo_core::ErrorCode::Conflict,
                "cancelled",
            ));
        }
        if blocked.contains(&c.path) {
            notes.push(format!(
                "left {} as it is: the file its entries merge into changed on disk during the dream",
                c.path
            ));
            continue;
        }
        let expected = snap.get(&c.path).map(|b| fsutil::hash(b));
        let new = c.new.clone().map(String::into_bytes);
        let done = vault.mutate(ws, &c.path, origin, None, |cur, rel| {
            if cur.map(fsutil::hash) != expected {
                return Err(mnemo_core::Error::new(
                    mnemo_core::ErrorCode::Conflict,
                    format!("{rel} changed on disk during the dream"),
                ));
            }
            Ok(new)
        });
        match done {
            Ok(_) => {
                merged += u32::try_from(c.entries_before.saturating_sub(c.entries_after))
                    .unwrap_or(u32::MAX);
                // "What changed and why": every file it rewrote or deleted, with its reason.
                notes.push(c.reason.clone());
                on_progress(Progress::File(&c.path));
            }
            Err(e) if e.code == mnemo_core::ErrorCode::Conflict => {
                notes.push(format!(
                    "left {} as it is: it changed on disk during the dream",
                    c.path
                ));
                // Its sources must keep their copies: the merge into it did not happen.
                blocked.extend(plan.sources_of(&c.path));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(merged)
}

fn type_of(bytes: &[u8]) -> Option<MemoryType> {
    TopicFile::parse(&String::from_utf8_lossy(bytes)).memory_type()
}

/// Run one dream (the caller holds the lock and opened the group `req.origin` names). A model
/// client means the agent path unless `req.mechanical`. Never fails: what went wrong is in the
/// report (`failed`, with notes), and what was written before is kept, checked and undoable.
pub async fn run_dream(
    vault: &Vault,
    client: Option<&Client>,
    req: &DreamRequest<'_>,
    cancel: &CancellationToken,
    on_progress: &mut (dyn FnMut(Progress<'_>) + Send),
) -> DreamReport {
    let started = Instant::now();
    let mut report = DreamReport {
        status: DreamStatus::Failed,
        strategy: DreamStrategy::Mechanical,
        trigger: req.trigger,
        files_touched: Vec::new(),
        files_created: Vec::new(),
        files_deleted: Vec::new(),
        entries_merged: 0,
        merges: Vec::new(),
        touched_types: Vec::new(),
        duration_ms: 0,
        notes: Vec::new(),
    };
    let ws = match vault.workspace(req.workspace) {
        Ok(ws) => ws,
        Err(e) => {
            report.notes.push(e.message);
            return report;
        }
    };
    let snap = read_docs(&ws);
    let scope = Scope {
        vault,
        ws: &ws,
        origin: req.origin,
        cancel,
    };
    // MEMORY.md is rebuilt once, when the dream ends: a dream killed midway leaves the index
    // from before it, never one of a half-done state.
    let batch = vault.begin_batch(&ws, req.origin);
    let outcome = run_paths(scope, client, req, &snap, &mut report, on_progress).await;
    drop(batch);
    finish(vault, &ws, req, &snap, &outcome, &mut report, started);
    report
}

/// The agent path (unless mechanical), then the mechanical path when asked, when there is no
/// model, or when the agent failed or changed nothing.
async fn run_paths(
    scope: Scope<'_>,
    client: Option<&Client>,
    req: &DreamRequest<'_>,
    snap: &Snapshot,
    report: &mut DreamReport,
    on_progress: &mut (dyn FnMut(Progress<'_>) + Send),
) -> Result<()> {
    let ws = scope.ws;
    {
        let mut use_mechanical = req.mechanical || client.is_none();
        let road = match (use_mechanical, client) {
            (false, Some(c)) => {
                crate::planner::choice::decide(&scope.vault.home().root, c, scope.cancel)
                    .await
                    .road
            }
            _ => crate::planner::choice::Road::Tools,
        };
        let mut planned = false;
        if let (false, Some(client), crate::planner::choice::Road::Planner) =
            (use_mechanical, client, road)
        {
            planned = run_planner(scope, client, report, on_progress).await?;
            use_mechanical = true;
        } else if let (false, Some(client)) = (use_mechanical, client) {
            let run = agent::run(scope, client, snap, transcript_dirs(ws), on_progress).await?;
            report.notes.extend(run.notes);
            report.strategy = DreamStrategy::Agent;
            if run.cancelled {
                report.notes.push("cancelled".to_owned());
                return Err(mnemo_core::Error::new(
                    mnemo_core::ErrorCode::Conflict,
                    "cancelled",
                ));
            }
            if !run.completed {
                report
                    .notes
                    .push("fell back to the mechanical path".to_owned());
                use_mechanical = true;
            } else if run.changed.is_empty() {
                report
                    .notes
                    .push("the agent changed nothing; the mechanical pass ran".to_owned());
                use_mechanical = true;
            }
        }
        if use_mechanical {
            report.strategy = if planned {
                DreamStrategy::Planner
            } else {
                DreamStrategy::Mechanical
            };
            on_progress(Progress::Phase("merging duplicate entries"));
            // Plan from the files as they are now (after whatever the agent or planner kept).
            let now = read_docs_as(scope.vault, ws, scope.origin);
            let plan = plan_of(&now);
            report.merges.extend(plan.merges.iter().cloned());
            report.entries_merged +=
                apply_plan(scope, &now, &plan, &mut report.notes, on_progress)?;
        }
        Ok(())
    }
}

/// The planner path: the model's plan of merges and replacements, checked, then carried out as
/// the mechanical plan is. Returns whether it changed anything. A plan that fails is a note:
/// the mechanical pass still runs.
async fn run_planner(
    scope: Scope<'_>,
    client: &Client,
    report: &mut DreamReport,
    on_progress: &mut (dyn FnMut(Progress<'_>) + Send),
) -> Result<bool> {
    on_progress(Progress::Phase(
        "asking the model which memories say the same thing",
    ));
    let now = read_docs_as(scope.vault, scope.ws, scope.origin);
    let listed = planner::list(&now);
    if listed.len() < 2 {
        return Ok(false);
    }
    let proposal = match planner::ask(client, &listed, scope.cancel).await {
        Ok(p) => p,
        Err(e) => {
            report.notes.push(format!(
                "the model's plan failed ({e}); the mechanical pass ran"
            ));
            return Ok(false);
        }
    };
    let checked = planner::check(&listed, &proposal);
    report
        .notes
        .extend(checked.refused.iter().map(|r| format!("planner: {r}")));
    report.notes.extend(checked.suggested.iter().cloned());
    let plan = planner::to_plan(&now, &checked);
    if plan.changes.is_empty() {
        report
            .notes
            .push("planner: the model found no memories to merge or replace".to_owned());
        return Ok(false);
    }
    on_progress(Progress::Phase("merging what the model found"));
    report.merges.extend(plan.merges.iter().cloned());
    let merged = apply_plan(scope, &now, &plan, &mut report.notes, on_progress)?;
    report.entries_merged += merged;
    Ok(merged > 0)
}

/// Work out what changed against the snapshot, then meta.json and telemetry.
fn finish(
    vault: &Vault,
    ws: &Workspace,
    req: &DreamRequest<'_>,
    snap: &Snapshot,
    outcome: &Result<()>,
    report: &mut DreamReport,
    started: Instant,
) {
    let after = read_docs_as(vault, ws, req.origin);
    let paths: BTreeSet<&String> = snap.keys().chain(after.keys()).collect();
    let mut types = BTreeSet::new();
    for p in paths {
        match (snap.get(p), after.get(p)) {
            (Some(a), Some(b)) if a == b => continue,
            (before, Some(b)) => {
                report.files_touched.push(p.clone());
                if before.is_none() {
                    report.files_created.push(p.clone());
                }
                types.extend(type_of(b));
            }
            (Some(a), None) => {
                report.files_deleted.push(p.clone());
                types.extend(type_of(a));
            }
            (None, None) => {}
        }
    }
    report.touched_types = types.into_iter().collect();
    if report.strategy == DreamStrategy::Mechanical
        && let Some(note) = usage_note(vault, ws)
    {
        report.notes.push(note);
    }
    report.status = match outcome {
        Err(_) => DreamStatus::Failed,
        Ok(()) if report.files_touched.is_empty() && report.files_deleted.is_empty() => {
            DreamStatus::Noop
        }
        // Review mode: its writes wait in the inbox as one proposal.
        Ok(()) if vault.is_staged(req.origin) => DreamStatus::Proposed,
        Ok(()) => DreamStatus::Updated,
    };
    if let Err(e) = outcome
        && e.message != "cancelled"
    {
        report.notes.push(format!("failed: {}", e.message));
    }
    report.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let recorded = (|| -> Result<()> {
        let mut meta = vault.meta(ws)?.value;
        if report.status != DreamStatus::Failed {
            meta.last_dream_at = Some(Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true));
            meta.last_dream_session_id = req.session.map(str::to_owned);
        }
        meta.last_dream_status = Some(report.status.as_str().to_owned());
        vault.save_meta(ws, &meta)?;
        telemetry::Event::Dream(telemetry::Dream {
            trigger: report.trigger,
            status: report.status,
            strategy: report.strategy,
            entries_merged: report.entries_merged,
            touched_types: report.touched_types.clone(),
            files_touched: report.files_touched.len(),
            files_deleted: report.files_deleted.len(),
            duration_ms: report.duration_ms,
        })
        .record(vault, &ws.id)
    })();
    if let Err(e) = recorded {
        tracing::warn!(workspace = %ws.id, "could not record the dream: {e}");
        report.notes.push(format!(
            "could not record the dream in meta.json / telemetry: {}",
            e.message
        ));
    }
}

/// One line for people.
#[must_use]
pub fn summary_line(r: &DreamReport) -> String {
    match r.status {
        DreamStatus::Noop => "nothing written: nothing to consolidate".to_owned(),
        DreamStatus::Failed => format!(
            "dream failed{}",
            r.notes.last().map(|n| format!(": {n}")).unwrap_or_default()
        ),
        DreamStatus::Updated | DreamStatus::Proposed => {
            let mut parts = Vec::new();
            if r.entries_merged > 0 {
                parts.push(format!(
                    "merged {} duplicate entr{}",
                    r.entries_merged,
                    if r.entries_merged == 1 { "y" } else { "ies" }
                ));
            }
            let created = r.files_created.len();
            let changed = r.files_touched.len() - created.min(r.files_touched.len());
            if created > 0 {
                parts.push(format!(
                    "{created} file{} created",
                    if created == 1 { "" } else { "s" }
                ));
            }
            if changed > 0 || created == 0 {
                parts.push(format!(
                    "{changed} file{} updated",
                    if changed == 1 { "" } else { "s" }
                ));
            }
            if !r.files_deleted.is_empty() {
                parts.push(format!("{} deleted", r.files_deleted.len()));
            }
            format!(
                "{} ({})",
                parts.join(", "),
                match r.strategy {
                    DreamStrategy::Agent => "agent",
                    DreamStrategy::Planner => "planner",
                    DreamStrategy::Mechanical => "mechanical",
                }
            )
        }
    }
}
