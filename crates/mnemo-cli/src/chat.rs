//! `mnemo chat`: turns through the API's `chat_send`, the reply streamed from the API's chat
//! events, and — before the process may exit — the extraction task that follows each turn.

use std::io::Write;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use mnemo_api::reexports::{TaskInfo, TurnResult};
use mnemo_api::{Api, ChatEvent};
use mnemo_core::{Error, ErrorCode, Result};

/// How long a one-shot chat waits for the extraction after its turn.
const EXTRACT_WAIT: Duration = Duration::from_secs(300);

fn is_memory_command(text: &str) -> bool {
    text.trim() == "/memory"
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
            let _ = write!(out, "{text}");
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
        Some(id) => Some(api.wait_task(id, EXTRACT_WAIT)?),
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
                "group": t.result.as_ref().and_then(|r| r.group),
                "error": t.error,
            });
        }
        println!("{v}");
        return Ok(());
    }
    println!();
    if result.command {
        println!("{}", result.reply);
        if let Some(r) = dream.as_ref().and_then(|t| t.result.as_ref()) {
            println!("{}", r.summary);
        }
        return Ok(());
    }
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
        .chain(task.iter().flat_map(|t| {
            t.result
                .iter()
                .flat_map(|r| r.files.iter().map(String::as_str))
        }))
        .collect();
    if !wrote.is_empty() {
        eprintln!("[wrote {} memories: {}]", wrote.len(), wrote.join(", "));
    }
    if let Some(t) = task.filter(|t| t.error.is_some()) {
        eprintln!(
            "[extraction {}: {}]",
            t.status.as_str(),
            t.error.unwrap_or_default()
        );
    }
    eprintln!("[session {session}]");
    Ok(())
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
            println!("{}", serde_json::json!({"command": true, "reply": reply}));
        } else {
            println!("{reply}");
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
            text => turn(api, workspace, &id, text, json)?,
        }
    }
}
