//! The agent path of a dream: the memory agent, at most 8 turns and 5 minutes, with
//! the dream tools (transcripts read-only, deletes only of files whose entries live on), then the
//! safety pass over what it left: a file with invalid frontmatter is restored; a deleted file is
//! restored unless each of its entries survives in another valid file.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

use mnemo_core::Result;
use mnemo_llm::Client;
use mnemo_store::format::TopicFile;
use mnemo_store::{doc, fsutil};

use super::{Progress, Scope, Snapshot, entries_elsewhere};
use crate::agent::{AgentLimits, AgentMachine, AgentOutcome};
use crate::tools::MemoryTools;

/// Limits of the dream agent.
pub const LIMITS: AgentLimits = AgentLimits {
    max_turns: 8,
    wall_time: Duration::from_secs(300),
    step_tokens: 1_024,
    total_tokens: 150_000,
};

/// How the agent's part went.
#[derive(Debug)]
pub(super) struct AgentRun {
    /// Completed (not cancelled, failed, timed out or out of turns).
    pub completed: bool,
    /// Cancelled by the caller.
    pub cancelled: bool,
    /// For the report: the agent's own summary or why it stopped, and every repair.
    pub notes: Vec<String>,
    /// Paths it wrote or deleted (before repairs).
    pub changed: HashSet<String>,
}

fn system_prompt() -> &'static str {
    "You consolidate a user's long-term memory: markdown topic files in a memory folder, each with \
     frontmatter (name, description, type: user | feedback | project | reference) and entries separated \
     by blank lines (a summary line, then optional `Why:` and `How to apply:` lines). Work in four phases:\n\
     1. Orient: the index and manifest below show what exists; read only the files you need.\n\
     2. Gather: look for new signal with narrow searches — grep_search over logs/ (daily logs) and \
     grep_transcripts over recent chats. Never read whole transcripts.\n\
     3. Consolidate: merge duplicate facts into one file; when two facts contradict, rewrite the older entry \
     into the newer fact in place (edit) — Mnemo keeps the old one marked `Superseded:`, so never delete a \
     contradicted fact yourself, and leave entries already marked `Superseded:` as they are; \
     turn relative dates (\"yesterday\", \"next week\") into absolute dates; move a fact filed under the \
     wrong type into a file of the right type.\n\
     4. Prune: delete a file only after every one of its entries lives in another file (delete_file refuses \
     otherwise). MEMORY.md is rebuilt for you: never write it.\n\
     Rules: write only memory files; keep frontmatter valid; files marked pinned are not yours to change; \
     if a write is refused because a file changed, read it again. Be brief: you have at most 8 turns. \
     Finish with one or two sentences saying what you changed and why."
}

fn task_text(memory_md: &str, manifest: &str, usage: &str, logs: &[String], today: &str) -> String {
    format!(
        "Today is {today}.\n\nMEMORY.md (the index):\n{}\n\nManifest (type, path, modified, description):\n{}\n\nUsage (how often recall used each memory; never-recalled ones are candidates to merge or prune):\n{usage}\n\nRecent daily logs:\n{}",
        if memory_md.trim().is_empty() {
            "(empty)"
        } else {
            memory_md
        },
        if manifest.trim().is_empty() {
            "(no memories)"
        } else {
            manifest
        },
        if logs.is_empty() {
            "(none)".to_owned()
        } else {
            logs.join("\n")
        },
    )
}

/// Put a file back as it was in the snapshot (deleting it if it did not exist) — only if it is
/// still as the agent left it (`left`: its hash then, `None` for deleted): an edit made by
/// someone else since is never overwritten.
fn restore(scope: Scope<'_>, path: &str, snap: &Snapshot, left: Option<&str>) -> Result<()> {
    let before = snap.get(path).cloned();
    scope
        .vault
        .mutate(scope.ws, path, scope.origin, None, |cur, rel| {
            if cur.map(fsutil::hash).as_deref() != left {
                return Err(mnemo_core::Error::new(
                    mnemo_core::ErrorCode::Conflict,
                    format!("{rel} changed on disk after the agent's change; left as it is"),
                ));
            }
            Ok(before)
        })
        .map(|_| ())
}

pub(super) async fn run(
    scope: Scope<'_>,
    client: &Client,
    snap: &Snapshot,
    transcripts: Vec<PathBuf>,
    on_progress: &mut (dyn FnMut(Progress<'_>) + Send),
) -> Result<AgentRun> {
    let Scope {
        vault,
        ws,
        origin,
        cancel,
    } = scope;
    on_progress(Progress::Phase(
        "orient: reading MEMORY.md and the manifest",
    ));
    let docs = vault.list_indexed(Some(&ws.id), None)?;
    let manifest = crate::recall::agent_manifest(client, &docs, cancel).await;
    // Cut at load like every MEMORY.md (200 lines / 25,000 bytes, with the warning).
    let memory_md = mnemo_store::vault::memory_index_for_prompt(ws).text;
    let mut logs: Vec<String> = snap
        .keys()
        .filter(|p| doc::is_daily_log(p))
        .cloned()
        .collect();
    logs.sort_by(|a, b| b.cmp(a));
    logs.truncate(14);
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let machine = AgentMachine::new(
        LIMITS,
        system_prompt(),
        task_text(
            &memory_md,
            &manifest,
            &super::usage_text(vault, ws, 20),
            &logs,
            &today,
        ),
    );
    let hashes: HashMap<String, String> = snap
        .iter()
        .map(|(p, b)| (p.clone(), fsutil::hash(b)))
        .collect();
    let mut tools = MemoryTools::new(vault, ws.clone(), origin).for_dream(transcripts, hashes);
    on_progress(Progress::Phase(
        "gather and consolidate: the memory agent is working",
    ));
    let outcome = crate::run_agent(client, &mut tools, machine, cancel, |e| {
        on_progress(Progress::Agent(e));
    })
    .await;
    let mut notes = Vec::new();
    let (completed, cancelled) = match &outcome {
        AgentOutcome::Completed { summary, .. } => {
            if !summary.trim().is_empty() {
                notes.push(format!("agent: {}", summary.trim()));
            }
            (true, false)
        }
        AgentOutcome::Cancelled => (false, true),
        AgentOutcome::MaxTurns(n) => {
            notes.push(format!("the agent used all {n} turns without finishing"));
            (false, false)
        }
        AgentOutcome::TimedOut => {
            notes.push(format!(
                "the agent ran out of time ({} s)",
                LIMITS.wall_time.as_secs()
            ));
            (false, false)
        }
        AgentOutcome::Failed(e) => {
            notes.push(format!("the agent failed: {e}"));
            (false, false)
        }
    };
    if tools.escaped {
        notes.push(
            "refused: the agent named a path outside the memory folder; nothing was written there"
                .to_owned(),
        );
    }
    on_progress(Progress::Phase(
        "prune and index: checking the agent's changes",
    ));
    let mut changed: HashSet<String> = tools.touched.iter().cloned().collect();
    changed.extend(tools.deleted.iter().cloned());
    // Invalid frontmatter is never left behind: the tools refuse such writes. Deleted files
    // whose entries do not all live on elsewhere now (an outside edit took the survivor away)
    // → restored; each file on its own, a failure noted and the rest still checked.
    for path in &tools.deleted {
        let Some(before) = snap.get(path) else {
            continue;
        };
        let pool = entries_elsewhere(vault, ws, origin, path);
        let lost = TopicFile::parse(&String::from_utf8_lossy(before))
            .entries()
            .into_iter()
            .find(|e| !pool.holds(e));
        if let Some(e) = lost {
            let summary: String = e.summary.chars().take(80).collect();
            match restore(scope, path, snap, None) {
                Ok(()) => notes.push(format!(
                    "restored {path}: it was deleted but its entry \"{summary}\" survives nowhere else"
                )),
                Err(err) => notes.push(format!("could not restore {path}: {}", err.message)),
            }
        }
    }
    Ok(AgentRun {
        completed,
        cancelled,
        notes,
        changed,
    })
}
