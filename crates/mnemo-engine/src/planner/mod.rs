//! The planner: extraction and remember for models that do not call tools well.
//! One bounded side query per job, its answer held to a JSON schema (llama.cpp turns the
//! schema into a grammar, OpenAI and vLLM honour it, others step down — see
//! `mnemo_llm::Client::json`), returns patches `{source, type, topic, fact, why?, how_to_apply?}`.
//! [`check`] keeps those a user message holds; Mnemo then writes the files itself — its own
//! topic files and entry format — through the memory tools' checks (secret gate, pinned,
//! forgotten, supersede, review mode), journaled and undoable like any run.

pub mod check;
pub mod choice;
pub mod corrections;
pub mod probe;

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use mnemo_core::MemoryType;
use mnemo_llm::{CancellationToken, ChatRequest, Client, LlmError, Message, Role};
use mnemo_store::format::TopicFile;
use mnemo_store::index::DocSummary;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use check::{Dropped, Kept, Said, check, fact_key, one_line};

use crate::tools::MemoryTools;

/// Output tokens allowed for one plan.
pub const PLAN_MAX_TOKENS: u32 = 768;
/// Time allowed for one plan (the one retry included): within extraction's 120 s.
pub const PLAN_TIMEOUT: Duration = Duration::from_secs(110);
/// Most patches one plan may carry.
pub const MAX_PATCHES: usize = 12;
/// Most messages of a conversation one plan reads (the newest).
pub const MAX_MESSAGES: usize = 24;
/// Most characters of one message the plan reads.
pub const MAX_MESSAGE_CHARS: usize = 2_000;

/// One memory the model proposes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Patch {
    /// The number of the user message it comes from (as the model saw them, from 1).
    #[serde(default)]
    pub source: i64,
    /// `user`, `feedback`, `project` or `reference`.
    #[serde(default)]
    pub r#type: String,
    /// A short title: the topic file it belongs in.
    #[serde(default)]
    pub topic: String,
    /// The fact, in the user's words and language.
    #[serde(default)]
    pub fact: String,
    /// Why (feedback and project).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// How to apply it (feedback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub how_to_apply: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Plan {
    #[serde(default)]
    memories: Vec<Patch>,
}

/// The schema the answer is held to.
#[must_use]
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "memories": {
                "type": "array",
                "maxItems": MAX_PATCHES,
                "items": {
                    "type": "object",
                    "properties": {
                        "source": {"type": "integer", "minimum": 1},
                        "fact": {"type": "string", "maxLength": 300},
                        "type": {"type": "string", "enum": ["user", "feedback", "project", "reference"]},
                        "topic": {"type": "string", "maxLength": 60},
                        "why": {"type": "string", "maxLength": 200},
                        "how_to_apply": {"type": "string", "maxLength": 200}
                    },
                    "required": ["source", "fact", "type", "topic"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["memories"],
        "additionalProperties": false
    })
}

const SYSTEM: &str = "You pick out facts worth remembering about the user from a conversation, for future conversations with them.\n\
Save only what the USER says. Copy each fact word for word from the user's message: the clause that says it, in the language they wrote. Never translate it, never rewrite it, never add to it. \"source\" is the number of the message it comes from.\n\
Then give the fact its type, asking in this order and taking the first that fits:\n\
1. \"reference\": does it say where something is kept or where things go: a tracker, board, dashboard, channel, document, folder, link? Example: \"alerts go to the #ops channel\".\n\
2. \"feedback\": is it a standing wish for how the assistant should answer from now on: length, language, units, format, code style, things to stop or keep doing? Example: \"please keep answers short\". A one-time request (\"explain X\", \"tell me a joke\") is not a fact at all.\n\
3. \"project\": is it about work in progress: a goal, decision, deadline, launch, who does what? Example: \"the launch is on March 3\".\n\
4. \"user\": otherwise, about the user themselves: name, job, city, family, pets, health, allergies, diet, languages, hobbies, the tools they use. Example: \"I'm a nurse in Porto\".\n\
\"topic\" is a title of one to three words for what the fact is about, in the fact's language.\n\
Never save general knowledge, answers to questions, anything the assistant said, small talk, code, or what the user is doing right now. When a later message corrects or updates an earlier fact (a move, a new job, a changed plan), save only the new fact and never the old one.\n\
If nothing is worth saving, answer {\"memories\": []}.\n\
\n\
Example.\n\
[1] user: I'm Tom, I teach maths in Leeds. What's 12 times 13?\n\
Answer: {\"memories\": [{\"source\": 1, \"fact\": \"I teach maths in Leeds\", \"type\": \"user\", \"topic\": \"Job\"}]}\n\
\n\
Example.\n\
[1] user: 我叫李娜，在杭州做后端开发。回答请用中文，简短一点。我们的需求都记在 Jira 里。\n\
Answer: {\"memories\": [{\"source\": 1, \"fact\": \"在杭州做后端开发\", \"type\": \"user\", \"topic\": \"职业\"}, {\"source\": 1, \"fact\": \"回答请用中文，简短一点\", \"type\": \"feedback\", \"topic\": \"回答方式\"}, {\"source\": 1, \"fact\": \"我们的需求都记在 Jira 里\", \"type\": \"reference\", \"topic\": \"需求\"}]}\n\
\n\
Example.\n\
[1] user: 저는 부산에 살고 새우 알레르기가 있어요. 오늘 저녁 메뉴 추천해 줘.\n\
Answer: {\"memories\": [{\"source\": 1, \"fact\": \"저는 부산에 살고\", \"type\": \"user\", \"topic\": \"거주지\"}, {\"source\": 1, \"fact\": \"새우 알레르기가 있어요\", \"type\": \"user\", \"topic\": \"알레르기\"}]}\n\
\n\
Example.\n\
[1] user: I live in Porto and work at a bank.\n\
[2] user: Actually I moved to Braga last month.\n\
Answer: {\"memories\": [{\"source\": 1, \"fact\": \"work at a bank\", \"type\": \"user\", \"topic\": \"Job\"}, {\"source\": 2, \"fact\": \"I moved to Braga last month\", \"type\": \"user\", \"topic\": \"Home\"}]}\n\
\n\
Example.\n\
[1] user: 什么是哈希表？\n\
[2] user: 谢谢！\n\
Answer: {\"memories\": []}";

/// The conversation as the planner reads it: what the user wrote — the assistant's replies are
/// left out, so a small model can neither cite nor copy them —, newest [`MAX_MESSAGES`], each cut
/// at [`MAX_MESSAGE_CHARS`], through the secret gate.
#[must_use]
pub fn said_of(messages: &[Message]) -> Vec<Said> {
    let all: Vec<Said> = messages
        .iter()
        .filter(|m| m.role == Role::User)
        .filter_map(|m| {
            let text = m.content.as_deref()?.trim();
            (!text.is_empty()).then(|| Said {
                user: m.role == Role::User,
                text: crate::secrets::redact(
                    &text.chars().take(MAX_MESSAGE_CHARS).collect::<String>(),
                )
                .0,
            })
        })
        .collect();
    let skip = all.len().saturating_sub(MAX_MESSAGES);
    all.into_iter().skip(skip).collect()
}

fn numbered(said: &[Said]) -> String {
    said.iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "[{}] {}: {}",
                i + 1,
                if s.user { "user" } else { "assistant" },
                s.text
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Ask the model for patches: one bounded call (plus one retry naming a problem), at
/// temperature 0, within [`PLAN_MAX_TOKENS`] and [`PLAN_TIMEOUT`]. `remember`: the user asked
/// to remember the message (it is worth saving by definition).
pub async fn ask(
    client: &Client,
    said: &[Said],
    remember: bool,
    cancel: &CancellationToken,
) -> Result<Vec<Patch>, LlmError> {
    let task = if remember {
        "The user asked you to remember what they wrote. Save it as one or more facts."
    } else {
        "Which facts in these messages of the user are worth remembering?"
    };
    let req = ChatRequest {
        model: None,
        messages: vec![
            Message::system(SYSTEM),
            Message::user(format!(
                "{task}\n\n{}\n\nAnswer with JSON only.",
                numbered(said)
            )),
        ],
        tools: Vec::new(),
        temperature: Some(0.0),
        max_tokens: Some(PLAN_MAX_TOKENS),
        response_format: None,
        timeout: Some(PLAN_TIMEOUT.min(Duration::from_secs(client.settings().timeout_secs.max(1)))),
    };
    let validate = |p: &Plan| {
        if p.memories.len() > MAX_PATCHES {
            Err(format!("at most {MAX_PATCHES} memories"))
        } else {
            Ok(())
        }
    };
    let schema = schema();
    let call = client.json::<Plan>(req, "memory_plan", &schema, validate, cancel);
    match tokio::time::timeout(PLAN_TIMEOUT, call).await {
        Ok(r) => r.map(|p| p.memories),
        Err(_) => Err(LlmError::Timeout(PLAN_TIMEOUT.as_secs())),
    }
}

/// Where a kept patch goes: the workspace's topic file of the same type whose name is the
/// topic, else a new `<type>_<topic>.md` (a number added when that name is taken).
#[must_use]
pub fn targets(kept: &[Kept], docs: &[DocSummary]) -> BTreeMap<String, Target> {
    let mut out: BTreeMap<String, Target> = BTreeMap::new();
    let taken: HashSet<&str> = docs.iter().map(|d| d.path.as_str()).collect();
    for k in kept {
        let topic = fitting_topic(&one_line(&k.patch.topic), &one_line(&k.patch.fact));
        let topic = if topic.is_empty() {
            k.memory_type.as_str().to_owned()
        } else {
            topic
        };
        let existing = docs.iter().find(|d| {
            d.valid
                && d.kind == mnemo_store::doc::DocKind::Topic
                && d.memory_type == Some(k.memory_type)
                && !d.pinned
                && !d.archived
                && fact_key(&d.name) == fact_key(&topic)
        });
        let path = if let Some(d) = existing {
            d.path.clone()
        } else if let Some((p, _)) = out
            .iter()
            .find(|(_, t)| t.memory_type == k.memory_type && fact_key(&t.name) == fact_key(&topic))
        {
            p.clone()
        } else {
            let base = format!("{}_{}", k.memory_type.as_str(), slug(&topic));
            let mut path = format!("{base}.md");
            let mut n = 2;
            while taken.contains(path.as_str()) || out.contains_key(&path) {
                path = format!("{base}-{n}.md");
                n += 1;
            }
            path
        };
        let t = out.entry(path).or_insert_with(|| Target {
            name: topic.clone(),
            memory_type: k.memory_type,
            entries: Vec::new(),
        });
        t.entries.push(entry_text(&k.patch));
    }
    out
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x9FFF | 0xF900..=0xFAFF)
}

fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF)
}

/// The topic, unless it is written in another script than its fact — a small model copies its
/// prompt's example titles ("回答方式" over "please keep answers short", "天气" over a Korean
/// fact) —; then the fact's first words name it.
#[must_use]
pub fn fitting_topic(topic: &str, fact: &str) -> String {
    let script = |t: &str| {
        (
            t.chars().any(|c| is_cjk(c) || is_hangul(c)),
            t.chars().any(is_hangul),
        )
    };
    let ((fact_cjk, fact_ko), (topic_cjk, topic_ko)) = (script(fact), script(topic));
    if topic.is_empty() || (fact_cjk == topic_cjk && (!fact_ko || topic_ko)) {
        return topic.to_owned();
    }
    let name: String = if fact_cjk && !fact.contains(' ') {
        fact.chars().take(10).collect()
    } else {
        fact.split_whitespace()
            .take(4)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let name = name.trim_end_matches(|c: char| !c.is_alphanumeric());
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// A file the planner writes: its name and type when new, and the entries it gains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The topic (the name of a new file).
    pub name: String,
    /// Its type.
    pub memory_type: MemoryType,
    /// Entries to add, in order.
    pub entries: Vec<String>,
}

fn entry_text(p: &Patch) -> String {
    let mut e = one_line(&p.fact);
    for (label, v) in [("Why", &p.why), ("How to apply", &p.how_to_apply)] {
        if let Some(v) = v.as_deref().map(one_line).filter(|v| !v.is_empty()) {
            e.push_str(&format!("\n{label}: {v}"));
        }
    }
    e
}

/// A file-name part from a topic: letters and digits of any script, `-` between words, at most
/// 40 characters; `notes` when nothing is left.
#[must_use]
pub fn slug(topic: &str) -> String {
    let folded = mnemo_store::tokenize::fold(topic);
    let mut s = String::new();
    for c in folded.chars() {
        if c.is_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    let s: String = s.trim_matches('-').chars().take(40).collect();
    let s = s.trim_end_matches('-').to_owned();
    if s.is_empty() { "notes".to_owned() } else { s }
}

/// The new text of a target file: its entries added after what is there (`None`: a new file
/// with frontmatter naming the topic, its first fact as the description).
pub fn render(current: Option<&str>, t: &Target) -> mnemo_core::Result<String> {
    let added = t.entries.join("\n\n");
    match current {
        Some(text) => {
            let mut file = TopicFile::parse(text);
            let body = file.body().trim_end();
            let body = if body.trim().is_empty() {
                added
            } else {
                format!("{body}\n\n{added}")
            };
            file.set_body(&format!("{body}\n"));
            Ok(file.render())
        }
        None => {
            let first = t
                .entries
                .first()
                .map_or("", |e| e.lines().next().unwrap_or(""));
            let description: String = first.chars().take(150).collect();
            Ok(
                TopicFile::new(&t.name, &description, t.memory_type, &format!("{added}\n"))?
                    .render(),
            )
        }
    }
}

/// What a planner run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// Patches the model proposed.
    pub proposed: usize,
    /// Facts written.
    pub written: usize,
    /// Patches not written, with the reason (the checks, or the write's own refusal).
    pub dropped: Vec<Dropped>,
}

/// Check the patches and write what passes through `tools` (so every guard of an agent's
/// write applies: secrets, pinned, forgotten, supersede, review mode).
pub fn apply(
    tools: &mut MemoryTools<'_>,
    docs: &[DocSummary],
    existing: &HashSet<String>,
    said: &[Said],
    patches: &[Patch],
) -> Applied {
    let (kept, dropped) = check(patches, said, existing);
    write(tools, docs, &kept, dropped, patches.len())
}

/// Write checked facts through `tools`; a refused write adds its facts to `dropped`.
pub fn write(
    tools: &mut MemoryTools<'_>,
    docs: &[DocSummary],
    kept: &[Kept],
    mut dropped: Vec<Dropped>,
    proposed: usize,
) -> Applied {
    let mut written = 0;
    for (path, target) in targets(kept, docs) {
        let out = tools.write_from(&path, |cur| render(cur, &target));
        if out.ok {
            written += target.entries.len();
        } else {
            for e in &target.entries {
                dropped.push(Dropped {
                    fact: e.lines().next().unwrap_or("").chars().take(200).collect(),
                    reason: format!("writing {path} was refused: {}", out.text),
                });
            }
        }
    }
    Applied {
        proposed,
        written,
        dropped,
    }
}

/// Most topic files whose entries a plan is compared with (the newest).
pub const MAX_COMPARED_FILES: usize = 400;

/// One planner job within `within` (and [`PLAN_TIMEOUT`]): ask, check, take out what a later
/// message corrected ([`corrections`]), write (through `tools`,
/// which carries the run's origin and change group). `Err` when the model could not be asked,
/// did not answer in time or answered unusably; then nothing was written.
#[allow(clippy::too_many_arguments)]
pub async fn run(
    vault: &mnemo_store::Vault,
    client: &Client,
    tools: &mut MemoryTools<'_>,
    workspace: &str,
    said: &[Said],
    remember: bool,
    within: Duration,
    cancel: &CancellationToken,
) -> Result<Applied, LlmError> {
    if !said.iter().any(|s| s.user) {
        return Ok(Applied::default());
    }
    let started = std::time::Instant::now();
    let within = within.min(PLAN_TIMEOUT);
    let patches = match tokio::time::timeout(within, ask(client, said, remember, cancel)).await {
        Ok(r) => r?,
        Err(_) => return Err(LlmError::Timeout(within.as_secs())),
    };
    let mut docs = vault
        .list_indexed(Some(workspace), None)
        .unwrap_or_default();
    docs.retain(|d| d.kind == mnemo_store::doc::DocKind::Topic);
    docs.sort_by(|a, b| b.mtime.cmp(&a.mtime));
    let existing = existing_keys(
        docs.iter()
            .take(MAX_COMPARED_FILES)
            .filter_map(|d| vault.get(workspace, &d.path).ok().map(|x| x.body)),
    );
    let (mut kept, mut dropped) = check(&patches, said, &existing);
    let left = within.saturating_sub(started.elapsed());
    corrections::apply(client, &mut kept, said, &mut dropped, left, cancel).await;
    Ok(write(tools, &docs, &kept, dropped, patches.len()))
}

/// Every entry summary saved in a workspace's topic docs, as [`fact_key`]s (what a patch must
/// not repeat).
#[must_use]
pub fn existing_keys(details: impl IntoIterator<Item = String>) -> HashSet<String> {
    details
        .into_iter()
        .flat_map(|body| {
            mnemo_store::format::entries(&body)
                .into_iter()
                .map(|e| fact_key(&e.summary))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(ty: MemoryType, topic: &str, fact: &str) -> Kept {
        Kept {
            patch: Patch {
                source: 1,
                r#type: ty.as_str().to_owned(),
                topic: topic.to_owned(),
                fact: fact.to_owned(),
                why: None,
                how_to_apply: Some("Any snack or recipe".to_owned()),
            },
            memory_type: ty,
            source: 1,
        }
    }

    #[test]
    fn a_title_in_another_script_than_its_fact_gives_way_to_the_facts_words() {
        assert_eq!(
            fitting_topic("回答方式", "please keep answers short"),
            "Please keep answers short"
        );
        assert_eq!(
            fitting_topic("天气", "날씨는 대전 기준으로 알려 주세요"),
            "날씨는 대전 기준으로 알려"
        );
        assert_eq!(fitting_topic("Job", "在杭州做后端开发"), "在杭州做后端开发");
        assert_eq!(
            fitting_topic("Allergy", "I'm allergic to peanuts"),
            "Allergy"
        );
        assert_eq!(fitting_topic("健康", "そばアレルギーがあります"), "健康");
        assert_eq!(
            fitting_topic("알레르기", "새우 알레르기가 있어요"),
            "알레르기"
        );
        assert_eq!(fitting_topic("", "anything"), "");
    }

    #[test]
    fn slugs_keep_letters_of_any_script() {
        assert_eq!(slug("Food allergies!"), "food-allergies");
        assert_eq!(slug("住址 / 上海"), "住址-上海");
        assert_eq!(slug("  ...  "), "notes");
        assert!(slug(&"x".repeat(99)).chars().count() <= 40);
    }

    #[test]
    fn patches_of_one_topic_share_a_file_and_taken_names_get_a_number() {
        let ks = [
            kept(MemoryType::User, "Health", "Allergic to peanuts"),
            kept(MemoryType::User, "health", "Allergic to shellfish"),
            kept(MemoryType::Feedback, "Health", "Keep health advice short"),
        ];
        let t = targets(&ks, &[]);
        let paths: Vec<&str> = t.keys().map(String::as_str).collect();
        assert_eq!(paths, ["feedback_health.md", "user_health.md"]);
        assert_eq!(t["user_health.md"].entries.len(), 2);
        let text = render(None, &t["user_health.md"]).unwrap();
        assert_eq!(
            text,
            "---\nname: Health\ndescription: Allergic to peanuts\ntype: user\n---\nAllergic to peanuts\nHow to apply: Any snack or recipe\n\nAllergic to shellfish\nHow to apply: Any snack or recipe\n"
        );
        let again = render(
            Some(&text),
            &Target {
                entries: vec!["Avoids gluten".into()],
                ..t["user_health.md"].clone()
            },
        )
        .unwrap();
        assert!(
            again.ends_with(
                "Allergic to shellfish\nHow to apply: Any snack or recipe\n\nAvoids gluten\n"
            ),
            "{again}"
        );
        assert_eq!(TopicFile::parse(&again).entries().len(), 3);
    }
}
