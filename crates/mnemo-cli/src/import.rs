//! `mnemo import SOURCE [--dry-run]`, `mnemo export [-o FILE]`, `mnemo copy PATH --to W [--move]`.
//! An import prints its preview, then runs as a task in this process with its progress on
//! stderr ("Conversation 3 / 20"), then what it wrote and how to undo it.

use std::path::{Path, PathBuf};

use mnemo_api::Api;
use mnemo_api::reexports::{FolderType, ImportOptions, ImportPreview, TaskInfo};
use mnemo_core::{Error, ErrorCode, MemoryType, Result, TaskReason, TaskStatus};

use crate::out::{emit, follow, term, term_list, term_text};

/// The options from the command line.
pub fn options(
    memory_type: Option<&str>,
    folder_types: &[String],
    budget: Option<u64>,
) -> Result<ImportOptions> {
    let memory_type = memory_type.map(str::parse::<MemoryType>).transpose()?;
    let folder_types = folder_types
        .iter()
        .map(|f| {
            let (dir, t) = f.split_once('=').ok_or_else(|| {
                Error::usage(format!(
                    "`{f}`: write a folder type as DIR=TYPE (journal=user)"
                ))
            })?;
            Ok(FolderType {
                folder: dir.trim().to_owned(),
                memory_type: t.trim().parse()?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(ImportOptions {
        memory_type,
        folder_types,
        budget_tokens: budget,
        ..ImportOptions::default()
    })
}

fn absolute(p: &Path) -> Result<String> {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| Error::io("reading the current folder", &e))?
            .join(p)
    };
    Ok(abs.to_string_lossy().into_owned())
}

fn print_preview(p: &ImportPreview) {
    // Names, titles and facts come from the source: shown with control characters escaped
    // (an ESC or a bidirectional override would otherwise act on the terminal).
    let show = term;
    println!(
        "{} — {} into {}",
        show(&p.source),
        p.format_label,
        show(&p.workspace)
    );
    if let Some(c) = &p.conversations {
        println!(
            "  {} conversations ({} already learnt from), {} messages to read",
            c.conversations, c.done_before, c.messages
        );
        println!(
            "  about {} model calls and {} tokens; budget {} tokens{}",
            c.model_calls,
            c.tokens,
            c.budget_tokens,
            if c.spent_tokens > 0 {
                format!(" ({} spent by earlier runs)", c.spent_tokens)
            } else {
                String::new()
            }
        );
        if !c.model_ready {
            println!(
                "  no model is set: set one (Settings → Model, or MNEMO_LLM_BASE_URL and MNEMO_LLM_MODEL) to learn from them"
            );
        }
    } else {
        println!(
            "  {}: {} in {}; {} already here, {} with a secret, {} left out",
            count(p.items, "item"),
            count(p.memories, "memory"),
            count(p.files, "new file"),
            p.duplicates,
            p.secrets,
            p.skipped
        );
        let types: Vec<String> = p
            .by_type
            .iter()
            .map(|t| format!("{} {}", t.count, t.memory_type))
            .collect();
        if !types.is_empty() {
            println!("  by type: {}", types.join(", "));
        }
        for c in &p.restore {
            let what = match (c.other_tool, c.exists) {
                (true, true) => "another tool's memory or an added folder",
                (true, false) => "another tool's memory or an added folder, made again",
                (false, true) => "Mnemo",
                (false, false) => "Mnemo, new here",
            };
            println!(
                "  [{}] {} ({what}): {}{}{}",
                if c.chosen { "x" } else { " " },
                show(&c.workspace),
                count(c.files, "file"),
                c.target
                    .as_deref()
                    .map(|t| format!(" → {}", show(t)))
                    .unwrap_or_default(),
                c.why_not
                    .as_deref()
                    .map(|w| format!(" — {}", show(w)))
                    .unwrap_or_default()
            );
        }
        for s in &p.samples {
            println!("  + {}  {}", show(&s.path), show(&s.text));
        }
    }
    for r in &p.reasons {
        println!("  - {}: {}", show(&r.item), show(&r.reason));
    }
}

/// `1 memory`, `3 memories`.
fn count(n: u32, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else if let Some(stem) = one.strip_suffix('y') {
        format!("{n} {stem}ies")
    } else {
        format!("{n} {one}s")
    }
}

pub fn import(
    api: &Api,
    source: &Path,
    workspace: Option<&str>,
    options: ImportOptions,
    dry_run: bool,
    json: bool,
) -> Result<()> {
    let source = absolute(source)?;
    let ws = workspace.map(str::to_owned);
    let preview = api.import_preview(source.clone(), ws.clone(), Some(options.clone()))?;
    if dry_run {
        return emit(json, &preview, print_preview);
    }
    if !json {
        print_preview(&preview);
    }
    // Subscribed before the start: every phase is seen, however fast they come.
    let updates = api.subscribe_tasks();
    let started = api.import_start(source, ws, Some(options), Some(preview.plan))?;
    let t = follow(api, &updates, &started.id, json)?;
    match t.status {
        TaskStatus::Completed => emit(json, &t, print_done),
        // The code says why it stopped (a budget stop once read `error[io]`).
        _ => Err(Error::new(
            match t.reason {
                Some(TaskReason::Budget) => ErrorCode::BudgetSpent,
                Some(TaskReason::Cancelled) => ErrorCode::Conflict,
                _ => ErrorCode::Io,
            },
            format!(
                "the import {}: {} (see `mnemo task {}`)",
                t.status.as_str(),
                t.error
                    .clone()
                    .unwrap_or_else(|| t.reason.map(|r| r.to_string()).unwrap_or_default()),
                t.id
            ),
        )),
    }
}

fn print_done(t: &TaskInfo) {
    let Some(r) = &t.result else {
        println!("import {}: {}", term(&t.id), t.status.as_str());
        return;
    };
    println!("{} — task {}", term_text(&r.summary), term(&t.id));
    for f in &r.files {
        println!("  wrote {}", term(f));
    }
    if let Some(g) = r.group {
        println!("undo it all with `mnemo undo --group {g}`");
    }
}

pub fn export(api: &Api, workspace: Option<&str>, out: Option<PathBuf>, json: bool) -> Result<()> {
    let out = out.unwrap_or_else(|| PathBuf::from(mnemo_api::default_export_name()));
    let r = api.export_memories(workspace.map(str::to_owned), absolute(&out)?)?;
    emit(json, &r, |r| {
        println!(
            "exported {} files ({} bytes) of {} to {}",
            r.files,
            r.bytes,
            term_list(&r.workspaces),
            term(&r.path)
        );
        if !r.left_out.is_empty() {
            println!("left out {} file(s):", r.left_out.len());
            for l in &r.left_out {
                println!("  {}", term(l));
            }
        }
    })
}

pub fn copy(api: &Api, from: &str, path: &str, to: &str, move_it: bool, json: bool) -> Result<()> {
    let c = api.copy_memory(
        from.to_owned(),
        path.to_owned(),
        to.to_owned(),
        Some(move_it),
    )?;
    emit(json, &c, |c| {
        let verb = if move_it { "moved" } else { "copied" };
        match c.group {
            Some(g) => println!(
                "{verb} {}/{} to {}/{} (undo: mnemo undo --group {g}{})",
                term(&c.from_workspace),
                term(&c.from_path),
                term(&c.workspace),
                term(&c.path),
                c.removed_group
                    .map_or_else(String::new, |r| format!(" and mnemo undo --group {r}"))
            ),
            None => println!(
                "{}/{} already holds the same memory{}",
                term(&c.workspace),
                term(&c.path),
                c.removed_group.map_or_else(String::new, |r| format!(
                    "; removed the original (undo: mnemo undo --group {r})"
                ))
            ),
        }
    })
}
