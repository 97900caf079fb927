//! `mnemo remember`, `mnemo forget`, `mnemo stats`: memory on request, through the API.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::time::Duration;

use mnemo_api::Api;
use mnemo_api::reexports::ForgetPick;
use mnemo_core::{Error, ErrorCode, Result, TaskStatus};

use crate::out::{emit, term, term_list, term_text};

/// Longest `--wait` waits (the remember lane's own limit is 300 s per task).
const REMEMBER_WAIT: Duration = Duration::from_secs(330);

pub fn remember(
    api: &Api,
    workspace: &str,
    text: &str,
    wait: bool,
    clean: bool,
    json: bool,
) -> Result<()> {
    let content = if text == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| Error::io("reading stdin", &e))?;
        String::from_utf8(b)
            .map_err(|_| Error::new(ErrorCode::InvalidContent, "stdin is not UTF-8 text"))?
    } else {
        text.to_owned()
    };
    let mode = clean.then(|| "clean".to_owned());
    let task = api.remember(Some(workspace.to_owned()), content, mode, None)?;
    // The lane runs in this process: without --wait it would end with it, so the CLI always
    // waits; `--wait` also prints the result.
    let done = api.wait_task(&task.task_id, REMEMBER_WAIT)?;
    let view = api.remember_task(task.task_id, None)?;
    if done.status == TaskStatus::Failed {
        let e = view
            .error
            .unwrap_or_else(|| Error::new(ErrorCode::RememberFailed, "the remember task failed"));
        return Err(e);
    }
    emit(json, &view, |v| match &v.result {
        Some(r) if wait || !json => {
            // A planner's topic, an agent's summary: a model's words.
            println!("{} — task {}", term_text(&r.summary), term(&v.task_id));
            for f in &r.files_touched {
                println!("  wrote {}", term(f));
            }
            if let Some(g) = r.group {
                println!("undo it with `mnemo undo --group {g}`");
            }
        }
        _ => println!("task {}: {}", term(&v.task_id), v.status.as_str()),
    })
}

fn confirm(n: usize) -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        return Err(Error::usage(
            "forget asks before it removes anything: pass --yes (or --dry-run to only look)",
        ));
    }
    print!("Forget these {n} entries? [y/N] ");
    std::io::stdout()
        .flush()
        .map_err(|e| Error::io("writing", &e))?;
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Error::io("reading the answer", &e))?;
    Ok(matches!(line.trim(), "y" | "Y" | "yes"))
}

pub fn forget(
    api: &Api,
    workspace: &str,
    query: &str,
    dry_run: bool,
    yes: bool,
    json: bool,
) -> Result<()> {
    let preview = api.forget_preview(workspace.to_owned(), query.to_owned())?;
    if dry_run || preview.selected.is_empty() {
        return emit(json, &preview, |p| {
            if p.selected.is_empty() {
                if p.strategy == "model" && p.candidates > 0 {
                    println!(
                        "the model chose none of the {} entries found in {} for \"{}\": nothing to forget",
                        p.candidates,
                        term(&p.workspace),
                        term(&p.query)
                    );
                } else {
                    println!(
                        "no memory in {} has \"{}\" in its name, description or entries: nothing to forget",
                        term(&p.workspace),
                        term(&p.query)
                    );
                }
                return;
            }
            println!(
                "would forget {} entries ({}):",
                p.selected.len(),
                p.strategy
            );
            for e in &p.selected {
                println!("  {}  {}", term(&e.id), term(&e.summary));
            }
        });
    }
    if !json {
        println!(
            "will forget {} entries ({}):",
            preview.selected.len(),
            preview.strategy
        );
        for e in &preview.selected {
            println!("  {}  {}", term(&e.id), term(&e.summary));
        }
    }
    if !yes && !confirm(preview.selected.len())? {
        println!("nothing forgotten");
        return Ok(());
    }
    let picks = preview
        .selected
        .iter()
        .map(|e| ForgetPick {
            id: e.id.clone(),
            hash: e.hash.clone(),
        })
        .collect();
    let task = api.forget(workspace.to_owned(), picks)?;
    emit(json, &task, |t| {
        if let Some(r) = &t.result {
            println!("{} ({} files)", term_text(&r.summary), r.files.len());
            if let Some(g) = r.group {
                println!("undo it with `mnemo undo --group {g}`");
            }
        }
    })
}

pub fn stats(api: &Api, workspace: &str, json: bool) -> Result<()> {
    let s = api.stats(workspace.to_owned())?;
    emit(json, &s, |s| {
        let on = |b: bool| if b { "on" } else { "off" };
        println!("workspace {}", term(&s.workspace));
        println!(
            "  auto-extraction {}",
            mnemo_api::extraction_state(s.auto_extract, s.extraction.is_some(), s.chat_records)
        );
        println!("  auto-dream {}", on(s.auto_dream));
        println!(
            "  last extraction {} ({}), last dream {} ({})",
            mnemo_api::local_time(s.last_extract_at.as_deref()),
            term(s.last_extract_status.as_deref().unwrap_or("—")),
            mnemo_api::local_time(s.last_dream_at.as_deref()),
            term(s.last_dream_status.as_deref().unwrap_or("—"))
        );
        println!(
            "  {} topic files, {} daily logs, {} conversation records (keeping them: {})",
            s.topics,
            s.logs,
            s.chats,
            on(s.chat_records)
        );
        // Without a model the auto-extraction line above says so.
        if let Some(c) = &s.extraction {
            println!(
                "  extraction writes with the {} ({})",
                if c.road.as_str() == "planner" {
                    "planner"
                } else {
                    "tool agent"
                },
                term(&c.why)
            );
        }
        println!(
            "  MEMORY.md: {}/{} lines, {}/{} bytes",
            s.memory_md_lines, s.memory_md_max_lines, s.memory_md_bytes, s.memory_md_max_bytes
        );
        println!(
            "  health: {} invalid, {} stale, {} likely duplicate entries",
            s.invalid.len(),
            s.stale.len(),
            s.duplicates
        );
        for p in s.invalid.iter().map(|p| term(p)) {
            println!("    invalid  {p}  (fix: mnemo show {p})");
        }
        for p in &s.stale {
            // padded: a column, "stale" lined up with "invalid" above
            println!("    stale    {}", term(p));
        }
        if s.duplicates > 0 {
            println!(
                "    duplicates in {} (merge: mnemo dream --mechanical)",
                term_list(&s.duplicate_files)
            );
        }
        let count = |k: &str| s.telemetry.iter().filter(|e| e.kind == k).count();
        println!(
            "  recent telemetry: {} recalls, {} extractions, {} dreams",
            count("recall"),
            count("extract"),
            count("dream")
        );
    })
}

/// `mnemo embed`: compute the missing vectors now, with progress on stderr.
pub fn embed(api: &Api, workspace: Option<&str>, json: bool) -> Result<()> {
    let updates = api.subscribe_tasks();
    let started = api.embed(workspace.map(str::to_owned))?;
    let mut last_phase = String::new();
    let mut task = started;
    while !task.status.is_finished() {
        task = match updates.recv_timeout(Duration::from_millis(200)) {
            Ok(t) if t.id == task.id => t,
            Ok(_) => continue,
            Err(_) => api.task(task.id.clone())?,
        };
        if let Some(p) = task.phase.as_deref()
            && p != last_phase
            && !json
        {
            eprint!("\r{}   ", term(p));
            last_phase = p.to_owned();
        }
    }
    if !json && !last_phase.is_empty() {
        eprintln!();
    }
    match task.status {
        TaskStatus::Failed => Err(Error::new(
            ErrorCode::EmbeddingUnavailable,
            task.error.unwrap_or_else(|| "embedding failed".into()),
        )),
        _ => emit(json, &task, |t| {
            println!(
                "{}",
                term(
                    t.result
                        .as_ref()
                        .map_or("nothing to embed", |r| r.summary.as_str())
                )
            );
        }),
    }
}
