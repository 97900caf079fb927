//! The memory section of the system prompt: the rules, MEMORY.md, each
//! memory with its age ("today", "yesterday", "N days ago") and a point-in-time reminder, bodies
//! cut at [`MAX_BODY_CHARS`] with a note.

use chrono::{DateTime, NaiveDate, Utc};
use mnemo_core::MemoryType;

/// Longest body injected per memory, in characters.
pub const MAX_BODY_CHARS: usize = 1_200;

/// Age of a memory as the prompt states it (calendar days in UTC).
#[must_use]
pub fn age_text(mtime: &str, now: DateTime<Utc>) -> String {
    let day = |d: NaiveDate| d;
    let Ok(then) = DateTime::parse_from_rfc3339(mtime) else {
        return "at an unknown time".to_owned();
    };
    let days = (day(now.date_naive()) - day(then.with_timezone(&Utc).date_naive())).num_days();
    match days {
        i64::MIN..=0 => "today".to_owned(),
        1 => "yesterday".to_owned(),
        n => format!("{n} days ago"),
    }
}

/// One memory as the prompt shows it.
#[derive(Debug, Clone)]
pub struct PromptMemory<'a> {
    /// Path.
    pub path: &'a str,
    /// Name.
    pub name: &'a str,
    /// Type.
    pub memory_type: Option<MemoryType>,
    /// Age text.
    pub age: &'a str,
    /// Body (cut here when longer than [`MAX_BODY_CHARS`]).
    pub body: &'a str,
    /// The file holds a sync conflict not yet settled: its versions disagree.
    pub conflict: bool,
}

/// What the model is told under a memory whose versions disagree (an open sync conflict).
pub const CONFLICT_NOTE: &str = "Two versions of this memory disagree (a sync conflict the user \
     has not settled yet): do not treat either as certain; if it matters, ask the user which is \
     true.";

/// Cut a body at [`MAX_BODY_CHARS`] characters, with a note naming how much was left out.
#[must_use]
pub fn cut_body(body: &str, path: &str) -> String {
    cut_body_to(body, path, MAX_BODY_CHARS)
}

/// Cut a body at `max_chars` characters, with a note naming how much was left out.
#[must_use]
pub fn cut_body_to(body: &str, path: &str, max_chars: usize) -> String {
    let body = body.trim();
    let total = body.chars().count();
    if total <= max_chars {
        return body.to_owned();
    }
    let kept: String = body.chars().take(max_chars).collect();
    format!(
        "{kept}…\n[cut: {} more characters in {path}; read the file for the rest]",
        total - max_chars
    )
}

/// The memory section of the system prompt.
#[must_use]
pub fn build_prompt(memories: &[PromptMemory<'_>], memory_md: &str) -> String {
    build_block(memories, &[], memory_md, MAX_BODY_CHARS, &[])
}

fn push_memory(p: &mut String, m: &PromptMemory<'_>, max_chars: usize) {
    let ty = m.memory_type.map_or("memory", MemoryType::as_str);
    p.push_str(&format!(
        "\n### {} ({ty}, {}) — saved {}\n",
        m.name, m.path, m.age
    ));
    if m.conflict {
        p.push_str(CONFLICT_NOTE);
        p.push('\n');
    }
    if m.age != "today" {
        p.push_str(&format!(
            "This is a point-in-time observation from {}; things may have changed since.\n",
            m.age
        ));
    }
    p.push_str(&cut_body_to(m.body, m.path, max_chars));
    p.push('\n');
}

/// The memory block with everything it may hold: the rules, the index, the memories recalled
/// for this message, those recalled earlier in the conversation (`carried`, kept in view), each
/// body cut at `max_chars`, and a closing line for each thing cut to fit (`cuts`).
#[must_use]
pub fn build_block(
    memories: &[PromptMemory<'_>],
    carried: &[PromptMemory<'_>],
    memory_md: &str,
    max_chars: usize,
    cuts: &[String],
) -> String {
    let mut p = String::from(
        "# Memory\n\
         You have a persistent, file-based memory of earlier conversations with this user.\n\n\
         ## Before recommending from memory\n\
         A memory that names a file, function, flag or command is a claim about the past, not a fact about now: \
         check that it still exists before you recommend it.\n\n\
         ## If the user says to ignore memory\n\
         Proceed as if memory were empty, and never mention it.\n",
    );
    if !memory_md.trim().is_empty() {
        p.push_str("\n## Index (MEMORY.md)\n");
        p.push_str(memory_md.trim_end());
        p.push('\n');
    }
    if !memories.is_empty() {
        p.push_str("\n## Memories relevant to this message\n");
        for m in memories {
            push_memory(&mut p, m, max_chars);
        }
    }
    if !carried.is_empty() {
        p.push_str("\n## Memories recalled earlier in this conversation\n");
        for m in carried {
            push_memory(&mut p, m, max_chars);
        }
    }
    if !cuts.is_empty() {
        p.push_str("\n## Cut to fit the memory budget\n");
        for c in cuts {
            p.push_str(&format!("- {c}\n"));
        }
    }
    p
}

/// The memory block for a small model without tools, said as the person (the chat puts it at the
/// start of their message): what was recalled, one line each — its name and its body (in their
/// own words, as the planner keeps facts), with its age when not today and a warning when its
/// versions disagree. No rules, no index: measured with
/// Qwen2.5-Coder-1.5B, the full block's rules and index drown the one memory that matters (a
/// snack question took a recalled peanut allergy into account 0 times in 8 with it, 5 in 8
/// with this). Conversation records are shown only when no memory was recalled: they hold the
/// assistant's old replies, which a small model repeats. Empty when nothing was recalled.
#[must_use]
pub fn build_compact(
    memories: &[PromptMemory<'_>],
    carried: &[PromptMemory<'_>],
    max_chars: usize,
) -> String {
    if memories.is_empty() && carried.is_empty() {
        return String::new();
    }
    // Conversation records hold the assistant's old replies too: a small model repeats them.
    // They are shown only when no memory was recalled (what was said, found by meaning).
    let is_record = |m: &&PromptMemory<'_>| m.path.starts_with("chats/");
    let any_memory = memories.iter().chain(carried).any(|m| !is_record(&m));
    let shown: Vec<&PromptMemory<'_>> = memories
        .iter()
        .chain(carried)
        .filter(|m| !(any_memory && is_record(m)))
        .collect();
    // Said as the person: the chat puts it at the start of their message.
    let mut p = String::from("What I told you before:\n");
    for m in shown {
        let body = cut_body_to(m.body, m.path, max_chars)
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        p.push_str(&format!("- {}: {body}", m.name));
        if m.age != "today" {
            p.push_str(&format!(" (said {})", m.age));
        }
        if m.conflict {
            p.push_str(" (two versions of this disagree: not certain)");
        }
        p.push('\n');
    }
    p.push_str("\nKeep these in mind when they matter.");
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages() {
        let now = DateTime::parse_from_rfc3339("2026-11-21T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(age_text("2026-11-21T01:00:00Z", now), "today");
        assert_eq!(age_text("2026-11-22T01:00:00Z", now), "today");
        assert_eq!(age_text("2026-11-20T23:59:00Z", now), "yesterday");
        assert_eq!(age_text("2026-11-01T00:00:00Z", now), "20 days ago");
        assert_eq!(age_text("garbage", now), "at an unknown time");
    }

    #[test]
    fn bodies_are_cut_at_1200_characters_with_a_note() {
        let body = "字".repeat(1500);
        let cut = cut_body(&body, "a.md");
        assert!(cut.starts_with(&"字".repeat(MAX_BODY_CHARS)));
        assert!(cut.contains("300 more characters in a.md"));
        assert_eq!(cut_body("short", "a.md"), "short");
    }

    #[test]
    fn prompt_carries_rules_index_ages_and_bodies() {
        let mems = [
            PromptMemory {
                conflict: false,
                path: "a.md",
                name: "Style",
                memory_type: Some(MemoryType::Feedback),
                age: "today",
                body: "Be terse.",
            },
            PromptMemory {
                conflict: false,
                path: "b.md",
                name: "Board",
                memory_type: Some(MemoryType::Reference),
                age: "3 days ago",
                body: "grafana",
            },
        ];
        let p = build_prompt(&mems, "- [Style](a.md) — terse\n");
        assert!(p.contains("## Before recommending from memory"));
        let m = [PromptMemory {
            path: "user_allergy.md",
            name: "Allergy",
            memory_type: Some(MemoryType::User),
            age: "3 days ago",
            body: "I'm allergic to peanuts\nand sesame",
            conflict: true,
        }];
        let c = build_compact(&m, &[], MAX_BODY_CHARS);
        assert_eq!(
            c,
            "What I told you before:\n- Allergy: I'm allergic to peanuts and sesame (said 3 days ago) (two versions of this disagree: not certain)\n\nKeep these in mind when they matter."
        );
        assert_eq!(build_compact(&[], &[], MAX_BODY_CHARS), "");
        let record = PromptMemory {
            path: "chats/2026/11/2026-11-29-s1.md",
            name: "Chat",
            memory_type: None,
            age: "today",
            body: "you: any snack?\nassistant: peanut butter toast",
            conflict: false,
        };
        let with_both = build_compact(&[m[0].clone(), record.clone()], &[], MAX_BODY_CHARS);
        assert!(!with_both.contains("peanut butter"), "{with_both}");
        let alone = build_compact(&[record], &[], MAX_BODY_CHARS);
        assert!(
            alone.contains("- Chat: you: any snack? assistant: peanut butter toast"),
            "{alone}"
        );
        assert!(p.contains("check that it still exists"));
        assert!(p.contains("ignore memory"));
        assert!(p.contains("never mention it"));
        assert!(p.contains("- [Style](a.md) — terse"));
        assert!(p.contains("### Style (feedback, a.md) — saved today\nBe terse."));
        assert!(p.contains("### Board (reference, b.md) — saved 3 days ago\nThis is a point-in-time observation from 3 days ago"));
    }
}
