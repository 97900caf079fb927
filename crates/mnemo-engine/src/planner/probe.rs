//! Whether a model can call tools, learned from one short round trip before it is trusted with
//! a real session: one tool offered, one instruction to call it with a given word. A model that
//! answers with a well-formed call to that tool carrying that word has proven tool use; anything
//! else (prose, tool markup as text, a call to another name, arguments that are not the JSON
//! asked for) has not. The verdict is pure ([`judge`]); [`probe`] makes the call.

use std::time::Duration;

use mnemo_llm::{CancellationToken, ChatRequest, ChatResponse, Client, LlmError, Message, Tool};
use serde_json::json;

/// The probe tool's name (the fake model server answers it by this name).
pub const PROBE_TOOL: &str = "mnemo_probe";
/// The word the model is asked to pass.
const PROBE_WORD: &str = "ready";
/// Output tokens for the probe's answer: a call is a few dozen.
const PROBE_MAX_TOKENS: u32 = 96;
/// Time allowed for the probe (a 1.5B model on two cores reads its ~150-token prompt in seconds).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(90);

/// What the probe showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The model called the tool as asked.
    pub uses_tools: bool,
    /// What it did, in a sentence (kept as the reason for the choice).
    pub why: String,
}

/// The request the probe sends.
#[must_use]
pub fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::system(
                "You are a function-calling assistant. Answer only by calling a tool.".to_owned(),
            ),
            Message::user(format!(
                "Call the tool `{PROBE_TOOL}` with the argument word set to \"{PROBE_WORD}\"."
            )),
        ],
        tools: vec![Tool {
            name: PROBE_TOOL.to_owned(),
            description: "Confirms that tool calls work. Call it with the word you are given."
                .to_owned(),
            parameters: json!({
                "type": "object",
                "properties": {"word": {"type": "string", "description": "the word given"}},
                "required": ["word"],
            }),
        }],
        temperature: Some(0.0),
        max_tokens: Some(PROBE_MAX_TOKENS),
        timeout: Some(PROBE_TIMEOUT),
        ..ChatRequest::default()
    }
}

/// Judge the probe's answer.
#[must_use]
pub fn judge(answer: &ChatResponse) -> Verdict {
    let calls = &answer.message.tool_calls;
    let Some(call) = calls.first() else {
        let text = answer.message.content.as_deref().unwrap_or("").trim();
        let why = if text.is_empty() {
            "answered a tool-use probe with nothing".to_owned()
        } else if crate::chat::markup::holds_tool_markup(text) {
            "answered a tool-use probe with tool markup written as text".to_owned()
        } else {
            "answered a tool-use probe in prose instead of calling the tool".to_owned()
        };
        return Verdict {
            uses_tools: false,
            why,
        };
    };
    if call.function.name != PROBE_TOOL {
        return Verdict {
            uses_tools: false,
            why: format!(
                "called a tool named `{}` on a probe that offered only `{PROBE_TOOL}`",
                crate::secrets::redact(&call.function.name).0
            ),
        };
    }
    let args: Option<serde_json::Value> = serde_json::from_str(&call.function.arguments).ok();
    let word = args
        .as_ref()
        .and_then(|a| a.get("word"))
        .and_then(|w| w.as_str())
        .map(str::trim);
    if word.is_some_and(|w| w.eq_ignore_ascii_case(PROBE_WORD)) {
        Verdict {
            uses_tools: true,
            why: "called the tool as asked on a tool-use probe".to_owned(),
        }
    } else {
        Verdict {
            uses_tools: false,
            why: "called the probe's tool without the argument asked for".to_owned(),
        }
    }
}

/// Send the probe and judge it (an error — unreachable, timed out — is no verdict).
///
/// # Errors
/// The call's own error.
pub async fn probe(client: &Client, cancel: &CancellationToken) -> Result<Verdict, LlmError> {
    let answer = client.chat(&request(), cancel).await?;
    Ok(judge(&answer))
}

#[cfg(test)]
mod tests {
    use mnemo_llm::{FunctionCall, Role, ToolCall};

    use super::*;

    fn answer(content: Option<&str>, calls: Vec<(&str, &str)>) -> ChatResponse {
        ChatResponse {
            message: Message {
                role: Role::Assistant,
                content: content.map(str::to_owned),
                tool_calls: calls
                    .into_iter()
                    .map(|(name, args)| ToolCall {
                        id: "c1".to_owned(),
                        kind: "function".to_owned(),
                        function: FunctionCall {
                            name: name.to_owned(),
                            arguments: args.to_owned(),
                        },
                    })
                    .collect(),
                tool_call_id: None,
            },
            finish_reason: None,
        }
    }

    #[test]
    fn only_a_call_of_the_tool_with_the_word_proves_tool_use() {
        assert!(judge(&answer(None, vec![(PROBE_TOOL, r#"{"word":"ready"}"#)])).uses_tools);
        assert!(judge(&answer(None, vec![(PROBE_TOOL, r#"{"word":" Ready "}"#)])).uses_tools);
        let failed = [
            answer(Some("Sure! I will call it."), vec![]),
            answer(Some("<tools></tools>"), vec![]),
            answer(
                Some(
                    r#"<tool_call>{"name":"mnemo_probe","arguments":{"word":"ready"}}</tool_call>"#,
                ),
                vec![],
            ),
            answer(None, vec![]),
            answer(None, vec![("save_memory", r#"{"word":"ready"}"#)]),
            answer(None, vec![(PROBE_TOOL, r#"{"word":"go"}"#)]),
            answer(None, vec![(PROBE_TOOL, "word=ready")]),
        ];
        let whys: Vec<String> = failed
            .iter()
            .map(|a| {
                let v = judge(a);
                assert!(!v.uses_tools, "{a:?}");
                v.why
            })
            .collect();
        assert!(whys[0].contains("prose"));
        assert!(whys[1].contains("markup") && whys[2].contains("markup"));
        assert!(whys[3].contains("nothing"));
        assert!(whys[4].contains("save_memory"));
    }

    #[test]
    fn the_probe_offers_one_tool_with_a_cap_and_a_time_limit() {
        let r = request();
        assert_eq!(r.tools.len(), 1);
        assert_eq!(r.tools[0].name, PROBE_TOOL);
        assert!(r.max_tokens.is_some() && r.timeout.is_some());
    }
}
