//! Corrections: before a plan is written, the facts a later message of the same conversation
//! changed are taken out ("I live in Berlin" … "actually I moved to Munich"). A small model
//! told to save only the new fact still saves the old one now and then; a second, narrow
//! question — which of these facts did a later message replace? — catches most of the rest.
//! Asked only when a kept fact has a later one beside it (a correction always brings its new
//! fact); only such facts can be named; when the model cannot be asked, nothing is dropped.

use std::time::Duration;

use mnemo_llm::{CancellationToken, ChatRequest, Client, Message};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Dropped, Kept, Said, one_line};

/// Output tokens allowed for the answer (a short list of numbers).
pub const MAX_TOKENS: u32 = 48;
/// Time allowed for the question.
pub const TIMEOUT: Duration = Duration::from_secs(40);

const SYSTEM: &str = "You check facts about the user before they are saved.\n\
A fact is outdated when a LATER message of the user says it is no longer true: they moved, switched, changed their mind, or corrected it (\"actually\", \"scratch that\", \"not anymore\").\n\
A fact that a later message only adds to, or does not mention, is NOT outdated. Most facts are not outdated.\n\
\n\
Example.\n\
Messages:\n\
[1] I live in Porto and work at a bank.\n\
[2] Actually I moved to Braga last month.\n\
Facts:\n\
1. (message 1) work at a bank\n\
2. (message 1) I live in Porto\n\
3. (message 2) I moved to Braga last month\n\
Answer: {\"outdated\": [2]}";

#[derive(Debug, Deserialize)]
struct Answer {
    #[serde(default)]
    outdated: Vec<usize>,
}

/// The kept facts (1-based, in order) a later kept fact could have replaced: those from an
/// earlier message than the newest fact's. (Asking about every fact was tried: the 1.5B model
/// then named half the true facts of the eval outdated.)
#[must_use]
pub fn candidates(kept: &[Kept]) -> Vec<usize> {
    let newest = kept.iter().map(|k| k.source).max().unwrap_or(0);
    kept.iter()
        .enumerate()
        .filter(|(_, k)| k.source < newest)
        .map(|(i, _)| i + 1)
        .collect()
}

/// The question put to the model: the user's messages and the numbered facts.
#[must_use]
pub fn question(kept: &[Kept], said: &[Said]) -> String {
    let messages = said
        .iter()
        .enumerate()
        .filter(|(_, s)| s.user)
        .map(|(i, s)| format!("[{}] {}", i + 1, one_line(&s.text)))
        .collect::<Vec<_>>()
        .join("\n");
    let facts = kept
        .iter()
        .enumerate()
        .map(|(i, k)| {
            format!(
                "{}. (message {}) {}",
                i + 1,
                k.source,
                one_line(&k.patch.fact)
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "Messages:\n{messages}\nFacts:\n{facts}\n\nWhich facts are outdated? Answer with JSON only."
    )
}

/// The schema the answer is held to: numbers among `candidates` only.
#[must_use]
pub fn schema(candidates: &[usize]) -> Value {
    json!({
        "type": "object",
        "properties": {
            "outdated": {
                "type": "array",
                "maxItems": candidates.len(),
                "items": {"type": "integer", "enum": candidates}
            }
        },
        "required": ["outdated"],
        "additionalProperties": false
    })
}

/// Take out of `kept` the facts named outdated (only [`candidates`] count), each reported in
/// `dropped`; an answer naming every candidate (two or more) is not followed.
pub fn remove(kept: &mut Vec<Kept>, outdated: &[usize], dropped: &mut Vec<Dropped>) {
    let allowed = candidates(kept);
    // Every earlier fact named: more likely a confused answer than a conversation that took
    // back all it said before.
    if allowed.len() > 1 && allowed.iter().all(|i| outdated.contains(i)) {
        return;
    }
    let mut i = 0;
    kept.retain(|k| {
        i += 1;
        let out = allowed.contains(&i) && outdated.contains(&i);
        if out {
            dropped.push(Dropped {
                fact: one_line(&k.patch.fact).chars().take(200).collect(),
                reason: "a later message replaced it: only the new fact is kept".to_owned(),
            });
        }
        !out
    });
}

/// Ask which kept facts a later message replaced, within `within` (and [`TIMEOUT`]), and take
/// them out. Nothing is asked when no fact has a later one beside it; nothing is dropped when
/// the model cannot answer (the facts were checked already; the question only refines them).
pub async fn apply(
    client: &Client,
    kept: &mut Vec<Kept>,
    said: &[Said],
    dropped: &mut Vec<Dropped>,
    within: Duration,
    cancel: &CancellationToken,
) {
    let allowed = candidates(kept);
    if allowed.is_empty() {
        return;
    }
    let within = within.min(TIMEOUT);
    let req = ChatRequest {
        model: None,
        messages: vec![Message::system(SYSTEM), Message::user(question(kept, said))],
        tools: Vec::new(),
        temperature: Some(0.0),
        max_tokens: Some(MAX_TOKENS),
        response_format: None,
        timeout: Some(within.min(Duration::from_secs(client.settings().timeout_secs.max(1)))),
    };
    let schema = schema(&allowed);
    let call = client.json::<Answer>(req, "outdated_facts", &schema, |_| Ok(()), cancel);
    match tokio::time::timeout(within, call).await {
        Ok(Ok(a)) => remove(kept, &a.outdated, dropped),
        Ok(Err(e)) => {
            tracing::info!(error = %e, "the correction check could not be asked; every checked fact is kept");
        }
        Err(_) => {
            tracing::info!("the correction check ran out of time; every checked fact is kept");
        }
    }
}

#[cfg(test)]
mod tests {
    use mnemo_core::MemoryType;

    use super::*;
    use crate::planner::Patch;

    fn kept(source: usize, fact: &str) -> Kept {
        Kept {
            patch: Patch {
                source: i64::try_from(source).unwrap_or(0),
                r#type: "user".into(),
                topic: "Home".into(),
                fact: fact.into(),
                why: None,
                how_to_apply: None,
            },
            memory_type: MemoryType::User,
            source,
        }
    }

    #[test]
    fn only_facts_with_a_later_one_beside_them_can_be_named() {
        let ks = [
            kept(1, "I live in Berlin"),
            kept(3, "I moved to Munich"),
            kept(1, "I boulder"),
        ];
        assert_eq!(candidates(&ks), [1, 3]);
        assert!(candidates(&[kept(2, "a"), kept(2, "b")]).is_empty());
        assert!(candidates(&[]).is_empty());
        let s = schema(&candidates(&ks));
        assert_eq!(s["properties"]["outdated"]["items"]["enum"], json!([1, 3]));
    }

    #[test]
    fn named_candidates_are_dropped_with_a_reason_and_others_stay() {
        let mut ks = vec![
            kept(1, "I live in Berlin"),
            kept(2, "I moved to Munich"),
            kept(1, "I boulder"),
        ];
        let mut dropped = Vec::new();
        // 2 is the newest fact's own number and 9 names no fact: neither does anything.
        remove(&mut ks, &[1, 2, 9], &mut dropped);
        let left: Vec<&str> = ks.iter().map(|k| k.patch.fact.as_str()).collect();
        assert_eq!(left, ["I moved to Munich", "I boulder"]);
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].fact, "I live in Berlin");
        assert!(dropped[0].reason.contains("later message"), "{dropped:?}");
        let mut ks = vec![
            kept(1, "I live in Berlin"),
            kept(1, "I boulder"),
            kept(2, "x"),
        ];
        let mut dropped = Vec::new();
        remove(&mut ks, &[1, 2], &mut dropped);
        assert_eq!(ks.len(), 3, "an answer naming every candidate drops none");
        assert!(dropped.is_empty());
    }

    #[test]
    fn the_question_numbers_messages_as_the_plan_saw_them() {
        let said = [
            Said {
                user: true,
                text: "I live in Berlin.".into(),
            },
            Said {
                user: true,
                text: "Actually I moved\nto Munich.".into(),
            },
        ];
        let q = question(
            &[kept(1, "I live in Berlin"), kept(2, "I moved to Munich")],
            &said,
        );
        assert!(
            q.contains("[1] I live in Berlin.\n[2] Actually I moved to Munich."),
            "{q}"
        );
        assert!(
            q.contains("1. (message 1) I live in Berlin\n2. (message 2) I moved to Munich"),
            "{q}"
        );
    }
}
