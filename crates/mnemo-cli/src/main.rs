//! `mnemo`: the command line over a Mnemo home — workspaces, memories, search, the index and
//! embeddings, history and undo (changes and change groups), memory tasks, remember, dream,
//! forget, curation (archive, replace), import and export, review mode and the inbox, stats,
//! recall, chat, sync, a live view of changes, `serve` and `mcp`. A client like the others: it
//! calls only `mnemo-api` (and `mnemo-server` for `serve`, `mnemo-mcp` for `mcp`). `--json`
//! makes every command machine-readable, errors included (`{"error":{"code","message"}}` on
//! stdout; exit 1, or 2 for usage errors).

mod chat;
mod cli;
mod dream;
mod import;
mod inbox;
mod memory_jobs;
mod model;
mod out;
mod sync;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use mnemo_api::reexports::{MemoryType, Status, TaskInfo, WorkspaceInfo};
use mnemo_api::{Api, NewMemory, Patch};
use mnemo_core::{ChangeSource, Error, ErrorCode, Result};

use cli::{Cli, Command, WorkspaceAction};
use out::{emit, print_error, print_hit, read_body, term, term_list, term_text};

/// Writes default to this workspace.
const PERSONAL: &str = "personal";

/// `mnemo … | head`, `mnemo … 2>&1 | true`: once the reader is gone, printing to stdout or
/// stderr fails with a broken pipe. That is the reader's choice, not an error: end at once and
/// quietly, as a shell tool killed by SIGPIPE would (exit 141), instead of a panic message.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        let printing =
            msg.contains("failed printing to stdout") || msg.contains("failed printing to stderr");
        if printing && msg.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_on_broken_pipe();
    let json = std::env::args_os().any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) || !json
            {
                let _ = e.print();
                return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
            }
            let msg = e.render().to_string();
            let first = msg
                .lines()
                .next()
                .unwrap_or("invalid arguments")
                .trim_start_matches("error: ");
            print_error(&Error::usage(first.to_owned()), true);
            return ExitCode::from(2);
        }
    };
    let mut filter = tracing_subscriber::EnvFilter::try_from_env("MNEMO_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    for d in mnemo_api::QUIET_LOG_TARGETS {
        if let Ok(d) = d.parse() {
            filter = filter.add_directive(d);
        }
    }
    // Colours only for a terminal: piped or captured logs stay plain text.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match run(cli, json) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            print_error(&e, json);
            ExitCode::from(
                if matches!(e.code, ErrorCode::Usage | ErrorCode::SeveralWorkspaces) {
                    2
                } else {
                    1
                },
            )
        }
    }
}

fn run(cli: Cli, json: bool) -> Result<()> {
    let api = Api::open_at(cli.home)?.person_is(ChangeSource::Cli);
    let ws_read = cli.workspace.as_deref();
    let ws_write = cli.workspace.as_deref().unwrap_or(PERSONAL);
    match cli.command {
        Command::Workspaces { action } => {
            match action {
                Some(WorkspaceAction::AddFolder { path }) => {
                    api.add_folder(path.to_string_lossy().into_owned())?;
                }
                Some(WorkspaceAction::Bind { dir }) => {
                    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
                    let ws = api.bind_workspace(dir.to_string_lossy().into_owned())?;
                    if !json {
                        println!("bound workspace {}", term(&ws.workspace.id));
                    }
                }
                None => {}
            }
            api.index(None)?;
            emit(json, &api.workspaces()?, |list: &Vec<WorkspaceInfo>| {
                for w in list {
                    println!(
                        "{:<40} {:<7} {:>6} memories {:>4} invalid {:>4} logs  {}",
                        term(&w.workspace.id),
                        w.workspace.kind.as_str(),
                        w.counts.topics,
                        w.counts.invalid,
                        w.counts.logs,
                        term(&w.workspace.memory_root.display().to_string())
                    );
                }
            })
        }
        Command::List { memory_type } => {
            let t = memory_type
                .as_deref()
                .map(str::parse::<MemoryType>)
                .transpose()?;
            emit(json, &api.list(ws_read.map(str::to_owned), t)?, |list| {
                if list.is_empty() {
                    println!(
                        "no memories yet: add one with `mnemo add --type user --name … --description …`"
                    );
                }
                for d in list {
                    let ty = d.memory_type.map_or("?", MemoryType::as_str);
                    let flag = if d.valid { ' ' } else { '!' };
                    // Names come from files anyone may have written (a shared folder, a git
                    // repository): escape sequences in them are shown, never run.
                    println!(
                        "{flag}{ty:<9} {}:{}  {} — {}",
                        term(&d.workspace),
                        term(&d.path),
                        term(&d.name),
                        term(&d.description)
                    );
                    if let Some(p) = &d.problem {
                        println!("           ! {}: {}", p.code, term(&p.message));
                    }
                }
            })
        }
        Command::Show { path } => {
            let d = api.get(ws_write.to_owned(), path)?;
            emit(json, &d, |d| match &d.content {
                Some(c) => print!("{}", term_text(c)),
                None => println!(
                    "({}: {})",
                    d.summary
                        .problem
                        .as_ref()
                        .map_or("unreadable", |p| p.code.as_str()),
                    d.summary
                        .problem
                        .as_ref()
                        .map_or(String::new(), |p| term(&p.message))
                ),
            })
        }
        Command::Add {
            memory_type,
            name,
            description,
            body,
            body_file,
            path,
        } => {
            let body = read_body(body, body_file)?.unwrap_or_default();
            let new = NewMemory {
                path,
                name,
                description,
                memory_type: memory_type.parse()?,
                body,
            };
            let out = api.create(ws_write.to_owned(), new)?;
            say_shared(&out);
            emit(json, &out, |o| {
                println!(
                    "created {} (change {})",
                    term(&o.path),
                    o.change_id.unwrap_or_default()
                );
            })
        }
        Command::Edit {
            path,
            name,
            description,
            memory_type,
            body,
            body_file,
        } => {
            let body = read_body(body, body_file)?;
            if name.is_none() && description.is_none() && memory_type.is_none() && body.is_none() {
                return Err(Error::usage(
                    "nothing to change: give --name, --description, --type, --body or --body-file",
                ));
            }
            let patch = Patch {
                name,
                description,
                memory_type: memory_type.map(|t| t.parse()).transpose()?,
                body,
                expected_hash: None,
            };
            let out = api.update(ws_write.to_owned(), path, patch)?;
            say_shared(&out);
            emit(json, &out, |o| match o.change_id {
                Some(id) => println!("updated {} (change {id})", term(&o.path)),
                None => println!("{} already says that; nothing changed", term(&o.path)),
            })
        }
        Command::Rm { path } => {
            let out = api.remove(ws_write.to_owned(), path)?;
            say_shared(&out);
            emit(json, &out, |o| {
                println!(
                    "deleted {} (change {}; `mnemo undo {}` brings it back)",
                    term(&o.path),
                    o.change_id.unwrap_or_default(),
                    o.change_id.unwrap_or_default()
                );
            })
        }
        Command::Embed => memory_jobs::embed(&api, ws_read, json),
        Command::Search {
            query,
            limit,
            lexical,
        } => {
            let limit = u32::try_from(limit).unwrap_or(u32::MAX);
            let hits = api.search(
                ws_read.map(str::to_owned),
                query.clone(),
                Some(limit),
                Some(lexical),
            )?;
            emit(json, &hits, |hits| {
                let (matches, weak): (Vec<_>, Vec<_>) = hits.iter().partition(|h| !h.weak);
                if matches.is_empty() {
                    println!("no matches for “{}”", term(&query));
                }
                for h in matches {
                    print_hit(h);
                }
                if !weak.is_empty() {
                    println!(
                        "{} less likely (near in meaning, under the match floor):",
                        weak.len()
                    );
                    for h in weak {
                        print_hit(h);
                    }
                }
            })
        }
        Command::Index { rebuild } => {
            let started = std::time::Instant::now();
            let report = api.index(Some(rebuild))?;
            emit(json, &report, |r| {
                println!(
                    "{} files scanned, {} indexed, {} removed in {:.2?}",
                    r.scanned,
                    r.updated,
                    r.removed,
                    started.elapsed()
                );
            })
        }
        Command::Status => {
            let status = api.status()?;
            let status_ws: Vec<_> = status
                .workspaces
                .iter()
                .filter(|w| ws_read.is_none_or(|id| w.id == id))
                .cloned()
                .collect();
            let shown = Status {
                workspaces: status_ws,
                ..status
            };
            emit(json, &shown, |s| {
                println!(
                    "home: {}  (index {} KiB)",
                    term(&s.home),
                    s.index_bytes / 1024
                );
                for w in &s.workspaces {
                    println!(
                        "  {:<40} {:>6} memories {:>4} invalid {:>4} logs  last extract {}  last dream {}{}",
                        term(&w.id),
                        w.counts.topics,
                        w.counts.invalid,
                        w.counts.logs,
                        term(w.last_extract_at.as_deref().unwrap_or("never")),
                        term(w.last_dream_at.as_deref().unwrap_or("never")),
                        w.consolidation_locked_by
                            .map(|p| format!("  ✦ locked by {p}"))
                            .unwrap_or_default()
                    );
                }
                println!("semantic search: {}", term(&s.semantic.message));
                for warning in &s.warnings {
                    println!("  warning: {}", term(warning));
                }
            })
        }
        Command::History { path, limit } => {
            let ws = if path.is_some() {
                Some(ws_write)
            } else {
                ws_read
            };
            let limit = u32::try_from(limit).unwrap_or(u32::MAX);
            let list = api.history(ws.map(str::to_owned), path, Some(limit))?;
            emit(json, &list, |list| {
                if list.is_empty() {
                    println!("no changes recorded yet");
                }
                for c in list {
                    println!(
                        "{:>6}  {}  {:<8} {:<6} {}:{}{}",
                        c.id,
                        term(&c.at),
                        c.source.as_str(),
                        c.op,
                        term(&c.workspace),
                        term(&c.path),
                        c.group
                            .map(|g| format!("  (group {g})"))
                            .unwrap_or_default()
                    );
                }
            })
        }
        Command::Undo {
            change_id,
            group: Some(group),
        } => {
            let _ = change_id;
            let out = api.undo_group(group)?;
            emit(json, &out, |o| {
                println!(
                    "undid group {group}: restored {} files in {} ({}; undo it with `mnemo undo --group {}`)",
                    o.paths.len(),
                    term(&o.workspace),
                    term_list(&o.paths),
                    o.group
                );
                if let Some(note) = &o.note {
                    println!("{}", term(note));
                }
            })
        }
        Command::Undo {
            change_id,
            group: None,
        } => {
            let change_id =
                change_id.ok_or_else(|| Error::usage("give a change id, or --group ID"))?;
            let out = api.undo(change_id)?;
            emit(json, &out, |o| {
                println!(
                    "undid change {change_id} on {} (change {})",
                    term(&o.path),
                    o.change_id.unwrap_or_default()
                );
            })
        }
        Command::Tasks {
            kind,
            status,
            limit,
        } => {
            let kind = kind.as_deref().map(str::parse).transpose()?;
            let status = status.as_deref().map(str::parse).transpose()?;
            let list = api.tasks(ws_read.map(str::to_owned), kind, status, Some(limit))?;
            emit(json, &list, |list| {
                if list.is_empty() {
                    println!("no memory tasks yet");
                }
                for t in list {
                    print_task_line(t);
                }
            })
        }
        Command::Task { id, cancel } => {
            let t = if cancel {
                api.task_cancel(id)?
            } else {
                api.task(id)?
            };
            emit(json, &t, |t| {
                print_task_line(t);
                if let Some(e) = &t.error {
                    println!("  error: {}", term_text(e));
                }
                for s in &t.tools {
                    let mark = match s.ok {
                        Some(true) => "ok",
                        Some(false) => "failed",
                        None => "…",
                    };
                    println!("  {} {} {mark}", term(&s.name), term(&s.detail));
                }
            })
        }
        Command::Watch => watch(&api, ws_read),
        Command::Recall { query, lexical } => {
            let r = api.recall(ws_write.to_owned(), query, None, Some(lexical))?;
            emit(json, &r, |r| {
                println!(
                    "strategy: {:?}  ({} of {} memories, {} characters, {} ms)",
                    r.strategy,
                    r.selected.len(),
                    r.docs_scanned,
                    r.chars_injected,
                    r.duration_ms
                );
                for s in &r.selected {
                    println!(
                        "  {:>7.2}  {}  ({}, {})",
                        s.score,
                        term(&s.path),
                        term(&s.name),
                        s.age
                    );
                }
                println!("\n{}", term_text(&r.prompt));
            })
        }
        // The served app and the HTTP API are a person's own window, not the command line.
        Command::Serve { port, ui } => serve(api.person_is(ChangeSource::User), port, ui),
        Command::Mcp => mcp(api.person_is(ChangeSource::Mcp), cli.workspace),
        Command::Chat { message, session } => chat::chat(&api, ws_write, message, session, json),
        Command::Dream {
            mechanical,
            dry_run,
        } => dream::dream(&api, ws_write, mechanical, dry_run, json),
        Command::Remember { text, wait, clean } => {
            memory_jobs::remember(&api, ws_write, &text, wait, clean, json)
        }
        Command::Forget {
            query,
            dry_run,
            yes,
        } => memory_jobs::forget(&api, ws_write, &query, dry_run, yes, json),
        Command::Stats { memories: false } => memory_jobs::stats(&api, ws_write, json),
        Command::Stats { memories: true } => inbox::usage(&api, ws_read, json),
        Command::Archive { path, restore } => {
            let out = api.set_archived(ws_write.to_owned(), path, !restore)?;
            emit(json, &out, |o| {
                println!(
                    "{} {} (undo: mnemo undo {})",
                    if restore { "restored" } else { "archived" },
                    term(&o.path),
                    o.change_id
                        .map_or_else(|| "—".to_owned(), |c| c.to_string())
                );
            })
        }
        Command::Replace {
            path,
            entry,
            text,
            why,
        } => {
            let out = api.replace_entry(ws_write.to_owned(), path, entry, text, why)?;
            emit(json, &out, |o| {
                println!(
                    "replaced the fact in {}; the old one is kept as superseded (undo: mnemo undo {})",
                    term(&o.path),
                    o.change_id
                        .map_or_else(|| "—".to_owned(), |c| c.to_string())
                );
            })
        }
        Command::Import {
            source,
            dry_run,
            memory_type,
            folder_types,
            budget,
            all_workspaces,
            restore,
        } => {
            let mut options = import::options(memory_type.as_deref(), &folder_types, budget)?;
            options.all_workspaces = all_workspaces;
            options.workspaces = restore;
            import::import(&api, &source, ws_read, options, dry_run, json)
        }
        Command::Export { out } => import::export(&api, ws_read, out, json),
        Command::Copy { path, to, move_it } => {
            import::copy(&api, ws_write, &path, &to, move_it, json)
        }
        Command::Inbox { action } => inbox::run(&api, ws_read, action, json),
        Command::Review { state } => inbox::review(&api, ws_read, state.as_deref(), json),
        Command::Sync { action } => sync::run(&api, ws_read, action, json),
        Command::Model { action } => model::run(&api, action, json),
    }
}

fn print_task_line(t: &TaskInfo) {
    let files = t.result.as_ref().map_or(0, |r| r.files.len());
    println!(
        "{}  {:<8} {:<10} {:<24} {}  {} files{}",
        term(&t.id),
        t.kind.as_str(),
        t.status.as_str(),
        term(&t.workspace),
        term(&t.created_at),
        files,
        t.reason.map(|r| format!("  ({r})")).unwrap_or_default()
    );
}

/// Print every `memory_changed` event (of one workspace, or all) as one JSON line.
fn watch(api: &Api, workspace: Option<&str>) -> Result<()> {
    api.start_watching()?;
    let events = api.subscribe();
    let count = api.workspaces()?.len();
    eprintln!(
        "watching {}; Ctrl+C to stop",
        workspace.map_or_else(
            || format!("{count} workspaces"),
            |w| format!("workspace {}", term(w))
        )
    );
    let mut out = std::io::stdout().lock();
    for event in events {
        if workspace.is_some_and(|w| w != event.workspace) {
            continue;
        }
        let line = serde_json::to_string(&event)
            .map_err(|e| Error::new(ErrorCode::Io, format!("encoding event: {e}")))?;
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            break; // stdout closed: the reader went away
        }
    }
    Ok(())
}

/// A write to a workspace shared through git says so (on stderr: `--json` output stays clean).
fn say_shared(out: &mnemo_api::reexports::WriteOutcome) {
    if let Some(note) = &out.shared {
        eprintln!("note: {}", term(note));
    }
}

/// `mnemo mcp`: the MCP server on stdio (stdout is the protocol: nothing else is printed).
fn mcp(api: Api, workspace: Option<String>) -> Result<()> {
    let ws = match workspace {
        Some(w) => w,
        None => std::env::current_dir()
            .map(|d| api.default_workspace_for(&d))
            .unwrap_or_else(|_| PERSONAL.to_owned()),
    };
    // An unknown workspace is a usage error now, not at every call.
    api.memory_index(ws.clone())?;
    // What a client writes or imports is embedded as it lands, and the first search is warm.
    api.start_background_embedding();
    let server = mnemo_mcp::MnemoMcp::new(api.acting_for(ChangeSource::Mcp), ws);
    mnemo_mcp::run(server).map_err(|e| Error::io("serving MCP on stdio", &e))
}

fn serve(api: Api, port: u16, ui: Option<PathBuf>) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("starting the async runtime", &e))?;
    let home = api.home_dir().to_path_buf();
    let ui_dir = ui.unwrap_or_else(mnemo_server::default_ui_dir);
    api.start_watching()?;
    runtime.block_on(async move {
        let (listener, serving) = mnemo_server::bind(&home, port).await?;
        println!("Mnemo is serving on {}", serving.login_url());
        println!("(open that URL once in a browser; Ctrl+C stops the server)");
        let _ = std::io::stdout().flush();
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        mnemo_server::run(listener, &serving, api, &ui_dir, shutdown).await
    })
}
