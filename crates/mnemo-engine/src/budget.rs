//! Fitting an agent's conversation to the model's context window (pure). Before each model
//! call the driver counts what the request carries — system prompt (with the preloaded
//! manifest), task, tool definitions, tool rounds — against the window less the reply's cap and
//! a margin, and when it is over: long tool results are cut with a note, then the oldest tool
//! rounds are dropped (the task says so), then the task and system texts are cut with a note.
//! Tokens are estimated as chat compaction estimates them (conservatively; see
//! [`crate::chat::compact::estimate_tokens`]).

use mnemo_llm::{Message, Role};

use crate::chat::compact::{cut_to, estimate_tokens, message_tokens};

/// The output cap of one agent step: the run's `step_tokens`, at most a quarter of the window
/// (and at least 64).
#[must_use]
pub fn step_cap(step_tokens: u32, window: u32) -> u32 {
    step_tokens.min((window / 4).max(64))
}

/// Bytes of manifest an agent's system prompt may carry: about a quarter of the window (three
/// bytes a token, as estimated), within the manifest's own 25,000-byte cap.
#[must_use]
pub fn manifest_bytes(window: u32) -> usize {
    (usize::try_from(window).unwrap_or(usize::MAX) / 4)
        .saturating_mul(3)
        .min(crate::recall::MANIFEST_MAX_BYTES)
}

/// Tokens kept free besides the reply: estimates are not the server's tokenizer, and the
/// server's chat template adds its own.
#[must_use]
pub fn margin(window: usize) -> usize {
    window / 16 + 64
}

/// Estimated tokens of a conversation.
#[must_use]
pub fn conversation_tokens(messages: &[Message]) -> usize {
    messages.iter().map(message_tokens).sum()
}

/// The conversation fitted to the room, and what was cut to get there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    /// The messages to send.
    pub messages: Vec<Message>,
    /// What was cut or dropped (for logs and the task's report).
    pub notes: Vec<String>,
}

/// Fit `messages` (system, task, then tool rounds) into `window` tokens less `reply` (the
/// output cap) and `fixed` (tool definitions). `None` when even the cut system prompt and task
/// cannot fit.
#[must_use]
pub fn fit(messages: &[Message], fixed: usize, window: usize, reply: usize) -> Option<Fitted> {
    let room = window.checked_sub(reply + fixed + margin(window))?;
    let mut msgs = messages.to_vec();
    let mut notes = Vec::new();
    if conversation_tokens(&msgs) <= room {
        return Some(Fitted {
            messages: msgs,
            notes,
        });
    }
    // 1. Long tool results, cut to a quarter of the room each.
    cut_tool_results(&mut msgs, room, &mut notes);
    // 2. The oldest tool rounds (an assistant message and what answers it), newest kept.
    let mut dropped = 0usize;
    while conversation_tokens(&msgs) > room {
        let Some(start) = msgs.iter().skip(2).position(|m| m.role == Role::Assistant) else {
            break;
        };
        let start = start + 2;
        let end = msgs[start + 1..]
            .iter()
            .position(|m| m.role == Role::Assistant)
            .map_or(msgs.len(), |p| p + start + 1);
        if end >= msgs.len() {
            break; // the newest round stays
        }
        msgs.drain(start..end);
        dropped += 1;
    }
    if dropped > 0 {
        if let Some(task) = msgs.get_mut(1) {
            let text = task.content.clone().unwrap_or_default();
            task.content = Some(format!(
                "{text}\n\n({dropped} earlier tool round(s) were dropped to fit the context window; their effects on the files remain.)"
            ));
        }
        notes.push(format!("{dropped} older tool round(s) dropped"));
    }
    // 3. The task, then the system prompt, cut to what is left.
    for i in [1usize, 0] {
        let over = conversation_tokens(&msgs).saturating_sub(room);
        if over == 0 {
            break;
        }
        let Some(m) = msgs.get_mut(i) else { continue };
        let text = m.content.clone().unwrap_or_default();
        let keep = estimate_tokens(&text).saturating_sub(over + 24);
        if keep < 32 {
            continue;
        }
        m.content = Some(format!(
            "{}\n[cut to fit the model's context window]",
            cut_to(&text, keep)
        ));
        notes.push(if i == 1 {
            "the task was cut".to_owned()
        } else {
            "the system prompt was cut".to_owned()
        });
    }
    (conversation_tokens(&msgs) <= room).then_some(Fitted {
        messages: msgs,
        notes,
    })
}

/// Cut each tool result longer than a quarter of `room` tokens, with a note (the chat's tool
/// rounds get only this: compaction fits the rest of a chat).
pub fn cut_tool_results(msgs: &mut [Message], room: usize, notes: &mut Vec<String>) {
    let per_result = (room / 4).max(128);
    for m in msgs.iter_mut().filter(|m| m.role == Role::Tool) {
        let text = m.content.as_deref().unwrap_or_default();
        if estimate_tokens(text) > per_result {
            let cut = cut_to(text, per_result.saturating_sub(40));
            m.content = Some(format!(
                "{cut}\n[cut to fit the model's context window: {} more characters; ask for a narrower part]",
                text.chars().count().saturating_sub(cut.chars().count())
            ));
            notes.push("a long tool result was cut".to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mnemo_llm::text_tools::as_call;

    fn round(i: usize, result: &str) -> [Message; 2] {
        [
            as_call(
                format!("c{i}"),
                "read_file".into(),
                format!("{{\"path\":\"{i}.md\"}}"),
            ),
            Message::tool_result(format!("c{i}"), result),
        ]
    }

    #[test]
    fn what_fits_is_sent_unchanged() {
        let msgs = vec![Message::system("sys"), Message::user("task")];
        let f = fit(&msgs, 100, 4096, 512).unwrap();
        assert_eq!(f.messages, msgs);
        assert!(f.notes.is_empty());
    }

    #[test]
    fn a_tool_result_larger_than_the_window_is_cut_with_a_note() {
        let big = "x".repeat(60_000); // ~20,000 tokens
        let mut msgs = vec![Message::system("sys"), Message::user("task")];
        msgs.extend(round(0, &big));
        let f = fit(&msgs, 300, 4096, 512).unwrap();
        assert!(conversation_tokens(&f.messages) + 300 + 512 + margin(4096) <= 4096);
        let result = f.messages[3].content.as_deref().unwrap();
        assert!(result.contains("cut to fit the model's context window"));
        assert_eq!(f.messages.len(), 4, "the only round stays");
    }

    #[test]
    fn older_rounds_are_dropped_newest_kept() {
        let mid = "y".repeat(2_400); // ~800 tokens each
        let mut msgs = vec![Message::system("sys"), Message::user("task")];
        for i in 0..6 {
            msgs.extend(round(i, &mid));
        }
        let f = fit(&msgs, 200, 4096, 512).unwrap();
        assert!(conversation_tokens(&f.messages) + 200 + 512 + margin(4096) <= 4096);
        assert_eq!(
            f.messages.last().unwrap().tool_call_id.as_deref(),
            Some("c5"),
            "the newest round is kept"
        );
        assert!(
            f.messages[1]
                .content
                .as_deref()
                .unwrap()
                .contains("dropped to fit")
        );
        // Rounds stay whole: every tool result follows its call.
        for (i, m) in f.messages.iter().enumerate() {
            if m.role == Role::Tool {
                assert_eq!(f.messages[i - 1].role, Role::Assistant);
            }
        }
    }

    #[test]
    fn a_long_task_is_cut_and_hopeless_cases_say_so() {
        let msgs = vec![Message::system("sys"), Message::user("z".repeat(30_000))];
        let f = fit(&msgs, 200, 4096, 512).unwrap();
        assert!(
            f.messages[1]
                .content
                .as_deref()
                .unwrap()
                .ends_with("[cut to fit the model's context window]")
        );
        assert!(
            fit(&msgs, 5_000, 4096, 512).is_none(),
            "tools alone overflow"
        );
        assert_eq!(step_cap(1024, 8192), 1024);
        assert_eq!(step_cap(1024, 2048), 512);
        assert_eq!(manifest_bytes(8192), 6144);
        assert_eq!(manifest_bytes(1_000_000), 25_000);
    }
}
