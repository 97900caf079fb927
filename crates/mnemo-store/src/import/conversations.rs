//! Past conversations from ChatGPT's and Claude.ai's exports and from Claude Code / Qwen Code
//! session transcripts, one at a time, as plain user / assistant turns.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use mnemo_core::{Error, Result};
use serde_json::Value;

use super::ImportFormat;
use super::stream::{self, Next};

/// One past conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    /// Its id in the source (stable across exports), or its position when it has none.
    pub id: String,
    /// Its title (may be empty).
    pub title: String,
    /// The turns, oldest first: (`true` for the user, text).
    pub turns: Vec<(bool, String)>,
}

impl Conversation {
    /// How it is named to a person: its title, else its id.
    #[must_use]
    pub fn name(&self) -> String {
        if self.title.trim().is_empty() {
            self.id.clone()
        } else {
            self.title.trim().chars().take(80).collect()
        }
    }
}

/// Call `f` with each conversation of the source, in order; conversations with no text are
/// passed too (with no turns), so counts and resumption see every one.
pub fn for_each(
    path: &Path,
    format: ImportFormat,
    mut f: impl FnMut(Conversation) -> Result<Next>,
) -> Result<()> {
    match format {
        ImportFormat::Chatgpt | ImportFormat::ClaudeAi => {
            let file = File::open(path)
                .map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
            stream::for_each(file, |pos, v| {
                let c = if format == ImportFormat::Chatgpt {
                    chatgpt(&v, pos.index)
                } else {
                    claude_ai(&v, pos.index)
                };
                f(c)
            })
        }
        ImportFormat::Transcripts => {
            for (id, file) in transcript_files(path)? {
                let turns = transcript(&file)?;
                if f(Conversation {
                    id,
                    title: String::new(),
                    turns,
                })? == Next::Stop
                {
                    break;
                }
            }
            Ok(())
        }
        other => Err(Error::usage(format!(
            "a {} holds memories, not conversations",
            other.label()
        ))),
    }
}

fn text_of(v: &Value) -> Option<String> {
    v.as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// ChatGPT: the `mapping` tree walked from `current_node` up to the root (the branch the person
/// last saw), else every message by time; text parts of user and assistant messages only.
fn chatgpt(v: &Value, index: usize) -> Conversation {
    let id = ["conversation_id", "id"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .map_or_else(|| format!("#{}", index + 1), str::to_owned);
    let title = v
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let empty = serde_json::Map::new();
    let mapping = v
        .get("mapping")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut chain: Vec<&Value> = Vec::new();
    let mut node = v.get("current_node").and_then(Value::as_str);
    let mut guard = 0;
    while let Some(n) = node.and_then(|id| mapping.get(id)) {
        chain.push(n);
        node = n.get("parent").and_then(Value::as_str);
        guard += 1;
        if guard > mapping.len() {
            break; // a cycle: stop rather than loop
        }
    }
    if chain.is_empty() {
        chain = mapping.values().collect();
        chain.sort_by(|a, b| {
            let t = |n: &Value| n["message"]["create_time"].as_f64().unwrap_or(0.0);
            t(b).total_cmp(&t(a))
        });
    }
    chain.reverse();
    let turns = chain
        .into_iter()
        .filter_map(|n| {
            let m = n.get("message")?;
            let user = match m["author"]["role"].as_str()? {
                "user" => true,
                "assistant" => false,
                _ => return None,
            };
            let parts = m["content"]["parts"].as_array()?;
            let text: Vec<String> = parts.iter().filter_map(text_of).collect();
            (!text.is_empty()).then(|| (user, text.join("\n")))
        })
        .collect();
    Conversation { id, title, turns }
}

/// Claude.ai: `chat_messages` with `sender` human / assistant and `text` (or text `content`).
fn claude_ai(v: &Value, index: usize) -> Conversation {
    let id = v
        .get("uuid")
        .and_then(Value::as_str)
        .map_or_else(|| format!("#{}", index + 1), str::to_owned);
    let title = v
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let turns = v["chat_messages"]
        .as_array()
        .map(|msgs| {
            msgs.iter()
                .filter_map(|m| {
                    let user = match m["sender"].as_str()? {
                        "human" | "user" => true,
                        "assistant" => false,
                        _ => return None,
                    };
                    let text = text_of(&m["text"]).or_else(|| {
                        let parts: Vec<String> = m["content"]
                            .as_array()?
                            .iter()
                            .filter(|p| p["type"] == "text")
                            .filter_map(|p| text_of(&p["text"]))
                            .collect();
                        (!parts.is_empty()).then(|| parts.join("\n"))
                    })?;
                    Some((user, text))
                })
                .collect()
        })
        .unwrap_or_default();
    Conversation { id, title, turns }
}

/// The `.jsonl` files of a transcripts source (a file, or a folder searched 8 levels deep),
/// sorted by path, each with its id (the path relative to the folder).
fn transcript_files(path: &Path) -> Result<Vec<(String, PathBuf)>> {
    if path.is_file() {
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        return Ok(vec![(name, path.to_path_buf())]);
    }
    super::files_under(path, ".jsonl")
}

/// Read past the rest of the current line without holding it.
fn skip_line(r: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|b| *b == b'\n') {
            Some(i) => {
                r.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                r.consume(n);
            }
        }
    }
}

/// One transcript's turns: Claude Code lines (`message.content` a string or text blocks; tool
/// results and meta lines left out) and Qwen Code lines (`message.parts[].text`, role `model`
/// for the assistant). Lines that are not JSON (a torn last line) are skipped.
fn transcript(path: &Path) -> Result<Vec<(bool, String)>> {
    let f = File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    let mut r = BufReader::new(f);
    let mut buf = Vec::new();
    let mut turns = Vec::new();
    loop {
        buf.clear();
        let cap = super::stream::MAX_ELEMENT_BYTES;
        let n = (&mut r)
            .take(cap + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
        if n == 0 {
            break;
        }
        if n as u64 > cap && buf.last() != Some(&b'\n') {
            // A line over the cap (a huge tool output) is skipped like a torn one, never held.
            skip_line(&mut r).map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
            tracing::warn!(
                "a line of {} over {} MiB was left out",
                path.display(),
                cap / (1024 * 1024)
            );
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(&buf) else {
            continue;
        };
        if v["isMeta"].as_bool() == Some(true) || v["isSidechain"].as_bool() == Some(true) {
            continue;
        }
        let m = &v["message"];
        let role = m["role"].as_str().or_else(|| v["type"].as_str());
        let user = match role {
            Some("user") => true,
            Some("assistant" | "model") => false,
            _ => continue,
        };
        let text = text_of(&m["content"])
            .or_else(|| blocks(&m["content"], "text"))
            .or_else(|| blocks(&m["parts"], ""));
        if let Some(t) = text {
            turns.push((user, t));
        }
    }
    Ok(turns)
}

/// The text of content blocks: those of `kind` (any with `text` when `kind` is empty).
fn blocks(v: &Value, kind: &str) -> Option<String> {
    let parts: Vec<String> = v
        .as_array()?
        .iter()
        .filter(|p| kind.is_empty() || p["type"] == kind)
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| text_of(&p["text"]))
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chatgpt_follows_the_branch_last_seen() {
        let v = json!({"id": "c1", "title": "Trip", "current_node": "c",
        "mapping": {
            "root": {"message": null, "parent": null},
            "a": {"parent": "root", "message": {"author": {"role": "user"}, "content": {"parts": ["I live in Lisbon"]}}},
            "b": {"parent": "a", "message": {"author": {"role": "assistant"}, "content": {"parts": ["Nice!"]}}},
            "x": {"parent": "a", "message": {"author": {"role": "assistant"}, "content": {"parts": ["abandoned branch"]}}},
            "c": {"parent": "b", "message": {"author": {"role": "system"}, "content": {"parts": ["sys"]}}}
        }});
        let c = chatgpt(&v, 0);
        assert_eq!(c.id, "c1");
        assert_eq!(
            c.turns,
            vec![(true, "I live in Lisbon".into()), (false, "Nice!".into())]
        );
    }

    #[test]
    fn claude_ai_and_transcript_lines() {
        let v = json!({"uuid": "u", "name": "N", "chat_messages": [
            {"sender": "human", "text": "hello there"},
            {"sender": "assistant", "text": "", "content": [{"type": "text", "text": "hi"}]}]});
        assert_eq!(claude_ai(&v, 0).turns.len(), 2);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(
            &p,
            concat!(
                r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"We deploy on Fridays"}}"#, "\n",
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Noted"},{"type":"tool_use","name":"x"}]}}"#, "\n",
                r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"out"}]}}"#, "\n",
                r#"{"type":"assistant","message":{"role":"model","parts":[{"text":"Qwen says hi"}]}}"#, "\n",
                r#"{"type":"user","message":{"role":"us"#
            ),
        )
        .unwrap();
        let t = transcript(&p).unwrap();
        assert_eq!(
            t,
            vec![
                (true, "We deploy on Fridays".into()),
                (false, "Noted".into()),
                (false, "Qwen says hi".into())
            ]
        );
    }

    #[test]
    fn a_transcript_line_over_the_cap_is_left_out_and_the_next_is_read() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.jsonl");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        f.write_all(br#"{"type":"user","message":{"role":"user","content":""#)
            .unwrap();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..(super::super::stream::MAX_ELEMENT_BYTES >> 20) + 1 {
            f.write_all(&chunk).unwrap();
        }
        f.write_all(b"\"}}\n").unwrap();
        f.write_all(
            br#"{"type":"user","message":{"role":"user","content":"We deploy on Fridays"}}"#,
        )
        .unwrap();
        f.write_all(b"\n").unwrap();
        drop(f);
        let t = transcript(&p).unwrap();
        assert_eq!(t, vec![(true, "We deploy on Fridays".into())]);
    }
}
