//! `mnemo`: the command line over a Mnemo home — workspaces, memories, search, the index,
//! history and undo, and a live view of changes. `--json` makes every command machine-readable,
//! errors included (`{"error":{"code","message"}}` on stdout; exit 1, or 2 for usage errors).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use mnemo_api::{Api, NewMemory, Patch};
use mnemo_core::{Error, ErrorCode, MemoryType, Result};
use mnemo_store::vault::WorkspaceInfo;
use mnemo_store::{Home, Vault, workspace::PERSONAL};
use serde::Serialize;

/// Mnemo: persistent, inspectable memory for AI chat.
#[derive(Debug, Parser)]
#[command(name = "mnemo", version, about, propagate_version = true)]
struct Cli {
    /// Mnemo's data folder (else $MNEMO_HOME, else the platform data dir).
    #[arg(long, global = true, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Workspace id (see `mnemo workspaces`). Writes default to `personal`; list, search,
    /// history and status cover every workspace when it is not given.
    #[arg(long, short = 'w', global = true, value_name = "ID")]
    workspace: Option<String>,
    /// Machine-readable output.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List workspaces with their counts (or add one).
    Workspaces {
        #[command(subcommand)]
        action: Option<WorkspaceAction>,
    },
    /// List memories (topic files), grouped by workspace.
    List {
        /// Only this type: user, feedback, project, reference.
        #[arg(long = "type", value_name = "T")]
        memory_type: Option<String>,
    },
    /// Print one memory file exactly as it is on disk.
    Show {
        /// Path relative to the memory folder.
        path: String,
    },
    /// Create a memory.
    Add {
        /// user, feedback, project or reference.
        #[arg(long = "type", value_name = "T")]
        memory_type: String,
        /// Short title.
        #[arg(long)]
        name: String,
        /// One specific line: used to judge relevance.
        #[arg(long)]
        description: String,
        /// Body text.
        #[arg(long, conflicts_with = "body_file")]
        body: Option<String>,
        /// Read the body from a file (`-` for stdin).
        #[arg(long, value_name = "FILE")]
        body_file: Option<PathBuf>,
        /// File path (default: derived from the name).
        #[arg(long)]
        path: Option<String>,
    },
    /// Change a memory's fields or body.
    Edit {
        /// Path relative to the memory folder.
        path: String,
        /// New name.
        #[arg(long)]
        name: Option<String>,
        /// New description.
        #[arg(long)]
        description: Option<String>,
        /// New type.
        #[arg(long = "type", value_name = "T")]
        memory_type: Option<String>,
        /// New body text.
        #[arg(long, conflicts_with = "body_file")]
        body: Option<String>,
        /// Read the new body from a file (`-` for stdin).
        #[arg(long, value_name = "FILE")]
        body_file: Option<PathBuf>,
    },
    /// Delete a memory (undoable).
    Rm {
        /// Path relative to the memory folder.
        path: String,
    },
    /// Full-text search (CJK-aware; full-width and case folded).
    Search {
        /// Words to look for.
        query: String,
        /// Most results.
        #[arg(long, default_value_t = 10)]
        limit: usize,
    },
    /// Bring the index up to date with the files (`--rebuild`: from scratch).
    Index {
        /// Drop the index and rebuild it from the files.
        #[arg(long)]
        rebuild: bool,
    },
    /// Home, workspaces, counts, locks and recoveries.
    Status,
    /// The journal of changes, newest first.
    History {
        /// Only this file.
        path: Option<String>,
        /// Most entries.
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Undo one change (restores the exact previous bytes; itself journaled).
    Undo {
        /// Id from `mnemo history`.
        change_id: i64,
    },
    /// Print every memory_changed event as one JSON line until interrupted.
    Watch,
    /// What would be recalled for a chat message: strategy, chosen memories, the prompt block.
    Recall {
        /// The message.
        query: String,
        /// Use the lexical path even when a model is configured.
        #[arg(long)]
        lexical: bool,
    },
    /// Chat with memory: one turn when MESSAGE is given, interactive otherwise (`/memory`, `/quit`).
    Chat {
        /// The message (omit for an interactive chat on stdin).
        message: Option<String>,
        /// Continue this session (see the session id printed after a turn).
        #[arg(long)]
        session: Option<String>,
    },
    /// Serve the web UI and the HTTP API on 127.0.0.1 (prints a login URL).
    Serve {
        /// Port (0: any free port).
        #[arg(long, default_value_t = mnemo_server::DEFAULT_PORT)]
        port: u16,
        /// Folder of the built UI (default: $MNEMO_UI_DIR, then the installed or source copy).
        #[arg(long, value_name = "DIR")]
        ui: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum WorkspaceAction {
    /// Add a folder of markdown memories as a workspace.
    AddFolder {
        /// The folder.
        path: PathBuf,
    },
    /// Create (or find) the workspace bound to the git repository containing DIR.
    Bind {
        /// A folder inside the repository (default: the current folder).
        dir: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
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
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("MNEMO_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(cli, json) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            print_error(&e, json);
            ExitCode::from(if e.code == ErrorCode::Usage { 2 } else { 1 })
        }
    }
}

fn print_error(e: &Error, json: bool) {
    if json {
        println!("{}", serde_json::json!({ "error": e }));
    } else {
        eprintln!("error[{}]: {}", e.code, e.message);
    }
}

fn emit<T: Serialize>(json: bool, value: &T, human: impl FnOnce(&T)) -> Result<()> {
    if json {
        let text = serde_json::to_string_pretty(value)
            .map_err(|e| Error::new(ErrorCode::Io, format!("encoding output: {e}")))?;
        println!("{text}");
    } else {
        human(value);
    }
    Ok(())
}

fn read_body(body: Option<String>, file: Option<PathBuf>) -> Result<Option<String>> {
    let Some(path) = file else { return Ok(body) };
    let bytes = if path.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| Error::io("reading stdin", &e))?;
        b
    } else {
        std::fs::read(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::not_found(format!("body file {} does not exist", path.display()))
            } else {
                Error::io(format!("reading {}", path.display()), &e)
            }
        })?
    };
    String::from_utf8(bytes).map(Some).map_err(|_| {
        Error::new(
            ErrorCode::InvalidContent,
            format!("{} is not UTF-8 text", path.display()),
        )
    })
}

fn run(cli: Cli, json: bool) -> Result<()> {
    let home = Home::resolve(cli.home)?;
    let api = Api::open(home)?;
    let vault = api.vault();
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
                    let ws = vault.home().bind_project(&dir)?;
                    if !json {
                        println!("bound workspace {}", ws.id);
                    }
                }
                None => {}
            }
            vault.sync_all()?;
            emit(json, &api.workspaces()?, |list: &Vec<WorkspaceInfo>| {
                for w in list {
                    println!(
                        "{:<40} {:<7} {:>6} memories {:>4} invalid {:>4} logs  {}",
                        w.workspace.id,
                        w.workspace.kind.as_str(),
                        w.counts.topics,
                        w.counts.invalid,
                        w.counts.logs,
                        w.workspace.memory_root.display()
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
                    println!(
                        "{flag}{ty:<9} {}:{}  {} — {}",
                        d.workspace, d.path, d.name, d.description
                    );
                    if let Some(p) = &d.problem {
                        println!("           ! {}: {}", p.code, p.message);
                    }
                }
            })
        }
        Command::Show { path } => {
            let d = api.get(ws_write.to_owned(), path)?;
            emit(json, &d, |d| match &d.content {
                Some(c) => print!("{c}"),
                None => println!(
                    "({}: {})",
                    d.summary
                        .problem
                        .as_ref()
                        .map_or("unreadable", |p| p.code.as_str()),
                    d.summary
                        .problem
                        .as_ref()
                        .map_or("", |p| p.message.as_str())
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
            emit(json, &out, |o| {
                println!(
                    "created {} (change {})",
                    o.path,
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
                memory_type,
                body,
                expected_hash: None,
            };
            let out = api.update(ws_write.to_owned(), path, patch)?;
            emit(json, &out, |o| match o.change_id {
                Some(id) => println!("updated {} (change {id})", o.path),
                None => println!("{} already says that; nothing changed", o.path),
            })
        }
        Command::Rm { path } => {
            let out = api.remove(ws_write.to_owned(), path)?;
            emit(json, &out, |o| {
                println!(
                    "deleted {} (change {}; `mnemo undo {}` brings it back)",
                    o.path,
                    o.change_id.unwrap_or_default(),
                    o.change_id.unwrap_or_default()
                );
            })
        }
        Command::Search { query, limit } => {
            let limit = u32::try_from(limit).unwrap_or(u32::MAX);
            let hits = api.search(ws_read.map(str::to_owned), query.clone(), Some(limit))?;
            emit(json, &hits, |hits| {
                if hits.is_empty() {
                    println!("no matches for “{query}”");
                }
                for h in hits {
                    let ty = h.memory_type.map_or("log", MemoryType::as_str);
                    println!(
                        "{:>7.2}  {:<9} {}:{}  {}",
                        h.score, ty, h.workspace, h.path, h.name
                    );
                }
            })
        }
        Command::Index { rebuild } => {
            let started = std::time::Instant::now();
            let report = if rebuild {
                vault.rebuild()?
            } else {
                vault.sync_all()?
            };
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
            vault.sync_all()?;
            let status = api.status()?;
            let status_ws: Vec<_> = status
                .workspaces
                .iter()
                .filter(|w| ws_read.is_none_or(|id| w.id == id))
                .cloned()
                .collect();
            let shown = mnemo_store::vault::Status {
                workspaces: status_ws,
                ..status
            };
            emit(json, &shown, |s| {
                println!("home: {}  (index {} KiB)", s.home, s.index_bytes / 1024);
                for w in &s.workspaces {
                    println!(
                        "  {:<40} {:>6} memories {:>4} invalid {:>4} logs  last extract {}  last dream {}{}",
                        w.id,
                        w.counts.topics,
                        w.counts.invalid,
                        w.counts.logs,
                        w.last_extract_at.as_deref().unwrap_or("never"),
                        w.last_dream_at.as_deref().unwrap_or("never"),
                        w.consolidation_locked_by
                            .map(|p| format!("  ✦ locked by {p}"))
                            .unwrap_or_default()
                    );
                }
                for warning in &s.warnings {
                    println!("  warning: {warning}");
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
                        "{:>6}  {}  {:<8} {:<6} {}:{}",
                        c.id,
                        c.at,
                        c.source.as_str(),
                        c.op,
                        c.workspace,
                        c.path
                    );
                }
            })
        }
        Command::Undo { change_id } => {
            let out = api.undo(change_id)?;
            emit(json, &out, |o| {
                println!(
                    "undid change {change_id} on {} (change {})",
                    o.path,
                    o.change_id.unwrap_or_default()
                );
            })
        }
        Command::Watch => watch(vault, ws_read),
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
                    println!("  {:>7.2}  {}  ({}, {})", s.score, s.path, s.name, s.age);
                }
                println!("\n{}", r.prompt);
            })
        }
        Command::Serve { port, ui } => serve(api.clone(), port, ui),
        Command::Chat { message, session } => chat(&api, ws_write, message, session, json),
    }
}

fn watch(vault: &Arc<Vault>, workspace: Option<&str>) -> Result<()> {
    let workspaces = match workspace {
        Some(id) => vec![vault.workspace(id)?],
        None => vault.workspaces()?,
    };
    for ws in &workspaces {
        vault.sync(ws)?;
    }
    let events = vault.subscribe();
    let _handle = mnemo_store::watch::watch(Arc::clone(vault), workspaces.clone())?;
    eprintln!("watching {} workspaces; Ctrl+C to stop", workspaces.len());
    let mut out = std::io::stdout().lock();
    for event in events {
        let line = serde_json::to_string(&event)
            .map_err(|e| Error::new(ErrorCode::Io, format!("encoding event: {e}")))?;
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            break; // stdout closed: the reader went away
        }
    }
    Ok(())
}

fn serve(api: Api, port: u16, ui: Option<PathBuf>) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("starting the async runtime", &e))?;
    let home = api.vault().home().root.clone();
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

fn chat(
    api: &Api,
    workspace: &str,
    message: Option<String>,
    session: Option<String>,
    json: bool,
) -> Result<()> {
    use mnemo_engine::chat::{Sessions, TurnEvent, chat_turn, memory_status, model_error};
    let vault = api.vault();
    let settings = mnemo_llm::LlmSettings::load(&vault.home().root)?;
    // `/memory` is answered by Mnemo itself: it needs no model.
    let only_command = message
        .as_deref()
        .is_some_and(mnemo_engine::chat::is_command);
    if !settings.is_configured() && !only_command {
        return Err(model_error(&mnemo_llm::LlmError::NotConfigured));
    }
    if only_command && session.is_none() {
        let reply = memory_status(vault, workspace, None)?;
        if json {
            println!("{}", serde_json::json!({"command": true, "reply": reply}));
        } else {
            println!("{reply}");
        }
        return Ok(());
    }
    let client = mnemo_llm::Client::new(settings).map_err(|e| model_error(&e))?;
    let ws = vault.workspace(workspace)?;
    vault.sync(&ws)?;
    let sessions = Sessions::of(&ws);
    let id = match session {
        Some(id) => {
            sessions.records(&id)?;
            id
        }
        None => sessions.create(message.as_deref().unwrap_or("Chat"))?,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("starting the async runtime", &e))?;
    let cancel = mnemo_llm::CancellationToken::new();
    let turn = |text: &str| -> Result<()> {
        let mut out = std::io::stdout();
        let result = runtime.block_on(chat_turn(
            vault,
            &client,
            workspace,
            &id,
            text,
            &cancel,
            |ev| {
                if let (false, TurnEvent::Delta(mnemo_llm::Delta::Text(t))) = (json, ev) {
                    let _ = write!(out, "{t}");
                    let _ = out.flush();
                }
            },
        ))?;
        if json {
            let v = serde_json::to_value(&result)
                .map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?;
            println!("{v}");
        } else {
            println!();
            if let Some(r) = &result.recall {
                let paths: Vec<&str> = r.selected.iter().map(|s| s.path.as_str()).collect();
                eprintln!(
                    "[recalled {} memories ({:?}): {}]",
                    paths.len(),
                    r.strategy,
                    paths.join(", ")
                );
            }
            let wrote: Vec<&str> = result
                .wrote
                .iter()
                .map(String::as_str)
                .chain(
                    result
                        .extract
                        .iter()
                        .flat_map(|e| e.files_written.iter().map(String::as_str)),
                )
                .collect();
            if !wrote.is_empty() {
                eprintln!("[wrote {} memories: {}]", wrote.len(), wrote.join(", "));
            }
            eprintln!("[session {id}]");
        }
        Ok(())
    };
    if let Some(m) = message {
        return turn(&m);
    }
    eprintln!("chatting in session {id}; /memory for status, /quit to leave");
    let stdin = std::io::stdin();
    let mut line = String::new();
    loop {
        line.clear();
        if stdin
            .read_line(&mut line)
            .map_err(|e| Error::io("reading stdin", &e))?
            == 0
        {
            return Ok(());
        }
        match line.trim() {
            "" => {}
            "/quit" | "/exit" => return Ok(()),
            "/memory" => println!("{}", memory_status(vault, workspace, Some(&id))?),
            text => turn(text)?,
        }
    }
}
