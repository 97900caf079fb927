//! `mnemo chat`: turns through the API's `chat_send`, the reply streamed from the API's chat
//! events, and — before the process may exit — the extraction task that follows each turn.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use mnemo_api::reexports::{TaskInfo, TurnResult};
use mnemo_api::{Api, ChatEvent};
use mnemo_core::{Error, ErrorCode, Result};

use crate::out::{term, term_list, term_text};

/// How long a one-shot chat waits for the extraction after its turn.
const EXTRACT_WAIT: Duration = Duration::from_secs(300);

fn is_memory_command(text: &str) -> bool {
    mnemo_api::ChatCommand::parse(text) == Some(mnemo_api::ChatCommand::Memory)
}

/// One turn: send, print the reply as it streams (human mode), wait for the extraction task.
fn turn(api: &Api, workspace: &str, session: &str, text: &str, json: bool) -> Result<()> {
    let events = api.subscribe_chat();
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let (api, ws, id, text) = (
            api.clone(),
            workspace.to_owned(),
            session.to_owned(),
            text.to_owned(),
        );
        std::thread::spawn(move || {
            let _ = tx.send(api.chat_send(ws, id, text));
        });
    }
    let mut out = std::io::stdout();
    let mut print = |ev: ChatEvent| {
        if let ChatEvent::Delta {
            session: s, text, ..
        } = ev
            && !json
            && s == session
        {
            // Each piece through the gate on its own: an escape split over two pieces is
            // escaped in both (a reply's OSC 52 once wrote the clipboard).
            let _ = write!(out, "{}", term_text(&text));
            let _ = out.flush();
        }
    };
    let result: TurnResult = loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(r) => break r?,
            Err(RecvTimeoutError::Timeout) => {
                while let Ok(ev) = events.try_recv() {
                    print(ev);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Error::new(
                    ErrorCode::Io,
                    "the chat turn stopped unexpectedly",
                ));
            }
        }
    };
    // Every delta was sent before the reply returned.
    while let Ok(ev) = events.try_recv() {
        print(ev);
    }
    let task: Option<TaskInfo> = match &result.extract_task {
        Some(id) => Some(wait_extraction(api, id, json)?),
        None => None,
    };
    // A dream this turn started or queued runs in this process: it must end before we exit.
    let dream: Option<TaskInfo> = match &result.dream_task {
        Some(id) => Some(api.wait_task(id, crate::dream::DREAM_WAIT)?),
        None => None,
    };
    if json {
        let mut v =
            serde_json::to_value(&result).map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?;
        if let Some(t) = &dream {
            v["dream"] = serde_json::to_value(t).unwrap_or_default();
        }
        if let Some(t) = &task {
            v["extract"] = serde_json::json!({
                "task": t.id,
                "status": t.status,
                "files_written": t.result.as_ref().map(|r| r.files.clone()).unwrap_or_default(),
                "summary": t.result.as_ref().map(|r| r.summary.clone()),
                "group": t.result.as_ref().and_then(|r| r.group),
                "error": t.error,
            });
        }
        println!("{v}");
        return Ok(());
    }
    println!();
    if result.command.is_some() {
        println!("{}", term_text(&result.reply));
        if let Some(r) = dream.as_ref().and_then(|t| t.result.as_ref()) {
            println!("{}", term_text(&r.summary));
        }
        return Ok(());
    }
    if let Some(r) = &result.recall {
        let paths: Vec<String> = r.selected.iter().map(|s| s.path.clone()).collect();
        eprintln!(
            "[recalled {} memories ({:?}): {}]",
            paths.len(),
            r.strategy,
            term_list(&paths)
        );
    }
    let wrote: Vec<String> = result
        .wrote
        .iter()
        .cloned()
        .chain(
            task.iter()
                .flat_map(|t| t.result.iter().flat_map(|r| r.files.iter().cloned())),
        )
        .collect();
    if !wrote.is_empty() {
        eprintln!("[wrote {} memories: {}]", wrote.len(), term_list(&wrote));
    }
    if let Some(t) = task.filter(|t| t.error.is_some()) {
        eprintln!(
            "[extraction {}: {}]",
            t.status.as_str(),
            term_text(&t.error.unwrap_or_default())
        );
    }
    eprintln!("[session {}]", term(session));
    Ok(())
}

/// Set while the chat waits for an extraction: Ctrl+C then stops the wait, not the process.
static WAITING: AtomicBool = AtomicBool::new(false);
/// Ctrl+C was pressed during the wait.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Ctrl+C, from the first wait on: during a wait it ends the wait (the extraction is left to
/// finish later or be retried); at any other time it ends the process as usual (exit 130).
fn watch_ctrl_c() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The handler is in place before this returns: a Ctrl+C right after cannot slip past.
        let (ready, installed) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                let _ = ready.send(());
                return;
            };
            rt.block_on(async {
                use tokio::signal::unix::{SignalKind, signal};
                let Ok(mut interrupts) = signal(SignalKind::interrupt()) else {
                    let _ = ready.send(());
                    return;
                };
                let _ = ready.send(());
                while interrupts.recv().await.is_some() {
                    if WAITING.load(Ordering::SeqCst) && !INTERRUPTED.swap(true, Ordering::SeqCst) {
                        continue;
                    }
                    std::process::exit(130);
                }
            });
        });
        let _ = installed.recv();
    });
}

/// Wait for the extraction after a turn, showing its progress on stderr (human mode): each phase
/// and tool step as it happens. Ctrl+C stops waiting: the messages stay unprocessed (the session
/// is marked extracted only after a run that did not fail), so the next turn — or `mnemo chat --session` — extracts
/// them again; nothing is lost.
fn wait_extraction(api: &Api, id: &str, json: bool) -> Result<TaskInfo> {
    watch_ctrl_c();
    INTERRUPTED.store(false, Ordering::SeqCst);
    WAITING.store(true, Ordering::SeqCst);
    let deadline = Instant::now() + EXTRACT_WAIT;
    let mut shown = (None::<String>, 0usize);
    if !json {
        eprintln!("\n[saving memories in the background; Ctrl+C leaves it for later]");
    }
    let outcome = loop {
        let t = match api.wait_task(id, Duration::from_millis(300)) {
            Ok(t) => t,
            Err(e) => break Err(e),
        };
        if !json && (t.phase != shown.0 || t.tools.len() != shown.1) {
            if let Some(step) = t.tools.get(shown.1..).and_then(|s| s.last()) {
                eprintln!("[extraction: {} {}]", term(&step.name), term(&step.detail));
            } else if let Some(p) = t
                .phase
                .as_deref()
                .filter(|p| Some(*p) != shown.0.as_deref())
            {
                eprintln!("[extraction: {}]", term(p));
            }
            shown = (t.phase.clone(), t.tools.len());
        }
        if t.status.is_finished() || Instant::now() >= deadline {
            break Ok(t);
        }
        if INTERRUPTED.load(Ordering::SeqCst) {
            if !json {
                eprintln!(
                    "[stopped waiting: the extraction did not finish; these messages stay unprocessed and are extracted again after your next message in this chat]"
                );
            }
            break Ok(t);
        }
    };
    WAITING.store(false, Ordering::SeqCst);
    outcome
}

/// `mnemo chat [MESSAGE] [--session ID]`: one turn, or an interactive chat on stdin.
pub fn chat(
    api: &Api,
    workspace: &str,
    message: Option<String>,
    session: Option<String>,
    json: bool,
) -> Result<()> {
    // `/memory` is answered by Mnemo itself: it needs no model, nor a session.
    let only_command = message.as_deref().is_some_and(is_memory_command);
    if only_command && session.is_none() {
        let reply = api.memory_status(workspace.to_owned(), None)?;
        if json {
            println!(
                "{}",
                serde_json::json!({"command": mnemo_api::ChatCommand::Memory, "reply": reply})
            );
        } else {
            println!("{}", term_text(&reply));
        }
        return Ok(());
    }
    if !only_command && !api.get_model_settings()?.configured {
        return Err(Error::new(
            ErrorCode::ModelNotConfigured,
            "chat needs a model: no model is configured — set MNEMO_LLM_BASE_URL and MNEMO_LLM_MODEL, or use Settings in the app",
        ));
    }
    let id = match session {
        Some(id) => {
            api.chat_transcript(workspace.to_owned(), id.clone())?;
            id
        }
        None => api.chat_create(workspace.to_owned(), None)?.id,
    };
    if let Some(m) = message {
        return turn(api, workspace, &id, &m, json);
    }
    eprintln!(
        "chatting in session {}; /memory for status, /quit to leave",
        term(&id)
    );
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
            text => turn(api, workspace, &id, text, json)?,
        }
    }
}
