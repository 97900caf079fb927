//! `mnemo dream [--mechanical] [--dry-run]`: a manual dream through the API, waited for here
//! (it runs in this process), then its report: what changed, what was merged where, and the
//! command that undoes it all.

use std::time::Duration;

use mnemo_api::Api;
use mnemo_api::reexports::{DreamPlan, TaskInfo};
use mnemo_core::{Error, ErrorCode, Result, TaskReason, TaskStatus};

use crate::out::{emit, term, term_list, term_text};

/// Longest a dream is waited for (the agent's own limit is 5 minutes).
pub const DREAM_WAIT: Duration = Duration::from_secs(600);

fn print_plan(p: &DreamPlan) {
    if p.changes.is_empty() {
        println!("nothing to consolidate in {}", term(&p.workspace));
        return;
    }
    println!(
        "a mechanical dream of {} would merge {} duplicate entr{} and change {} file(s) (nothing written):",
        term(&p.workspace),
        p.entries_merged,
        if p.entries_merged == 1 { "y" } else { "ies" },
        p.changes.len()
    );
    for c in &p.changes {
        if c.delete {
            println!(
                "  delete {} ({} entries, all kept elsewhere)",
                term(&c.path),
                c.entries_before
            );
        } else {
            println!(
                "  write  {} ({} → {} entries)",
                term(&c.path),
                c.entries_before,
                c.entries_after
            );
        }
    }
    for m in &p.merges {
        println!(
            "  merge  \"{}\" into {} (from {})",
            term(&m.summary),
            term(&m.into),
            term_list(&m.from)
        );
    }
}

fn print_report(t: &TaskInfo) {
    let Some(r) = &t.result else {
        println!("dream {}: {}", term(&t.id), t.status.as_str());
        return;
    };
    // The agent's own last words are a model's text: gated like every reply.
    println!("{} — task {}", term_text(&r.summary), term(&t.id));
    // Review mode: the dream's changes are a proposal, nothing was written — say what it
    // proposes, never "wrote".
    let (wrote, deleted, merged, w) = if r.proposal.is_some() {
        ("would write", "would delete", "would merge", 12)
    } else {
        ("wrote", "deleted", "merged", 7)
    };
    if let Some(d) = &r.dream {
        for p in &d.files_touched {
            println!("  {wrote:<w$} {}", term(p));
        }
        for p in &d.files_deleted {
            println!("  {deleted:<w$} {}", term(p));
        }
        for m in &d.merges {
            println!(
                "  {merged:<w$} \"{}\" into {} (from {})",
                term(&m.summary),
                term(&m.into),
                term_list(&m.from)
            );
        }
        for n in &d.notes {
            // Mnemo's sentence, naming files: one line, a newline in a name shown escaped.
            println!("  note: {}", term(n));
        }
    }
    if let Some(p) = r.proposal {
        println!("accept or reject it with `mnemo inbox accept {p}` / `mnemo inbox reject {p}`");
    } else if let Some(g) = r.group {
        println!("undo it all with `mnemo undo --group {g}`");
    }
}

pub fn dream(
    api: &Api,
    workspace: &str,
    mechanical: bool,
    dry_run: bool,
    json: bool,
) -> Result<()> {
    if dry_run {
        let plan = api.dream_plan(workspace.to_owned())?;
        return emit(json, &plan, print_plan);
    }
    let started = api.dream(workspace.to_owned(), Some(mechanical))?;
    if !json {
        eprintln!("dreaming {} (task {})…", term(workspace), term(&started.id));
    }
    let t = api.wait_task(&started.id, DREAM_WAIT)?;
    match (t.status, t.reason) {
        (TaskStatus::Completed, _) => emit(json, &t, print_report),
        // Another process took the lock between the check and the start.
        (TaskStatus::Skipped, Some(TaskReason::Locked)) => Err(Error::new(
            ErrorCode::Locked,
            t.error
                .unwrap_or_else(|| "the workspace is being consolidated by another process".into()),
        )),
        (TaskStatus::Queued | TaskStatus::Running, _) => Err(Error::new(
            ErrorCode::Io,
            format!(
                "the dream did not finish within {} minutes; see `mnemo task {}`",
                DREAM_WAIT.as_secs() / 60,
                t.id
            ),
        )),
        _ => Err(Error::new(
            ErrorCode::Io,
            format!(
                "the dream {}: {} (see `mnemo task {}`)",
                t.status.as_str(),
                t.error
                    .clone()
                    .unwrap_or_else(|| t.reason.map(|r| r.to_string()).unwrap_or_default()),
                t.id
            ),
        )),
    }
}
