//! The dream for models that do not drive the tool agent. Mnemo lists every entry of the
//! workspace's topic files ([`list`]: pinned and invalid files never), pairs those of one type
//! that share what they are about ([`candidates`]: a content word), and asks the model about
//! each pair in one short side query held to a JSON schema: the same fact in other words, a
//! newer fact that replaces the older, or different things — with its reason first. A 1.5B
//! model cannot compare sixty memories at once (asked to, it answers "nothing to do"), but it
//! judges a pair well. The answers make a plan naming the entry ids it touches ([`Proposal`]),
//! checked as the mechanical pass is ([`check`], pure): an entry is dropped only when the entry
//! it merges into is kept, of the same type, shares a content word, and a reason is given.
//! Replacements and prunes are reported as suggestions, never applied: which of two facts is
//! newer is not something a small model can be trusted to know. The checked plan becomes a
//! [`Plan`] ([`to_plan`]) and is carried out as the mechanical one, journaled in the dream's
//! group and undoable.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Duration;

use mnemo_core::MemoryType;
use mnemo_llm::{CancellationToken, ChatRequest, Client, LlmError, Message};
use mnemo_store::doc;
use mnemo_store::dream_report::DreamMerge;
use mnemo_store::format::TopicFile;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Snapshot;
use super::mechanical::{FileChange, Plan};

/// Entries one plan reads at most (the first by path; the rest wait for the next dream).
pub const MAX_ENTRIES: usize = 60;
/// Characters of an entry's summary the model reads.
const MAX_SUMMARY_CHARS: usize = 200;
/// Pairs asked about in one dream at most (the most alike first).
pub const MAX_PAIRS: usize = 12;
/// Output tokens for one verdict.
const PAIR_MAX_TOKENS: u32 = 120;
/// Time allowed for one verdict.
const PAIR_TIMEOUT: Duration = Duration::from_secs(60);

/// One entry as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// `E1`, `E2`, … in the order shown.
    pub id: String,
    /// Its file.
    pub path: String,
    /// Its 1-based position in the file.
    pub index: usize,
    /// Its first line.
    pub summary: String,
    /// Its file's type.
    pub memory_type: Option<MemoryType>,
}

/// Entries of the valid, unpinned topic files in `snap`, by path then position.
#[must_use]
pub fn list(snap: &Snapshot) -> Vec<Listed> {
    let mut out = Vec::new();
    for (path, bytes) in snap {
        if doc::doc_kind(path) != Some(doc::DocKind::Topic) {
            continue;
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        if doc::is_pinned(path, text) {
            continue;
        }
        let file = TopicFile::parse(text);
        if file.problem.is_some() {
            continue;
        }
        for e in file.entries() {
            if out.len() == MAX_ENTRIES {
                return out;
            }
            out.push(Listed {
                id: format!("E{}", out.len() + 1),
                path: path.clone(),
                index: e.index,
                summary: e.summary.chars().take(MAX_SUMMARY_CHARS).collect(),
                memory_type: file.memory_type(),
            });
        }
    }
    out
}

/// What the model proposes.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Proposal`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Proposal {
    /// Entries that say the same thing.
    #[serde(default)]
    pub merges: Vec<Merge>,
    /// A newer entry that replaces an older one.
    #[serde(default)]
    pub contradictions: Vec<Contradiction>,
    /// Entries no longer worth keeping.
    #[serde(default)]
    pub prunes: Vec<Prune>,
}

/// `drop` says what `keep` says.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Merge {
    /// The entry kept.
    pub keep: String,
    /// The entry that goes.
    pub drop: String,
    /// Why they are the same.
    #[serde(default)]
    pub why: String,
}

/// `newer` replaces `older`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Contradiction {
    /// The entry that goes.
    pub older: String,
    /// The entry kept.
    pub newer: String,
    /// What changed.
    #[serde(default)]
    pub why: String,
}

/// `id` is no longer worth keeping.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Prune {
    /// The entry.
    pub id: String,
    /// Why.
    #[serde(default)]
    pub why: String,
}

/// The schema of one verdict (the reason before the verdict: a small model decides better
/// after it has said why).
#[must_use]
pub fn schema() -> Value {
    json!({"type": "object", "properties": {
        "why": {"type": "string", "maxLength": 160},
        "relation": {"type": "string", "enum": ["same", "replaces", "different"]}},
        "required": ["why", "relation"], "additionalProperties": false})
}

const SYSTEM: &str = "You compare two memories saved about the same person. Answer with JSON: \
    \"why\" first, a short reason; then \"relation\": \"same\" when they say the same fact in other \
    words, \"replaces\" when B is newer news that makes A no longer true, \"different\" when they \
    are about different things or both can be true.";

/// The model's verdict on one pair.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Verdict {
    /// Its reason.
    #[serde(default)]
    pub why: String,
    /// `same`, `replaces` or `different`.
    pub relation: String,
}

/// The entries as a person reads them (one per line: id, type, summary).
#[must_use]
pub fn numbered(listed: &[Listed]) -> String {
    listed
        .iter()
        .map(|l| {
            format!(
                "{} ({}): {}",
                l.id,
                l.memory_type.map_or("memory", MemoryType::as_str),
                l.summary
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Pairs worth asking about: entries of one type, in different places, that share a content
/// word — the most alike (by shared words over all words) first, at most [`MAX_PAIRS`].
#[must_use]
pub fn candidates(listed: &[Listed]) -> Vec<(usize, usize)> {
    let words: Vec<HashSet<String>> = listed.iter().map(|l| content_words(&l.summary)).collect();
    let mut pairs: Vec<(usize, usize, f64)> = Vec::new();
    for a in 0..listed.len() {
        for b in a + 1..listed.len() {
            if listed[a].memory_type != listed[b].memory_type {
                continue;
            }
            let shared = words[a].intersection(&words[b]).count();
            if shared == 0 {
                continue;
            }
            #[allow(clippy::cast_precision_loss)]
            let score = shared as f64 / words[a].union(&words[b]).count().max(1) as f64;
            pairs.push((a, b, score));
        }
    }
    pairs.sort_by(|x, y| y.2.total_cmp(&x.2).then((x.0, x.1).cmp(&(y.0, y.1))));
    pairs.truncate(MAX_PAIRS);
    pairs.into_iter().map(|(a, b, _)| (a, b)).collect()
}

/// Ask the model about each candidate pair and gather its answers as a plan: `same` → merge the
/// second into the first, `replaces` → a replacement (suggested only, see [`check`]). A pair
/// whose question fails is left alone; the first error is returned only when no pair was
/// answered.
///
/// # Errors
/// The model's error when it answered no pair.
pub async fn ask(
    client: &Client,
    listed: &[Listed],
    cancel: &CancellationToken,
) -> Result<Proposal, LlmError> {
    let mut out = Proposal::default();
    let mut first_error = None;
    let mut answered = 0;
    let schema = schema();
    for (a, b) in candidates(listed) {
        let (ea, eb) = (&listed[a], &listed[b]);
        let req = ChatRequest {
            messages: vec![
                Message::system(SYSTEM),
                Message::user(format!("A: {}\nB: {}", ea.summary, eb.summary)),
            ],
            temperature: Some(0.0),
            max_tokens: Some(PAIR_MAX_TOKENS),
            timeout: Some(
                PAIR_TIMEOUT.min(Duration::from_secs(client.settings().timeout_secs.max(1))),
            ),
            ..ChatRequest::default()
        };
        let call = client.json::<Verdict>(req, "memory_pair", &schema, |_| Ok(()), cancel);
        let verdict = match tokio::time::timeout(PAIR_TIMEOUT, call).await {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => {
                if e == LlmError::Cancelled {
                    return Err(e);
                }
                first_error.get_or_insert(e);
                continue;
            }
            Err(_) => {
                first_error.get_or_insert(LlmError::Timeout(PAIR_TIMEOUT.as_secs()));
                continue;
            }
        };
        answered += 1;
        match verdict.relation.trim() {
            "same" => out.merges.push(Merge {
                drop: eb.id.clone(),
                keep: ea.id.clone(),
                why: verdict.why,
            }),
            "replaces" => out.contradictions.push(Contradiction {
                older: ea.id.clone(),
                newer: eb.id.clone(),
                why: verdict.why,
            }),
            _ => {}
        }
    }
    match first_error {
        Some(e) if answered == 0 => Err(e),
        _ => Ok(out),
    }
}

/// One drop the plan may make: `gone` lives on in `kept`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drop {
    /// The entry removed.
    pub gone: Listed,
    /// The entry that keeps what it said (or replaces it).
    pub kept: Listed,
    /// `merge` (the only kind applied today).
    pub kind: &'static str,
    /// The model's reason.
    pub why: String,
}

/// What the check kept, and what it refused and why (in sentences).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checked {
    /// The drops to make.
    pub drops: Vec<Drop>,
    /// Proposals refused, each with the reason.
    pub refused: Vec<String>,
    /// Prunes suggested (never applied).
    pub suggested: Vec<String>,
}

/// Words that say what an entry is about (lower-cased, four letters or more, a few common
/// ones aside); CJK text counts each character pair.
fn content_words(s: &str) -> HashSet<String> {
    const COMMON: &[&str] = &[
        "user", "users", "that", "this", "with", "they", "their", "have", "from", "about",
        "always", "never", "likes", "would", "which", "when", "what", "your", "also", "been",
        "were",
    ];
    let lower = s.to_lowercase();
    let mut out: HashSet<String> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4 && !COMMON.contains(w))
        .map(|w| w.trim_end_matches('s').to_owned())
        .collect();
    let cjk: Vec<char> = lower
        .chars()
        .filter(|c| ('\u{3040}'..='\u{9fff}').contains(c) || ('\u{ac00}'..='\u{d7af}').contains(c))
        .collect();
    out.extend(cjk.windows(2).map(|w| w.iter().collect::<String>()));
    out
}

/// Check the model's plan against the entries it was shown.
#[must_use]
pub fn check(listed: &[Listed], p: &Proposal) -> Checked {
    let by_id: BTreeMap<&str, &Listed> = listed.iter().map(|l| (l.id.as_str(), l)).collect();
    let mut out = Checked::default();
    let mut gone: BTreeSet<String> = BTreeSet::new();
    let mut kept: BTreeSet<String> = BTreeSet::new();
    let pairs = p
        .merges
        .iter()
        .map(|m| ("merge", m.drop.as_str(), m.keep.as_str(), m.why.as_str()));
    for (kind, drop, keep, why) in pairs {
        let (Some(d), Some(k)) = (by_id.get(drop.trim()), by_id.get(keep.trim())) else {
            out.refused.push(format!(
                "a {kind} of {drop} and {keep}: no such memory was shown"
            ));
            continue;
        };
        let refuse = if d.id == k.id {
            Some("an entry cannot replace itself")
        } else if why.trim().is_empty() {
            Some("no reason was given")
        } else if d.memory_type != k.memory_type {
            Some("they are of different types")
        } else if content_words(&d.summary).is_disjoint(&content_words(&k.summary)) {
            Some("they share no word about what they say")
        } else if gone.contains(&k.id) {
            Some("the entry to keep is itself removed by this plan")
        } else if kept.contains(&d.id) || gone.contains(&d.id) {
            Some("the entry to remove is already kept or removed by this plan")
        } else {
            None
        };
        if let Some(r) = refuse {
            out.refused.push(format!(
                "a {kind} of \"{}\" into \"{}\" was not made: {r}",
                d.summary, k.summary
            ));
            continue;
        }
        gone.insert(d.id.clone());
        kept.insert(k.id.clone());
        out.drops.push(Drop {
            gone: (*d).clone(),
            kept: (*k).clone(),
            kind,
            why: crate::secrets::redact(why.trim()).0,
        });
    }
    for c in &p.contradictions {
        if let (Some(o), Some(n)) = (by_id.get(c.older.trim()), by_id.get(c.newer.trim())) {
            out.suggested.push(format!(
                "the model suggests \"{}\" ({}) may replace \"{}\" ({}){}; both were kept — forget the outdated one yourself if so",
                n.summary,
                n.path,
                o.summary,
                o.path,
                if c.why.trim().is_empty() {
                    String::new()
                } else {
                    format!(" ({})", crate::secrets::redact(c.why.trim()).0)
                }
            ));
        }
    }
    for pr in &p.prunes {
        if let Some(l) = by_id.get(pr.id.trim()) {
            out.suggested.push(format!(
                "the model suggests \"{}\" ({}) is no longer worth keeping{}; it was kept — forget it yourself if so",
                l.summary,
                l.path,
                if pr.why.trim().is_empty() {
                    String::new()
                } else {
                    format!(" ({})", crate::secrets::redact(pr.why.trim()).0)
                }
            ));
        }
    }
    out
}

/// The checked drops as a plan of file changes: each file rewritten without its dropped
/// entries (deleted when none is left), writes before deletes, with a reason naming where each
/// dropped entry lives on.
#[must_use]
pub fn to_plan(snap: &Snapshot, checked: &Checked) -> Plan {
    let mut by_file: BTreeMap<&str, Vec<&Drop>> = BTreeMap::new();
    for d in &checked.drops {
        by_file.entry(d.gone.path.as_str()).or_default().push(d);
    }
    let mut plan = Plan::default();
    let mut deletes = Vec::new();
    for (path, drops) in by_file {
        let Some(text) = snap.get(path).and_then(|b| std::str::from_utf8(b).ok()) else {
            continue;
        };
        let mut file = TopicFile::parse(text);
        let entries = file.entries();
        let out: BTreeSet<usize> = drops.iter().map(|d| d.gone.index).collect();
        let keep: Vec<&str> = entries
            .iter()
            .filter(|e| !out.contains(&e.index))
            .map(|e| e.text.as_str())
            .collect();
        let reasons: Vec<String> = drops
            .iter()
            .map(|d| {
                format!(
                    "\"{}\" ({}) {} \"{}\" ({}): {}",
                    d.gone.summary,
                    d.gone.path,
                    if d.kind == "merge" {
                        "merged into"
                    } else {
                        "replaced by the newer"
                    },
                    d.kept.summary,
                    d.kept.path,
                    d.why
                )
            })
            .collect();
        let new = if keep.is_empty() {
            None
        } else {
            file.set_body(&keep.join("\n\n"));
            Some(file.render())
        };
        let change = FileChange {
            path: path.to_owned(),
            entries_before: entries.len(),
            entries_after: keep.len(),
            memory_type: file.memory_type(),
            reason: if new.is_none() {
                format!("deleted {path}: {}", reasons.join("; "))
            } else {
                format!("rewrote {path}: {}", reasons.join("; "))
            },
            new,
        };
        if change.new.is_none() {
            deletes.push(change);
        } else {
            plan.changes.push(change);
        }
        plan.entries_merged += u32::try_from(drops.len()).unwrap_or(u32::MAX);
    }
    plan.changes.extend(deletes);
    for d in &checked.drops {
        plan.merges.push(DreamMerge {
            summary: d.kept.summary.clone(),
            into: d.kept.path.clone(),
            from: vec![d.gone.path.clone()],
        });
    }
    plan
}

#[cfg(test)]
mod tests;
