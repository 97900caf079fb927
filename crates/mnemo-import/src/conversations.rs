//! Past conversations from ChatGPT's and Claude.ai's exports and from Claude Code / Qwen Code
//! session transcripts, one at a time, as plain user / assistant turns.

use std::collections::HashSet;
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
        ImportFormat::Chatgpt | ImportFormat::ClaudeAi => export(path, format, f),
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

/// A `conversations.json`, streamed one conversation at a time. A file holding a single
/// conversation (one object, no array around it) is read as that one: the stream finds no
/// array in it, so it is read again as one element (still within the element cap).
fn export(
    path: &Path,
    format: ImportFormat,
    mut f: impl FnMut(Conversation) -> Result<Next>,
) -> Result<()> {
    let read = |v: &Value, index: usize| {
        if format == ImportFormat::Chatgpt {
            super::chatgpt::conversation(v, index)
        } else {
            claude_ai(v, index)
        }
    };
    let file =
        File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    let mut any = false;
    stream::for_each(file, |pos, v| {
        any = true;
        f(read(&v, pos.index))
    })?;
    if !any
        && let Some(v) = super::detect::single_object(path)?
        && super::detect::classify(None, &v) == Some(format)
    {
        f(read(&v, 0))?;
    }
    Ok(())
}

/// A JSON string's text, trimmed; `None` when it is not a string or holds only blanks.
pub(super) fn text_of(v: &Value) -> Option<String> {
    v.as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
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

/// One transcript's turns: Claude Code lines (`message.content` a string or text blocks; see
/// [`line_turn`] for what is left out) and Qwen Code lines (`message.parts[].text`, role
/// `model` for the assistant). Lines that are not JSON (a torn last line) are skipped.
fn transcript(path: &Path) -> Result<Vec<(bool, String)>> {
    let f = File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    let mut r = BufReader::new(f);
    let mut buf = Vec::new();
    let mut turns = Vec::new();
    let mut seen = HashSet::new();
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
        // A resumed or compacted session repeats earlier lines, `uuid` and all: read once.
        if let Some(id) = v["uuid"].as_str()
            && !seen.insert(id.to_owned())
        {
            continue;
        }
        turns.extend(line_turn(&v));
    }
    Ok(turns)
}

/// A transcript line as a turn, or `None` when it holds neither the person's words nor the
/// assistant's reply: meta, sidechain and compaction-summary lines, tool calls and results,
/// thinking, bookkeeping lines (`summary`, `system`…), and the notices Claude Code records as
/// the user's (see [`from_person`]).
fn line_turn(v: &Value) -> Option<(bool, String)> {
    if ["isMeta", "isSidechain", "isCompactSummary"]
        .iter()
        .any(|k| v[*k].as_bool() == Some(true))
    {
        return None;
    }
    let m = &v["message"];
    let user = match m["role"].as_str().or_else(|| v["type"].as_str())? {
        "user" => true,
        "assistant" | "model" => false,
        _ => return None,
    };
    let text = text_of(&m["content"])
        .or_else(|| blocks(&m["content"], "text"))
        .or_else(|| blocks(&m["parts"], ""))?;
    (!user || from_person(&text)).then_some((user, text))
}

/// Whether a user line's text is the person's own: Claude Code also records as the user's the
/// `Caveat:` notice put before local commands' output, slash commands (`<command-name>`,
/// `<command-message>`, `<command-args>`), their output (`<local-command-stdout>`,
/// `<local-command-stderr>`) and the note left when a reply is interrupted.
fn from_person(text: &str) -> bool {
    const NOTICES: &[&str] = &[
        "Caveat:",
        "<command-name>",
        "<command-message>",
        "<command-args>",
        "<local-command-stdout>",
        "<local-command-stderr>",
        "[Request interrupted by user",
    ];
    !NOTICES.iter().any(|n| text.starts_with(n))
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
    use crate::testing::{read, turns};
    use serde_json::json;

    #[test]
    fn a_file_holding_one_claude_ai_conversation_is_read_as_that_one() {
        for name in ["claude_ai_single.json", "claude_ai_single_line.json"] {
            let all = read(name, ImportFormat::ClaudeAi);
            assert_eq!(all.len(), 1, "{name}");
            assert_eq!(all[0].id, "2d8f4b1e-7a3c-4e59-b6d0-9c1e5a7f3b82", "{name}");
            assert_eq!(all[0].name(), "Sourdough starter schedule", "{name}");
            assert_eq!(
                all[0].turns,
                turns(&[
                    (
                        true,
                        "I feed my starter at 8am. When should I mix the dough if I want to bake on Saturday evening?"
                    ),
                    (
                        false,
                        "Mix the dough on Saturday around 1pm, once the starter has peaked, and bake after a four-hour rise."
                    ),
                    (true, "My kitchen is cold, about 17 degrees."),
                    (
                        false,
                        "Then give it six hours instead, or proof it in the oven with only the light on."
                    ),
                ]),
                "{name}"
            );
        }
    }

    #[test]
    fn a_transcript_opening_with_many_summaries_is_read_whole() {
        let all = read(
            "claude_code_summaries_first.jsonl",
            ImportFormat::Transcripts,
        );
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].id, "claude_code_summaries_first.jsonl");
        assert_eq!(
            all[0].turns,
            turns(&[
                (
                    true,
                    "Our release notes live in docs/CHANGES.md, please keep them in British English."
                ),
                (
                    false,
                    "Understood: I'll write release notes in docs/CHANGES.md in British English."
                ),
                (true, "And we tag releases as vYYYY.MM, not semver."),
                (false, "Got it, calendar versions such as v2025.08."),
            ])
        );
    }

    #[test]
    fn transcript_lines_that_are_not_the_persons_words_are_left_out() {
        let all = read("claude_code_noise.jsonl", ImportFormat::Transcripts);
        assert_eq!(
            all[0].turns,
            turns(&[
                (
                    true,
                    "The integration tests fail on CI but pass locally. Can you find out why?"
                ),
                (false, "Let me look at the CI workflow first."),
                (
                    false,
                    "CI runs in UTC while your machine is on Europe/Lisbon time, and tests/dates.rs reads the local date."
                ),
                (true, "Then make that test use a fixed timezone."),
                (
                    false,
                    "I pinned tests/dates.rs to UTC with a fixed clock, so it passes anywhere."
                ),
            ])
        );
    }

    #[test]
    fn repeated_transcript_lines_are_read_once() {
        let all = read("claude_code_resumed.jsonl", ImportFormat::Transcripts);
        assert_eq!(
            all[0].turns,
            turns(&[
                (true, "Use pnpm in this repo, never npm."),
                (false, "Noted, I'll use pnpm for installs and scripts here."),
                (true, "And Node 22 is the minimum we support."),
                (false, "Understood: Node 22 or newer."),
            ])
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
