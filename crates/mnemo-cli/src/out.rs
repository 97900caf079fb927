//! Output and input helpers: JSON or human text, errors, body files.

use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mnemo_api::Api;
use mnemo_api::reexports::TaskInfo;

use mnemo_core::{Error, ErrorCode, Result};
use serde::Serialize;

pub fn print_error(e: &Error, json: bool) {
    if json {
        println!("{}", serde_json::json!({ "error": e }));
    } else {
        // Messages may quote names from files: escapes are shown, never run.
        eprintln!("error[{}]: {}", e.code, term_text(&e.message));
    }
}

pub fn emit<T: Serialize>(json: bool, value: &T, human: impl FnOnce(&T)) -> Result<()> {
    if json {
        let text = serde_json::to_string_pretty(value)
            .map_err(|e| Error::new(ErrorCode::Io, format!("encoding output: {e}")))?;
        println!("{text}");
    } else {
        human(value);
    }
    Ok(())
}

pub fn read_body(body: Option<String>, file: Option<PathBuf>) -> Result<Option<String>> {
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

/// The one gate for words Mnemo did not write itself — a model's reply or summary, a file's
/// name or text, a remote's, a zip's or a client's — on their way to a terminal:
/// control characters (ESC, BEL: OSC 52 clipboard writes, window titles, CSI screen clears) and
/// bidirectional overrides shown escaped ([`printable`](mnemo_api::reexports::printable)), never
/// run. One line; [`term_text`] keeps line breaks and tabs. Every `print!` / `eprint!` of such
/// words goes through one of the two.
pub fn term(s: &str) -> String {
    mnemo_api::reexports::printable(s)
}

/// [`term`] for many lines of text (a memory, a recall prompt, a chat reply, a piece of one as
/// it streams): each line gated, line breaks and tabs kept. A piece holds no state, so an
/// escape sequence split over two pieces is escaped in both.
pub fn term_text(s: &str) -> String {
    s.split_inclusive('\n')
        .map(|l| {
            let (line, end) = l.strip_suffix('\n').map_or((l, ""), |x| (x, "\n"));
            let shown: String = line.split('\t').map(term).collect::<Vec<_>>().join("\t");
            shown + end
        })
        .collect()
}

/// [`term`] over a list, joined with `, `.
pub fn term_list(items: &[String]) -> String {
    items.iter().map(|i| term(i)).collect::<Vec<_>>().join(", ")
}

/// One search hit on a line, and the passage that matched (its first line) under it.
pub fn print_hit(h: &mnemo_api::reexports::Hit) {
    let ty = h
        .memory_type
        .map_or("log", mnemo_api::reexports::MemoryType::as_str);
    let why = match (h.vector, h.lexical) {
        (Some(v), Some(l)) => format!("  (meaning {v:.2}, words {l:.2})"),
        (Some(v), None) => format!("  (meaning {v:.2})"),
        _ => String::new(),
    };
    println!(
        "{:>5.2}  {:<9} {}:{}  {}{why}",
        h.score,
        ty,
        term(&h.workspace),
        term(&h.path),
        term(&h.name)
    );
    if let Some(p) = &h.passage {
        let first = p.text.lines().next().unwrap_or_default();
        let cut: String = first.chars().take(100).collect();
        let more = if cut.len() < p.text.len() { "…" } else { "" };
        println!("       line {}: {}{more}", p.line, term(&cut));
    }
}

/// How long a task is followed (an import is bounded by its budget, an install by its parts).
const WAIT: Duration = Duration::from_secs(24 * 3600);

/// Wait for the task, printing each new phase on stderr (this process's updates as they
/// come; re-read every 200 ms besides).
pub fn follow(
    api: &Api,
    updates: &std::sync::mpsc::Receiver<TaskInfo>,
    id: &str,
    json: bool,
) -> Result<TaskInfo> {
    let deadline = Instant::now() + WAIT;
    let mut last: Option<String> = None;
    let mut t = api.task(id.to_owned())?;
    loop {
        if !json && t.phase != last {
            if let Some(p) = &t.phase {
                // "Conversation 3 / 20: <its title>": a title may be a source's.
                eprintln!("{}", term(p));
            }
            last.clone_from(&t.phase);
        }
        if t.status.is_finished() || Instant::now() > deadline {
            return Ok(t);
        }
        t = match updates.recv_timeout(Duration::from_millis(200)) {
            Ok(u) if u.id == id => u,
            Ok(_) => continue,
            Err(_) => api.task(id.to_owned())?,
        };
    }
}
