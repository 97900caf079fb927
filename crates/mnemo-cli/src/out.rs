//! Output and input helpers: JSON or human text, errors, body files.

use std::io::Read;
use std::path::PathBuf;

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

/// Many lines of text from files (a memory, a recall prompt), safe for a terminal: each line
/// [`printable`](mnemo_api::reexports::printable), but line breaks and tabs are kept.
pub fn term_text(s: &str) -> String {
    s.split_inclusive('\n')
        .map(|l| {
            let (line, end) = l.strip_suffix('\n').map_or((l, ""), |x| (x, "\n"));
            let shown: String = line
                .split('\t')
                .map(mnemo_api::reexports::printable)
                .collect::<Vec<_>>()
                .join("\t");
            shown + end
        })
        .collect()
}
