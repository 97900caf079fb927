//! Context compaction: before a chat request would
//! exceed the model's context window, the older turns are replaced by a summary while the recent
//! ones stay. The full transcript stays on disk (extraction reads it, by position); the summary
//! goes into the session (a `compacted` record) and into the day's log.
//!
//! The planning here is pure. Tokens are estimated — the chat model may be any
//! OpenAI-compatible server, whose tokenizer Mnemo cannot know — conservatively: a CJK
//! character or a Hangul syllable counts one token, other text one per three bytes (English
//! averages about four), plus a few tokens per message.

use mnemo_llm::{Message, Role};

/// Keep at least this many tokens of recent conversation.
pub const KEEP_MIN_TOKENS: usize = 10_000;
/// ... and at least this many recent text messages.
pub const KEEP_MIN_TEXT_MESSAGES: usize = 5;
/// Keep at most this many tokens of recent conversation.
pub const KEEP_MAX_TOKENS: usize = 40_000;
/// Tokens a message costs beyond its text (role, separators).
const PER_MESSAGE: usize = 4;

/// Estimated tokens of a text.
#[must_use]
pub fn estimate_tokens(text: &str) -> usize {
    let mut wide = 0usize;
    let mut other_bytes = 0usize;
    for c in text.chars() {
        if mnemo_store::tokenize::is_cjk(c) {
            wide += 1;
        } else {
            other_bytes += c.len_utf8();
        }
    }
    wide + other_bytes.div_ceil(3)
}

/// `text` cut to at most `max_tokens` (estimated), with `…` marking the cut.
#[must_use]
pub fn cut_to(text: &str, max_tokens: usize) -> String {
    if estimate_tokens(text) <= max_tokens {
        return text.to_owned();
    }
    let budget = max_tokens.saturating_sub(1);
    let (mut wide, mut other_bytes, mut end) = (0usize, 0usize, 0usize);
    for (i, c) in text.char_indices() {
        if mnemo_store::tokenize::is_cjk(c) {
            wide += 1;
        } else {
            other_bytes += c.len_utf8();
        }
        if wide + other_bytes.div_ceil(3) > budget {
            break;
        }
        end = i + c.len_utf8();
    }
    format!("{}…", text[..end].trim_end())
}

/// Estimated tokens of a message (its text and tool calls).
#[must_use]
pub fn message_tokens(m: &Message) -> usize {
    let calls: usize = m
        .tool_calls
        .iter()
        .map(|c| estimate_tokens(&c.function.name) + estimate_tokens(&c.function.arguments))
        .sum();
    PER_MESSAGE + estimate_tokens(m.content.as_deref().unwrap_or_default()) + calls
}

/// Room left for the reply: an eighth of the window, at least 256 tokens, at most 8,192.
#[must_use]
pub fn reply_reserve(window: usize) -> usize {
    (window / 8).clamp(256, 8_192)
}

/// What a request needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fit {
    /// It fits as it is.
    Fits,
    /// Replace `history[..split]` (and any earlier summary) with a summary of at most
    /// `summary_tokens`; `history[split..]` stays.
    Compact {
        /// First message kept.
        split: usize,
        /// Tokens the summary may take.
        summary_tokens: usize,
    },
    /// Even with no history the request does not fit: the fixed part (system prompt, tools,
    /// the new message) needs `needed` tokens of the `available`.
    TooLong {
        /// Tokens the fixed part needs.
        needed: usize,
        /// Tokens the window leaves for it.
        available: usize,
    },
}

/// Decide whether a request fits `window`: `fixed` tokens (system prompt with memory, tool
/// definitions, the new message) plus `history` (the conversation since the last compaction,
/// whose summary is counted in `fixed`).
#[must_use]
pub fn plan(window: usize, fixed: usize, history: &[Message]) -> Fit {
    let available = window.saturating_sub(reply_reserve(window));
    if fixed >= available {
        return Fit::TooLong {
            needed: fixed,
            available,
        };
    }
    let room = available - fixed;
    let costs: Vec<usize> = history.iter().map(message_tokens).collect();
    if costs.iter().sum::<usize>() <= room {
        return Fit::Fits;
    }
    // The summary takes at most a quarter of the room (and no more than 2,000 tokens); the
    // recent turns kept get the rest, within the bounds above scaled to small windows.
    let summary_tokens = (room / 4).min(2_000);
    let keep_max = KEEP_MAX_TOKENS.min(room - summary_tokens);
    let keep_min = KEEP_MIN_TOKENS.min(keep_max / 2);
    let mut kept = 0usize;
    let mut texts = 0usize;
    let mut split = history.len();
    for (i, m) in history.iter().enumerate().rev() {
        if kept + costs[i] > keep_max {
            break;
        }
        kept += costs[i];
        split = i;
        if is_text(m) {
            texts += 1;
        }
        if kept >= keep_min && texts >= KEEP_MIN_TEXT_MESSAGES {
            break;
        }
    }
    // The kept part starts at a user message, so no reply is separated from its question.
    while split < history.len() && history[split].role != Role::User {
        split += 1;
    }
    Fit::Compact {
        split,
        summary_tokens,
    }
}

fn is_text(m: &Message) -> bool {
    matches!(m.role, Role::User | Role::Assistant)
        && m.content.as_deref().is_some_and(|c| !c.trim().is_empty())
}

/// The transcript of messages as plain text for a summary request (`User:` / `Assistant:`).
#[must_use]
pub fn transcript_text(previous: Option<&str>, messages: &[Message]) -> String {
    let mut out = String::new();
    if let Some(p) = previous {
        out.push_str("Summary of what came before:\n");
        out.push_str(p);
        out.push_str("\n\n");
    }
    for m in messages.iter().filter(|m| is_text(m)) {
        let who = if m.role == Role::User {
            "User"
        } else {
            "Assistant"
        };
        out.push_str(who);
        out.push_str(": ");
        out.push_str(m.content.as_deref().unwrap_or_default().trim());
        out.push_str("\n\n");
    }
    out
}

/// A summary without a model: the earlier summary, then each message's first line, cut to fit
/// `max_tokens`.
#[must_use]
pub fn extractive_summary(
    previous: Option<&str>,
    messages: &[Message],
    max_tokens: usize,
) -> String {
    let mut lines: Vec<String> = Vec::new();
    if let Some(p) = previous {
        lines.push(p.trim().to_owned());
    }
    for m in messages.iter().filter(|m| is_text(m)) {
        let who = if m.role == Role::User {
            "The user"
        } else {
            "The assistant"
        };
        let first = m
            .content
            .as_deref()
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or_default();
        let first: String = first.chars().take(200).collect();
        lines.push(format!("- {who}: {first}"));
    }
    let mut out = String::new();
    for l in lines {
        if estimate_tokens(&out) + estimate_tokens(&l) + 1 > max_tokens {
            out.push_str("- …");
            break;
        }
        out.push_str(&l);
        out.push('\n');
    }
    out.trim_end().to_owned()
}

/// The instructions of a summary request.
#[must_use]
pub fn summary_prompt(max_tokens: usize) -> String {
    format!(
        "You compact a conversation so it can go on within a limited context. Write a summary \
         of the transcript you are given, for the assistant that continues it: what the user \
         wants and is working on, facts they gave about themselves, decisions taken, open \
         questions, anything the assistant promised. Plain text, no preamble, at most about \
         {} words.",
        (max_tokens * 3 / 4).max(50)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msgs(n: usize, chars: usize) -> Vec<Message> {
        (0..n)
            .map(|i| {
                let text = format!("{i} {}", "x".repeat(chars));
                if i % 2 == 0 {
                    Message::user(text)
                } else {
                    Message::new(Role::Assistant, text)
                }
            })
            .collect()
    }

    #[test]
    fn estimates_count_cjk_per_character_and_other_text_per_three_bytes() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcdef"), 2);
        assert_eq!(estimate_tokens("记忆系统"), 4);
        assert_eq!(estimate_tokens("메모리"), 3);
    }

    #[test]
    fn a_cut_text_fits_its_budget_and_says_it_was_cut() {
        assert_eq!(cut_to("short", 100), "short");
        let long = "word ".repeat(500);
        let cut = cut_to(&long, 50);
        assert!(estimate_tokens(&cut) <= 50, "{}", estimate_tokens(&cut));
        assert!(cut.ends_with('…') && cut.starts_with("word word"));
        let cjk = cut_to(&"记忆".repeat(100), 10);
        assert_eq!(cjk.chars().count(), 10, "{cjk}");
    }

    #[test]
    fn a_conversation_that_fits_is_left_alone() {
        assert_eq!(plan(32_768, 500, &msgs(10, 300)), Fit::Fits);
    }

    #[test]
    fn a_long_conversation_keeps_its_recent_turns_within_the_bounds() {
        // 200 messages of ~1,000 tokens in a 128k window: keep ≥ 10k tokens and ≥ 5 texts.
        let h = msgs(200, 3_000);
        let Fit::Compact {
            split,
            summary_tokens,
        } = plan(128_000, 1_000, &h)
        else {
            panic!("should compact");
        };
        let kept: usize = h[split..].iter().map(message_tokens).sum();
        assert!(
            (KEEP_MIN_TOKENS..=KEEP_MAX_TOKENS).contains(&kept),
            "{kept}"
        );
        assert!(h.len() - split >= KEEP_MIN_TEXT_MESSAGES);
        assert_eq!(h[split].role, Role::User, "starts at a question");
        assert_eq!(summary_tokens, 2_000);
        assert!(kept + summary_tokens + 1_000 <= 128_000 - reply_reserve(128_000));
    }

    #[test]
    fn a_small_window_scales_the_bounds_and_still_fits() {
        let h = msgs(12, 1_200);
        let window = 4_096;
        let fixed = 600;
        let Fit::Compact {
            split,
            summary_tokens,
        } = plan(window, fixed, &h)
        else {
            panic!("should compact");
        };
        let kept: usize = h[split..].iter().map(message_tokens).sum();
        assert!(split > 0 && split < h.len());
        assert!(fixed + summary_tokens + kept <= window - reply_reserve(window));
    }

    #[test]
    fn a_message_too_long_for_the_window_alone_is_refused() {
        assert!(matches!(plan(4_096, 5_000, &[]), Fit::TooLong { .. }));
    }

    #[test]
    fn the_extractive_summary_fits_its_budget() {
        let s = extractive_summary(Some("Earlier: tea."), &msgs(40, 500), 100);
        assert!(estimate_tokens(&s) <= 100, "{}", estimate_tokens(&s));
        assert!(s.starts_with("Earlier: tea."));
        assert!(s.contains("- The user: 0 x"));
    }
}
