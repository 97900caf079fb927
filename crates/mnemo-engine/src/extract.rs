//! Extraction: after an assistant turn, a headless memory agent reads the
//! unprocessed slice of the transcript (after `extract-cursor.json`) with the existing manifest
//! preloaded and writes memories; weak entries are filtered out afterwards; the cursor moves only
//! after a successful run; meta.json and telemetry record what happened.
//!
//! The scheduling rules are pure: [`ExtractQueue`] runs one extraction per workspace and lets a
//! request that arrives meanwhile replace the queued one (coalescing, never piling up).

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};
use mnemo_core::{MemoryType, Result};
use mnemo_llm::{CancellationToken, Client, Message, Role};
use mnemo_store::format::TopicFile;
use mnemo_store::journal::Origin;
use mnemo_store::state::Cursor;
use mnemo_store::{Vault, doc, format};
use serde::Serialize;
use specta::Type;

use crate::agent::{AgentLimits, AgentMachine, AgentOutcome};
use crate::planner::{self, Dropped, choice::Road};
use crate::tools::MemoryTools;

/// Limits of an extraction run.
pub const LIMITS: AgentLimits = AgentLimits {
    max_turns: 5,
    wall_time: Duration::from_secs(120),
    step_tokens: 768,
    total_tokens: 60_000,
};
/// Entries saying less than this ([`fact_width`]) are dropped.
pub const MIN_FACT_WIDTH: usize = 10;

/// What the scheduler should do with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// Nothing runs for this workspace: start now.
    Start,
    /// One is running: this request waits (replacing any request already waiting).
    Queued {
        /// Whether an older waiting request was replaced.
        replaced: bool,
    },
}

/// One extraction per workspace at a time; at most one waiting request per workspace.
#[derive(Debug)]
pub struct ExtractQueue<R> {
    running: HashSet<String>,
    waiting: HashMap<String, R>,
}

impl<R> Default for ExtractQueue<R> {
    fn default() -> Self {
        Self {
            running: HashSet::new(),
            waiting: HashMap::new(),
        }
    }
}

impl<R> ExtractQueue<R> {
    /// A request arrives.
    pub fn request(&mut self, workspace: &str, req: R) -> Admission {
        if self.running.insert(workspace.to_owned()) {
            return Admission::Start;
        }
        let replaced = self.waiting.insert(workspace.to_owned(), req).is_some();
        Admission::Queued { replaced }
    }

    /// Like [`Self::request`], but a request arriving while one waits is combined with it by
    /// `merge(waiting, new)` instead of replacing it (e.g. to keep one waiting job per session).
    pub fn request_merge(
        &mut self,
        workspace: &str,
        req: R,
        merge: impl FnOnce(R, R) -> R,
    ) -> Admission {
        if self.running.insert(workspace.to_owned()) {
            return Admission::Start;
        }
        let (next, replaced) = match self.waiting.remove(workspace) {
            Some(old) => (merge(old, req), true),
            None => (req, false),
        };
        self.waiting.insert(workspace.to_owned(), next);
        Admission::Queued { replaced }
    }

    /// A run finished: the waiting request to start next, if any (it is now running).
    pub fn finished(&mut self, workspace: &str) -> Option<R> {
        match self.waiting.remove(workspace) {
            Some(next) => Some(next),
            None => {
                self.running.remove(workspace);
                None
            }
        }
    }

    /// The request waiting for a workspace, to change in place (e.g. to drop a cancelled job).
    pub fn waiting_mut(&mut self, workspace: &str) -> Option<&mut R> {
        self.waiting.get_mut(workspace)
    }

    /// Whether a run is under way for the workspace.
    #[must_use]
    pub fn is_running(&self, workspace: &str) -> bool {
        self.running.contains(workspace)
    }
}

/// The unprocessed part of a session's transcript: everything after the cursor when the cursor
/// belongs to this session, else all of it. Returns (offset, slice).
#[must_use]
pub fn unprocessed<'m>(
    messages: &'m [Message],
    session_id: &str,
    cursor: &Cursor,
) -> (usize, &'m [Message]) {
    let offset = if cursor.session_id == session_id {
        usize::try_from(cursor.processed_offset)
            .unwrap_or(usize::MAX)
            .min(messages.len())
    } else {
        0
    };
    (offset, &messages[offset..])
}

const MOMENT_WORDS: &[&str] = &[
    "today",
    "now",
    "currently",
    "temporary",
    "temporarily",
    "this session",
    "right now",
];

/// How much a text says: letters and digits, a CJK character counting three (a Chinese fact
/// of four characters — "住在北京" — says as much as a short sentence); punctuation and spaces
/// count nothing. One measure for both roads (the planner's check and the agent's filter).
#[must_use]
pub fn fact_width(text: &str) -> usize {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .map(|c| {
            if mnemo_store::tokenize::is_cjk(c) {
                3
            } else {
                1
            }
        })
        .sum()
}

/// Whether an entry's summary is worth keeping: at least [`MIN_FACT_WIDTH`] (see
/// [`fact_width`]: "four spaces" and "住在上海浦东" are facts, "Likes tea" and "喜欢茶" are
/// not), not a question, not about the moment.
#[must_use]
pub fn keep_entry(summary: &str) -> bool {
    let s = summary.trim();
    let width = fact_width(s);
    if width < MIN_FACT_WIDTH || s.ends_with('?') || s.ends_with('？') {
        return false;
    }
    let lower = s.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    !MOMENT_WORDS.iter().any(|m| {
        let parts: Vec<&str> = m.split(' ').collect();
        words.windows(parts.len()).any(|w| w == parts.as_slice())
    })
}

/// Filter the entries a run added to a body: weak ones and repeats of the same `type:summary`
/// go (`seen` carries keys across files). Entries that were already in the file (`existing`,
/// case-folded summaries) are always kept — extraction never removes what it did not write.
/// Returns the new body, or `None` when nothing changed.
pub fn filter_body(
    body: &str,
    memory_type: Option<MemoryType>,
    existing: &HashSet<String>,
    seen: &mut HashSet<String>,
) -> Option<String> {
    let entries = format::entries(body);
    let mut kept = Vec::new();
    for e in &entries {
        let summary = e.summary.trim().to_lowercase();
        let key = format!("{}:{summary}", memory_type.map_or("", MemoryType::as_str));
        if existing.contains(&summary) {
            seen.insert(key);
            kept.push(e.text.clone());
        } else if keep_entry(&e.summary) && seen.insert(key) {
            kept.push(e.text.clone());
        }
    }
    if kept.len() == entries.len() {
        return None;
    }
    Some(kept.join("\n\n"))
}

impl ExtractResult {
    /// A run that failed before it could cover any message.
    #[must_use]
    pub fn failed(detail: impl Into<String>) -> Self {
        Self {
            status: ExtractStatus::Failed,
            files_written: Vec::new(),
            touched_types: Vec::new(),
            detail: Some(detail.into()),
            upto: 0,
            road: None,
            dropped: Vec::new(),
        }
    }
}

/// How an extraction run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ExtractStatus {
    /// It ran to the end.
    Completed,
    /// Nothing to do (nothing new, or the chat model already wrote memory).
    Skipped,
    /// It failed or was stopped.
    Failed,
}

impl ExtractStatus {
    /// The snake_case name (meta.json, telemetry).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Skipped => "skipped",
            Self::Failed => "failed",
        }
    }
}

/// The outcome of an extraction run.
#[derive(Debug, Clone, Serialize, Type)]
pub struct ExtractResult {
    /// `completed`, `skipped` or `failed`.
    pub status: ExtractStatus,
    /// Memory files written (relative paths).
    pub files_written: Vec<String>,
    /// Types of the memories written.
    pub touched_types: Vec<MemoryType>,
    /// Why it failed or was skipped.
    pub detail: Option<String>,
    /// How many messages of the session's transcript this run covered (0 when it failed before
    /// reading them): clients attach the result to the reply at that position.
    pub upto: u32,
    /// Which way wrote (`None`: nothing ran).
    pub road: Option<Road>,
    /// Facts the planner proposed but did not write, each with why.
    pub dropped: Vec<Dropped>,
}

fn system_prompt(manifest: &str) -> String {
    format!(
        "You maintain a user's long-term memory as markdown files in a memory folder, using only your tools.\n\
         Save what will matter in future conversations: who the user is (type user), how they want you to work — \
         corrections and confirmed approaches (feedback), goals, decisions and deadlines not derivable from code (project), \
         pointers to external systems (reference). Do not save code conventions, git history, debugging recipes, \
         temporary task state, questions, or anything about the current moment.\n\
         Each topic file has frontmatter:\n---\nname: <short title>\ndescription: <one specific line>\ntype: <user|feedback|project|reference>\n---\n\
         followed by entries separated by blank lines: a summary line, then optional `Why:` and `How to apply:` lines.\n\
         Update an existing file rather than duplicating it. If nothing is worth saving, write nothing. \
         Finish with one short sentence saying what you saved.\n\nExisting memories:\n{}",
        if manifest.trim().is_empty() {
            "(none yet)"
        } else {
            manifest
        }
    )
}

fn transcript_text(slice: &[Message]) -> String {
    slice
        .iter()
        .filter(|m| matches!(m.role, Role::User | Role::Assistant))
        .filter_map(|m| {
            m.content.as_deref().map(|c| {
                format!(
                    "{}: {c}",
                    if m.role == Role::User {
                        "User"
                    } else {
                        "Assistant"
                    }
                )
            })
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// One extraction run's inputs.
#[derive(Debug, Clone, Copy)]
pub struct ExtractRequest<'a> {
    /// Workspace id.
    pub workspace: &'a str,
    /// The session whose transcript is read.
    pub session_id: &'a str,
    /// Its messages, oldest first.
    pub messages: &'a [Message],
    /// The main chat agent already wrote a memory file this turn: the run is skipped.
    pub chat_wrote_memory: bool,
    /// How writes are journaled (source `extract`, in the run's change group).
    pub origin: Origin,
    /// A past conversation brought in by an import: every message is read, and the
    /// workspace's extraction cursor and last-extraction fields are left alone.
    pub imported: bool,
}

/// Run one extraction for a session's transcript. Every agent event (each tool
/// call) is passed to `on_event`, for the task's progress.
pub async fn run_extract(
    vault: &Vault,
    client: &Client,
    req: &ExtractRequest<'_>,
    cancel: &CancellationToken,
    mut on_event: impl FnMut(&crate::AgentEvent),
) -> Result<ExtractResult> {
    let ExtractRequest {
        workspace,
        session_id,
        messages,
        chat_wrote_memory,
        origin,
        imported,
    } = *req;
    let started = Instant::now();
    let ws = vault.workspace(workspace)?;
    let cursor = vault.cursor(&ws)?.value;
    let (offset, slice) = if imported {
        (0, messages)
    } else {
        unprocessed(messages, session_id, &cursor)
    };
    let upto = u32::try_from(offset + slice.len()).unwrap_or(u32::MAX);
    let skip = |why: &str| ExtractResult {
        status: ExtractStatus::Skipped,
        files_written: Vec::new(),
        touched_types: Vec::new(),
        detail: Some(why.into()),
        upto,
        road: None,
        dropped: Vec::new(),
    };
    if chat_wrote_memory && !imported {
        // That turn is handled: move past it so it is not extracted again later.
        vault.save_cursor(&ws, &Cursor::at(session_id, u64::from(upto)))?;
        return Ok(skip("the chat agent already wrote memory this turn"));
    }
    if transcript_text(slice).trim().is_empty() {
        return Ok(skip("nothing new in the transcript"));
    }
    let choice = planner::choice::decide(&vault.home().root, client, cancel).await;
    let mut tools = MemoryTools::new(vault, ws.clone(), origin);
    let said = planner::said_of(slice);
    let mut planned: Option<planner::Applied> = None;
    let mut road = choice.road;
    let (status, mut detail) = if choice.road == Road::Planner {
        match planner::run(
            vault,
            client,
            &mut tools,
            &ws.id,
            &said,
            false,
            LIMITS.wall_time,
            cancel,
        )
        .await
        {
            Ok(a) => {
                planned = Some(a);
                (ExtractStatus::Completed, None)
            }
            Err(e) => (
                ExtractStatus::Failed,
                Some(format!("the model failed: {e}")),
            ),
        }
    } else {
        // `auto` still learning: the agent gets half the run's time, the planner the rest.
        let limits = if choice.then_planner {
            AgentLimits {
                wall_time: LIMITS.wall_time / 2,
                ..LIMITS
            }
        } else {
            LIMITS
        };
        let (mut status, mut detail, cancelled) = run_agent_path(
            vault,
            client,
            &ws,
            &mut tools,
            imported,
            slice,
            limits,
            cancel,
            &mut on_event,
        )
        .await?;
        // What is left of the run's wall time (the planner gets no more than that).
        let left = LIMITS.wall_time.saturating_sub(started.elapsed());
        if choice.then_planner && !cancelled && tools.touched.is_empty() && left.as_secs() >= 10 {
            // `auto`: the agent wrote nothing; the planner reads the same messages.
            match planner::run(
                vault, client, &mut tools, &ws.id, &said, false, left, cancel,
            )
            .await
            {
                Ok(a) => {
                    if a.written > 0 {
                        planner::choice::learn(
                            &vault.home().root,
                            client,
                            Road::Planner,
                            &format!(
                                "the tool agent wrote nothing where the planner found {} fact(s)",
                                a.written
                            ),
                        );
                        road = Road::Planner;
                    }
                    status = ExtractStatus::Completed;
                    detail = None;
                    planned = Some(a);
                }
                Err(e) => tracing::info!("extract: the planner after the agent failed too: {e}"),
            }
        } else if !tools.touched.is_empty() {
            planner::choice::learn(
                &vault.home().root,
                client,
                Road::Tools,
                "the tool agent wrote memories",
            );
        }
        (status, detail)
    };
    // Post-filter what this run wrote: weak entries and repeats go; what was there stays.
    let mut seen = HashSet::new();
    let mut written = Vec::new();
    let mut types = Vec::new();
    for path in &tools.touched {
        let Ok(detail) = vault.get_as(origin, &ws.id, path) else {
            continue;
        };
        if detail.summary.kind != doc::DocKind::Topic {
            continue;
        }
        let original = tools.originals.get(path).cloned().flatten();
        let existing: HashSet<String> = original
            .as_deref()
            .map(|t| {
                TopicFile::parse(t)
                    .entries()
                    .iter()
                    .map(|e| e.summary.trim().to_lowercase())
                    .collect()
            })
            .unwrap_or_default();
        if let Some(body) = filter_body(
            &detail.body,
            detail.summary.memory_type,
            &existing,
            &mut seen,
        ) {
            if body.trim().is_empty() && original.is_none() {
                vault.mutate(&ws, path, origin, None, |_, _| Ok(None))?;
                continue;
            }
            vault.mutate(&ws, path, origin, None, |cur, _| {
                let text = cur
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .unwrap_or_default();
                let mut file = TopicFile::parse(&text);
                file.set_body(&body);
                Ok(Some(file.render().into_bytes()))
            })?;
        }
        written.push(path.clone());
        if let Some(t) = detail.summary.memory_type.filter(|t| !types.contains(t)) {
            types.push(t);
        }
    }
    let dropped = planned
        .as_ref()
        .map(|a| a.dropped.clone())
        .unwrap_or_default();
    if written.is_empty() {
        // Said plainly: a run that saved nothing is not dressed up as work done.
        detail = Some(match (detail, &planned) {
            (Some(why), _) => format!("nothing written: {why}"),
            (None, Some(a)) if a.proposed > 0 => format!(
                "nothing written: the model proposed {} fact(s) and none held up ({})",
                a.proposed,
                a.dropped.first().map_or("", |d| d.reason.as_str())
            ),
            (None, _) => "nothing written: the model found nothing worth saving".to_owned(),
        });
    }
    let now = Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true);
    if !imported {
        if status == ExtractStatus::Completed {
            vault.save_cursor(&ws, &Cursor::at(session_id, u64::from(upto)))?;
        }
        let mut meta = vault.meta(&ws)?.value;
        meta.last_extract_at = Some(now);
        meta.last_extract_session_id = Some(session_id.to_owned());
        meta.last_extract_status = Some(status.as_str().to_owned());
        vault.save_meta(&ws, &meta)?;
    }
    crate::telemetry::Event::Extract(crate::telemetry::Extract {
        trigger: if imported { "import" } else { "auto" },
        status: status.as_str(),
        entries_written: written.len(),
        road: road.as_str(),
        dropped: dropped.len(),
        touched_types: types.clone(),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
    .record(vault, &ws.id)?;
    Ok(ExtractResult {
        status,
        files_written: written,
        touched_types: types,
        detail,
        upto,
        road: Some(road),
        dropped,
    })
}

/// The tool agent's run over the slice: (status, why not completed, cancelled).
#[allow(clippy::too_many_arguments)]
async fn run_agent_path(
    vault: &Vault,
    client: &Client,
    ws: &mnemo_store::Workspace,
    tools: &mut MemoryTools<'_>,
    imported: bool,
    slice: &[Message],
    limits: AgentLimits,
    cancel: &CancellationToken,
    on_event: &mut impl FnMut(&crate::AgentEvent),
) -> Result<(ExtractStatus, Option<String>, bool)> {
    let docs = vault.list_indexed(Some(&ws.id), None)?;
    let manifest = crate::recall::agent_manifest(client, &docs, cancel).await;
    let task = format!(
        "{}:\n\n{}",
        if imported {
            "A past conversation of the user's, imported from another assistant"
        } else {
            "New conversation since the last extraction"
        },
        transcript_text(slice)
    );
    let machine = AgentMachine::new(limits, system_prompt(&manifest), task);
    let outcome = crate::run_agent(client, tools, machine, cancel, |e| {
        // Names only: tool arguments may hold text the secret scan refused.
        match e {
            crate::AgentEvent::ToolCall { name, .. } => tracing::debug!("extract: tool {name}"),
            other => tracing::debug!("extract: {other:?}"),
        }
        on_event(e);
    })
    .await;
    let (status, detail) = match &outcome {
        // Hitting the turn limit means the slice may not be fully processed: not a success.
        AgentOutcome::Completed { .. } => (ExtractStatus::Completed, None),
        other => (ExtractStatus::Failed, Some(outcome_text(other, limits))),
    };
    Ok((status, detail, matches!(outcome, AgentOutcome::Cancelled)))
}

/// How a run that did not complete ended, in words.
fn outcome_text(o: &AgentOutcome, limits: AgentLimits) -> String {
    match o {
        AgentOutcome::Completed { .. } => "completed".to_owned(),
        AgentOutcome::MaxTurns(n) => format!("the agent used all {n} turns without finishing"),
        AgentOutcome::TimedOut => format!(
            "the agent did not finish within {} s",
            limits.wall_time.as_secs()
        ),
        AgentOutcome::Cancelled => "cancelled".to_owned(),
        AgentOutcome::Failed(e) => format!("the model failed: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_run_per_workspace_and_requests_coalesce() {
        let mut q = ExtractQueue::default();
        assert_eq!(q.request("w", 1), Admission::Start);
        assert_eq!(
            q.request("other", 9),
            Admission::Start,
            "workspaces are independent"
        );
        assert_eq!(q.request("w", 2), Admission::Queued { replaced: false });
        assert_eq!(q.request("w", 3), Admission::Queued { replaced: true });
        assert_eq!(
            q.finished("w"),
            Some(3),
            "the newest waiting request runs next"
        );
        assert!(q.is_running("w"));
        assert_eq!(q.finished("w"), None);
        assert!(!q.is_running("w"));
        assert_eq!(q.request("w", 4), Admission::Start);
    }

    #[test]
    fn merged_requests_keep_what_the_merge_keeps() {
        let mut q: ExtractQueue<Vec<&str>> = ExtractQueue::default();
        let merge = |mut a: Vec<&'static str>, b: Vec<&'static str>| {
            for x in b {
                if !a.contains(&x) {
                    a.push(x);
                }
            }
            a
        };
        assert_eq!(q.request_merge("w", vec!["s1"], merge), Admission::Start);
        assert_eq!(
            q.request_merge("w", vec!["s2"], merge),
            Admission::Queued { replaced: false }
        );
        assert_eq!(
            q.request_merge("w", vec!["s3"], merge),
            Admission::Queued { replaced: true }
        );
        assert_eq!(
            q.request_merge("w", vec!["s2"], merge),
            Admission::Queued { replaced: true }
        );
        assert_eq!(q.finished("w"), Some(vec!["s2", "s3"]));
        assert_eq!(q.finished("w"), None);
    }

    #[test]
    fn the_cursor_selects_the_unprocessed_slice() {
        let msgs: Vec<Message> = (0..5).map(|i| Message::user(format!("m{i}"))).collect();
        let c = Cursor {
            session_id: "s1".into(),
            processed_offset: 3,
            updated_at: String::new(),
        };
        let (off, slice) = unprocessed(&msgs, "s1", &c);
        assert_eq!((off, slice.len()), (3, 2));
        let (off, slice) = unprocessed(&msgs, "s2", &c);
        assert_eq!((off, slice.len()), (0, 5), "a new session starts at 0");
        let beyond = Cursor {
            processed_offset: 99,
            ..c
        };
        assert_eq!(unprocessed(&msgs, "s1", &beyond).1.len(), 0);
    }

    #[test]
    fn weak_entries_are_dropped() {
        assert!(keep_entry("Prefers terse answers without recaps."));
        assert!(!keep_entry("Likes tea"), "says less than ten letters");
        assert!(keep_entry("Four spaces"), "ten letters are a fact");
        assert!(keep_entry("住在上海浦东"), "six CJK characters say enough");
        assert!(!keep_entry("喜欢茶"));
        assert!(!keep_entry("Should we deploy on Friday?"));
        assert!(!keep_entry("Is currently debugging the login flow"));
        assert!(!keep_entry("Working on a temporary branch for the demo"));
        assert!(!keep_entry("In this session we renamed the module"));
        assert!(!keep_entry("Right now the build is red on main"));
        assert!(
            keep_entry("Knows Kubernetes well; nowhere near a beginner"),
            "`now` inside another word is fine"
        );
    }

    #[test]
    fn entries_that_were_already_there_are_never_filtered() {
        let existing: HashSet<String> = ["## tools".to_owned(), "uses vim".to_owned()]
            .into_iter()
            .collect();
        let body = "## Tools\n\nUses vim\n\nIs currently on holiday\n";
        let out =
            filter_body(body, Some(MemoryType::User), &existing, &mut HashSet::new()).unwrap();
        assert_eq!(out, "## Tools\n\nUses vim");
    }

    #[test]
    fn filter_body_drops_weak_and_repeated_entries() {
        let mut seen = HashSet::new();
        let body = "Prefers terse answers without recaps.\nWhy: reads diffs.\n\nShort\n\nprefers terse answers without recaps.\n\nUses Neovim with LSP for all editing.\n";
        let none = HashSet::new();
        let out = filter_body(body, Some(MemoryType::Feedback), &none, &mut seen).unwrap();
        assert_eq!(
            out,
            "Prefers terse answers without recaps.\nWhy: reads diffs.\n\nUses Neovim with LSP for all editing."
        );
        // Across files: the same type:summary is a repeat.
        let again = filter_body(
            "Uses Neovim with LSP for all editing.\n",
            Some(MemoryType::Feedback),
            &none,
            &mut seen,
        )
        .unwrap();
        assert_eq!(again, "");
        // Another type keeps it.
        assert_eq!(
            filter_body(
                "Uses Neovim with LSP for all editing.\n",
                Some(MemoryType::User),
                &none,
                &mut seen
            ),
            None
        );
    }
}
