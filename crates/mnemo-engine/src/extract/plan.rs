//! The pure half of extraction: which messages a run reads (or why it is skipped), which
//! entries a run's writes keep, and what it says when it saved nothing. No IO.

use std::collections::HashSet;

use mnemo_core::MemoryType;
use mnemo_llm::{Message, Role};
use mnemo_store::format::{self, TopicFile};

use super::{ExtractRequest, MIN_FACT_WIDTH};
use crate::planner::Applied;

/// What a run will do, decided before any model call or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan<'m> {
    /// Nothing to read: the run is skipped; the messages up to `upto` count as handled.
    Skip {
        /// Why, for the task.
        why: &'static str,
        /// Messages covered.
        upto: u32,
    },
    /// Read `slice` (the messages after the session's mark); the run covers those up to `upto`.
    Read {
        /// The unprocessed messages.
        slice: &'m [Message],
        /// Messages covered once the run completes.
        upto: u32,
    },
}

/// Plan a run: the unprocessed slice is everything after `from` (all of it for a new session);
/// a turn whose chat agent already wrote memory is skipped (not for an import), and so is a
/// slice with nothing said in it.
#[must_use]
pub fn plan<'m>(req: &ExtractRequest<'m>) -> Plan<'m> {
    let messages = req.messages;
    let slice = &messages[req.from.min(messages.len())..];
    let upto = u32::try_from(messages.len()).unwrap_or(u32::MAX);
    if req.chat_wrote_memory && !req.imported {
        return Plan::Skip {
            why: "the chat agent already wrote memory this turn",
            upto,
        };
    }
    if transcript_text(slice).trim().is_empty() {
        return Plan::Skip {
            why: "nothing new in the transcript",
            upto,
        };
    }
    Plan::Read { slice, upto }
}

/// What the post-filter does with one file a run wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refine {
    /// Every entry holds: the file stays as the run left it.
    Keep,
    /// Some entries go: the file's body becomes this.
    Rewrite(String),
    /// The run created the file and none of its entries holds: the file goes.
    Remove,
}

/// The post-filter for one file: `body` as the run left it, `original` the file's text before
/// the run (`None`: the run created it). Entries that were there before always stay; weak ones
/// and repeats (`seen` carries keys across the run's files) go.
pub fn refine(
    body: &str,
    memory_type: Option<MemoryType>,
    original: Option<&str>,
    seen: &mut HashSet<String>,
) -> Refine {
    let existing: HashSet<String> = original
        .map(|t| {
            TopicFile::parse(t)
                .entries()
                .iter()
                .map(|e| e.summary.trim().to_lowercase())
                .collect()
        })
        .unwrap_or_default();
    match filter_body(body, memory_type, &existing, seen) {
        None => Refine::Keep,
        Some(b) if b.trim().is_empty() && original.is_none() => Refine::Remove,
        Some(b) => Refine::Rewrite(b),
    }
}

/// Said plainly when a run saved nothing: why (`detail`, the road's own reason), else what the
/// planner proposed and why none held up, else that nothing was worth saving.
#[must_use]
pub fn nothing_written(detail: Option<String>, planned: Option<&Applied>) -> String {
    match (detail, planned) {
        (Some(why), _) => format!("nothing written: {why}"),
        (None, Some(a)) if a.proposed > 0 => format!(
            "nothing written: the model proposed {} fact(s) and none held up ({})",
            a.proposed,
            a.dropped.first().map_or("", |d| d.reason.as_str())
        ),
        (None, _) => "nothing written: the model found nothing worth saving".to_owned(),
    }
}

/// The extraction agent's task: where the messages come from, then the messages.
pub(super) fn task_text(imported: bool, slice: &[Message]) -> String {
    format!(
        "{}:\n\n{}",
        if imported {
            "A past conversation of the user's, imported from another assistant"
        } else {
            "New conversation since the last extraction"
        },
        transcript_text(slice)
    )
}

const MOMENT_WORDS: &[&str] = &[
    "today",
    "now",
    "currently",
    "temporary",
    "temporarily",
    "this session",
    "right now",
];

/// How much a text says: letters and digits, a CJK character counting three (a Chinese fact
/// of four characters — "住在北京" — says as much as a short sentence); punctuation and spaces
/// count nothing. One measure for both roads (the planner's check and the agent's filter).
#[must_use]
pub fn fact_width(text: &str) -> usize {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .map(|c| {
            if mnemo_store::tokenize::is_cjk(c) {
                3
            } else {
                1
            }
        })
        .sum()
}

/// Whether an entry's summary is worth keeping: at least [`MIN_FACT_WIDTH`] (see
/// [`fact_width`]: "four spaces" and "住在上海浦东" are facts, "Likes tea" and "喜欢茶" are
/// not), not a question, not about the moment.
#[must_use]
pub fn keep_entry(summary: &str) -> bool {
    let s = summary.trim();
    let width = fact_width(s);
    if width < MIN_FACT_WIDTH || s.ends_with('?') || s.ends_with('？') {
        return false;
    }
    let lower = s.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    !MOMENT_WORDS.iter().any(|m| {
        let parts: Vec<&str> = m.split(' ').collect();
        words.windows(parts.len()).any(|w| w == parts.as_slice())
    })
}

/// Filter the entries a run added to a body: weak ones and repeats of the same `type:summary`
/// go (`seen` carries keys across files). Entries that were already in the file (`existing`,
/// case-folded summaries) are always kept — extraction never removes what it did not write.
/// Returns the new body, or `None` when nothing changed.
pub fn filter_body(
    body: &str,
    memory_type: Option<MemoryType>,
    existing: &HashSet<String>,
    seen: &mut HashSet<String>,
) -> Option<String> {
    let entries = format::entries(body);
    let mut kept = Vec::new();
    for e in &entries {
        let summary = e.summary.trim().to_lowercase();
        let key = format!("{}:{summary}", memory_type.map_or("", MemoryType::as_str));
        if existing.contains(&summary) {
            seen.insert(key);
            kept.push(e.text.clone());
        } else if keep_entry(&e.summary) && seen.insert(key) {
            kept.push(e.text.clone());
        }
    }
    if kept.len() == entries.len() {
        return None;
    }
    Some(kept.join("\n\n"))
}

pub(super) fn system_prompt(manifest: &str) -> String {
    format!(
        "You maintain a user's long-term memory as markdown files in a memory folder, using only your tools.\n\
         Save what will matter in future conversations: who the user is (type user), how they want you to work — \
         corrections and confirmed approaches (feedback), goals, decisions and deadlines not derivable from code (project), \
         pointers to external systems (reference). Do not save code conventions, git history, debugging recipes, \
         temporary task state, questions, or anything about the current moment.\n\
         Each topic file has frontmatter:\n---\nname: <short title>\ndescription: <one specific line>\ntype: <user|feedback|project|reference>\n---\n\
         followed by entries separated by blank lines: a summary line, then optional `Why:` and `How to apply:` lines.\n\
         Update an existing file rather than duplicating it. If nothing is worth saving, write nothing. \
         Finish with one short sentence saying what you saved.\n\nExisting memories:\n{}",
        if manifest.trim().is_empty() {
            "(none yet)"
        } else {
            manifest
        }
    )
}

fn transcript_text(slice: &[Message]) -> String {
    slice
        .iter()
        .filter(|m| matches!(m.role, Role::User | Role::Assistant))
        .filter_map(|m| {
            m.content.as_deref().map(|c| {
                format!(
                    "{}: {c}",
                    if m.role == Role::User {
                        "User"
                    } else {
                        "Assistant"
                    }
                )
            })
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use mnemo_core::ChangeSource;

    use super::*;

    fn req(
        messages: &[Message],
        from: usize,
        chat_wrote: bool,
        imported: bool,
    ) -> ExtractRequest<'_> {
        ExtractRequest {
            workspace: "w",
            session_id: "s1",
            messages,
            from,
            chat_wrote_memory: chat_wrote,
            origin: ChangeSource::Extract.into(),
            imported,
        }
    }

    #[test]
    fn the_mark_selects_the_unprocessed_slice() {
        let msgs: Vec<Message> = (0..5).map(|i| Message::user(format!("m{i}"))).collect();
        let Plan::Read { slice, upto } = plan(&req(&msgs, 3, false, false)) else {
            panic!("two new messages are read");
        };
        assert_eq!((slice.len(), upto), (2, 5));
        let Plan::Read { slice, .. } = plan(&req(&msgs, 0, false, false)) else {
            panic!("a new session reads everything");
        };
        assert_eq!(slice.len(), 5);
        assert_eq!(
            plan(&req(&msgs, 99, false, false)),
            Plan::Skip {
                why: "nothing new in the transcript",
                upto: 5
            },
            "a mark beyond the end reads nothing"
        );
    }

    #[test]
    fn a_turn_the_chat_agent_wrote_is_skipped_but_not_an_import() {
        let msgs = [Message::user("I deploy on Tuesdays.")];
        assert!(matches!(
            plan(&req(&msgs, 0, true, false)),
            Plan::Skip { upto: 1, .. }
        ));
        assert!(matches!(
            plan(&req(&msgs, 0, true, true)),
            Plan::Read { upto: 1, .. }
        ));
    }

    #[test]
    fn refine_keeps_removes_or_rewrites() {
        let mut seen = HashSet::new();
        assert_eq!(
            refine(
                "Prefers terse answers without recaps.\n",
                Some(MemoryType::Feedback),
                None,
                &mut seen
            ),
            Refine::Keep
        );
        assert_eq!(
            refine("Likes tea\n", Some(MemoryType::User), None, &mut seen),
            Refine::Remove,
            "a file the run created with nothing worth keeping goes"
        );
        let before = "---\nname: Tools\ndescription: d\ntype: user\n---\nLikes tea\n";
        assert_eq!(
            refine(
                "Likes tea\n\nIs currently on holiday\n",
                Some(MemoryType::User),
                Some(before),
                &mut seen
            ),
            Refine::Rewrite("Likes tea".to_owned()),
            "what was there stays, even when weak"
        );
    }

    #[test]
    fn nothing_written_says_why() {
        assert_eq!(
            nothing_written(Some("the model failed: 503".into()), None),
            "nothing written: the model failed: 503"
        );
        assert_eq!(
            nothing_written(None, None),
            "nothing written: the model found nothing worth saving"
        );
    }

    #[test]
    fn weak_entries_are_dropped() {
        assert!(keep_entry("Prefers terse answers without recaps."));
        assert!(!keep_entry("Likes tea"), "says less than ten letters");
        assert!(keep_entry("Four spaces"), "ten letters are a fact");
        assert!(keep_entry("住在上海浦东"), "six CJK characters say enough");
        assert!(!keep_entry("喜欢茶"));
        assert!(!keep_entry("Should we deploy on Friday?"));
        assert!(!keep_entry("Is currently debugging the login flow"));
        assert!(!keep_entry("Working on a temporary branch for the demo"));
        assert!(!keep_entry("In this session we renamed the module"));
        assert!(!keep_entry("Right now the build is red on main"));
        assert!(
            keep_entry("Knows Kubernetes well; nowhere near a beginner"),
            "`now` inside another word is fine"
        );
    }

    #[test]
    fn entries_that_were_already_there_are_never_filtered() {
        let existing: HashSet<String> = ["## tools".to_owned(), "uses vim".to_owned()]
            .into_iter()
            .collect();
        let body = "## Tools\n\nUses vim\n\nIs currently on holiday\n";
        let out =
            filter_body(body, Some(MemoryType::User), &existing, &mut HashSet::new()).unwrap();
        assert_eq!(out, "## Tools\n\nUses vim");
    }

    #[test]
    fn filter_body_drops_weak_and_repeated_entries() {
        let mut seen = HashSet::new();
        let body = "Prefers terse answers without recaps.\nWhy: reads diffs.\n\nShort\n\nprefers terse answers without recaps.\n\nUses Neovim with LSP for all editing.\n";
        let none = HashSet::new();
        let out = filter_body(body, Some(MemoryType::Feedback), &none, &mut seen).unwrap();
        assert_eq!(
            out,
            "Prefers terse answers without recaps.\nWhy: reads diffs.\n\nUses Neovim with LSP for all editing."
        );
        // Across files: the same type:summary is a repeat.
        let again = filter_body(
            "Uses Neovim with LSP for all editing.\n",
            Some(MemoryType::Feedback),
            &none,
            &mut seen,
        )
        .unwrap();
        assert_eq!(again, "");
        // Another type keeps it.
        assert_eq!(
            filter_body(
                "Uses Neovim with LSP for all editing.\n",
                Some(MemoryType::User),
                &none,
                &mut seen
            ),
            None
        );
    }
}
