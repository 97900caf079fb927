//! For a model without tools (the compact memory block): before it answers, one short
//! schema-held question — which one thing the person said before must the answer respect? — and
//! the answer, when it quotes a recalled memory, is said to the model twice more: in the system
//! prompt and after the question. Measured with Qwen2.5-Coder-1.5B on a snack question after "I'm
//! allergic to peanuts" (8 replies each, a reply counted only when it names the allergy or leaves
//! peanuts out and suggests no peanut butter): the block alone 2 of 8; the block with the
//! quoted fact restated, replies sampled at 0.2, 4–5 of 8 — and through `mnemo chat` in the
//! first-session walk 7 and 5 of 8 (0–2 before). The question quoted the allergy in 16 of 16.
//! Asking the model to judge its own reply instead was worse than chance (it passed all 5 of 12
//! replies offering peanut butter or nuts, and flagged 4 of the 7 good ones), so no reply is
//! checked after the fact.
//!
//! A quote that is not in the recalled memories (the model invented it) is not used, nor is
//! anything when the question fails or runs out of time: the reply then goes as before.

use std::time::Duration;

use mnemo_llm::{CancellationToken, ChatRequest, Client, Message};
use serde::Deserialize;

/// How long the question may take (it is a few tokens; a slow machine still answers at once).
const TIMEOUT: Duration = Duration::from_secs(20);
/// The answer is one short quote.
const MAX_TOKENS: u32 = 48;

const SYSTEM: &str = "You read what a user told an assistant before, and their new question, and \
     say which earlier fact the answer must respect.";

#[derive(Debug, Deserialize)]
struct Answer {
    respect: String,
}

/// The question, from the memory block (said as the person) and their new message.
fn question(block: &str, message: &str) -> String {
    format!(
        "{}\nMy question now: {}\n\nWhich one thing I told you before must the answer to my \
         question respect? Quote it, or answer with an empty string when none does.",
        block.trim_end(),
        message.trim()
    )
}

/// The quote, if it holds: at least three letters, and found (letters and digits compared, case
/// ignored) in the memory block it was asked about.
fn checked(quote: &str, block: &str) -> Option<String> {
    let quote = quote.trim().trim_matches(['"', '“', '”', '\'']).trim();
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let q = norm(quote);
    (q.chars().count() >= 3 && norm(block).contains(&q)).then(|| quote.to_owned())
}

/// What the answer must respect, quoted from `block` (the compact memory block), or `None`.
pub async fn ask(
    client: &Client,
    block: &str,
    message: &str,
    cancel: &CancellationToken,
) -> Option<String> {
    let req = ChatRequest {
        model: None,
        messages: vec![
            Message::system(SYSTEM),
            Message::user(question(block, message)),
        ],
        tools: Vec::new(),
        temperature: Some(0.0),
        max_tokens: Some(MAX_TOKENS),
        response_format: None,
        timeout: Some(TIMEOUT.min(Duration::from_secs(client.settings().timeout_secs.max(1)))),
    };
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"respect": {"type": "string"}},
        "required": ["respect"],
        "additionalProperties": false
    });
    let call = client.json::<Answer>(req, "respect", &schema, |_| Ok(()), cancel);
    match tokio::time::timeout(TIMEOUT, call).await {
        Ok(Ok(a)) => {
            let kept = checked(&a.respect, block);
            if kept.is_none() && !a.respect.trim().is_empty() {
                tracing::info!(quote = %a.respect, "the fact to respect is not in the recalled memories: not used");
            }
            kept
        }
        Ok(Err(e)) => {
            tracing::info!(error = %e, "could not ask which memory the reply must respect");
            None
        }
        Err(_) => {
            tracing::info!("asking which memory the reply must respect ran out of time");
            None
        }
    }
}

/// The system prompt and the person's message with `respect` said in both.
#[must_use]
pub fn restate(system: &str, asked: &str, respect: &str) -> (String, String) {
    (
        format!("{system} Above all, respect this: {respect}"),
        format!("{asked}\n\n(Keep in mind: {respect})"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "What I told you before:\n- Peanut allergy: I'm allergic to peanuts.\n- Ana: I'm Ana, a data engineer in Lisbon.\n\nKeep these in mind when they matter.";

    #[test]
    fn only_a_quote_of_the_recalled_memories_is_kept() {
        assert_eq!(
            checked("\"I'm allergic to peanuts.\"", BLOCK).as_deref(),
            Some("I'm allergic to peanuts.")
        );
        // Case, spacing and punctuation aside.
        assert_eq!(
            checked("im ALLERGIC to  peanuts", BLOCK).as_deref(),
            Some("im ALLERGIC to  peanuts")
        );
        // Invented, empty or too short: nothing.
        assert_eq!(checked("I'm allergic to shellfish.", BLOCK), None);
        assert_eq!(checked("", BLOCK), None);
        assert_eq!(checked(" a ", BLOCK), None);
    }

    #[test]
    fn the_fact_is_said_in_the_system_prompt_and_after_the_question() {
        let (s, a) = restate("You help.", "Snack ideas?", "I'm allergic to peanuts.");
        assert_eq!(
            s,
            "You help. Above all, respect this: I'm allergic to peanuts."
        );
        assert_eq!(
            a,
            "Snack ideas?\n\n(Keep in mind: I'm allergic to peanuts.)"
        );
        assert!(question(BLOCK, " Snack ideas? ").contains("My question now: Snack ideas?\n"));
    }
}
