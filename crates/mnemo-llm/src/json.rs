//! Structured output, stepping down on servers that refuse it: JSON-schema `response_format` →
//! `json_object` with the schema (llama.cpp-style servers) and the schema in the prompt →
//! the schema in the prompt alone. What a server + model accepted is kept in its profile
//! ([`crate::ModelProfile`]), so later calls start there. Then tolerant parsing ([`parse_json`]),
//! validation and one retry naming the problem.

use serde_json::{Value, json};

use crate::profile::JsonLevel as Level;
use crate::{CancellationToken, ChatRequest, Client, LlmError, Message, Role};

/// Whether an error is the server refusing the requested `response_format` (so the next level
/// down may work) rather than a failure: HTTP 400, 422, 500 or 501 whose message mentions
/// `response_format`, `json_schema`, `json_object`, `schema`, `'text'` (pydantic's "Input should
/// be 'text' or 'json_object'"), "not supported" or "unsupported", case-insensitively. Only
/// asked of requests that carry a `response_format`; such refusals are not retried.
pub(crate) fn refuses_format(e: &LlmError) -> bool {
    const SIGNS: [&str; 7] = [
        "response_format",
        "json_schema",
        "json_object",
        "schema",
        "'text'",
        "not supported",
        "unsupported",
    ];
    match e {
        LlmError::Http(400 | 422 | 500 | 501, message) => {
            let lower = message.to_lowercase();
            SIGNS.iter().any(|s| lower.contains(s))
        }
        _ => false,
    }
}

impl Client {
    /// Structured output: ask for JSON matching `schema`, stepping down while the server refuses
    /// (see [`refuses_format`]): JSON-schema `response_format`, then `json_object` carrying the
    /// schema plus the schema in the prompt, then the prompt alone. The level that worked is
    /// remembered per base URL + model for later calls. Other errors propagate. The answer is
    /// parsed and checked by `validate`; one retry with the problem spelled out.
    pub async fn json<T: serde::de::DeserializeOwned>(
        &self,
        mut req: ChatRequest,
        schema_name: &str,
        schema: &Value,
        validate: impl Fn(&T) -> Result<(), String>,
        cancel: &CancellationToken,
    ) -> Result<T, LlmError> {
        let model = req
            .model
            .clone()
            .unwrap_or_else(|| self.settings().model.clone());
        let profile = self.profile(&model);
        let mut level = profile.json_level();
        let mut instructed = false;
        let first = loop {
            req.response_format = match level {
                Level::JsonSchema => Some(
                    json!({"type": "json_schema", "json_schema": {"name": schema_name, "strict": true, "schema": schema}}),
                ),
                Level::JsonObject => Some(json!({"type": "json_object", "schema": schema})),
                Level::Prompt => None,
            };
            if level > Level::JsonSchema && !instructed {
                req.messages.push(Message::system(format!(
                    "Answer with JSON only (no prose, no code fences) matching this JSON Schema:\n{}",
                    crate::wire::to_wire(schema)
                )));
                instructed = true;
            }
            match self.chat(&req, cancel).await {
                Ok(r) => break r,
                Err(e) if level < Level::Prompt && refuses_format(&e) => {
                    let down = level.next();
                    tracing::info!(
                        "{} ({model}) refused structured output as {level:?} ({e}); using {down:?} from now on",
                        self.settings().base_url
                    );
                    level = down;
                    profile.json_refused_down_to(level);
                }
                Err(e) => return Err(e),
            }
        };
        let text = first.message.content.clone().unwrap_or_default();
        match parse_json::<T>(&text).and_then(|v| validate(&v).map(|()| v)) {
            Ok(v) => Ok(v),
            Err(problem) => {
                req.messages.push(Message {
                    role: Role::Assistant,
                    ..Message::new(Role::Assistant, text)
                });
                req.messages.push(Message::user(format!(
                    "That answer was not usable: {problem}. Reply again with JSON only, matching the schema."
                )));
                let second = self.chat(&req, cancel).await?;
                let text = second.message.content.unwrap_or_default();
                let v = parse_json::<T>(&text).map_err(LlmError::BadResponse)?;
                validate(&v).map_err(LlmError::BadResponse)?;
                Ok(v)
            }
        }
    }
}

/// Parse JSON from a model's text, tolerating code fences and prose around one object.
pub fn parse_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let t = text.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .unwrap_or(t);
    let t = t.strip_suffix("```").unwrap_or(t).trim();
    if let Ok(v) = serde_json::from_str::<T>(t) {
        return Ok(v);
    }
    let (Some(start), Some(end)) = (t.find('{'), t.rfind('}')) else {
        return Err("the answer holds no JSON object".to_owned());
    };
    if start >= end {
        return Err("the answer holds no JSON object".to_owned());
    }
    serde_json::from_str::<T>(&t[start..=end]).map_err(|e| format!("invalid JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[test]
    fn parse_json_tolerates_fences_and_prose() {
        #[derive(Deserialize, Debug, PartialEq)]
        struct P {
            paths: Vec<String>,
        }
        let want = P {
            paths: vec!["a.md".into()],
        };
        assert_eq!(parse_json::<P>(r#"{"paths":["a.md"]}"#).unwrap(), want);
        assert_eq!(
            parse_json::<P>("```json\n{\"paths\":[\"a.md\"]}\n```").unwrap(),
            want
        );
        assert_eq!(
            parse_json::<P>("Sure! {\"paths\":[\"a.md\"]} hope that helps").unwrap(),
            want
        );
        assert!(parse_json::<P>("no json here").is_err());
        assert!(parse_json::<P>("{\"other\": 1}").is_err());
    }

    #[test]
    fn refusals_of_a_response_format_are_told_from_failures() {
        let llama = "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  \
                     Input should be 'text' or 'json_object' [type=literal_error]";
        for (status, message) in [
            (500, llama),
            (400, "response_format json_schema is not supported"),
            (422, "Unknown field: JSON_SCHEMA"),
            (400, "json_object is unsupported by this model"),
            (501, "Not Supported"),
            (500, "Input should be 'text'"),
        ] {
            assert!(
                refuses_format(&LlmError::Http(status, message.to_owned())),
                "{status} {message}"
            );
        }
        for e in [
            LlmError::Http(500, "CUDA out of memory".to_owned()),
            LlmError::Http(503, "json_schema backend loading".to_owned()),
            LlmError::Http(400, "no".to_owned()),
            LlmError::Unauthorized(401),
            LlmError::ModelNotFound("json_schema".to_owned()),
            LlmError::ContextTooLong("schema too long for the context".to_owned()),
            LlmError::Timeout(5),
        ] {
            assert!(!refuses_format(&e), "{e:?}");
        }
    }

    #[test]
    fn levels_only_step_down() {
        assert_eq!(Level::JsonSchema.next(), Level::JsonObject);
        assert_eq!(Level::JsonObject.next(), Level::Prompt);
        assert_eq!(Level::Prompt.next(), Level::Prompt);
    }
}
