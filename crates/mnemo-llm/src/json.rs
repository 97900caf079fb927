//! Structured output: JSON-schema `response_format`, with a fallback for servers without it
//! (instructions in the prompt), tolerant parsing ([`parse_json`]), validation and one retry
//! naming the problem.

use serde_json::{Value, json};

use crate::{CancellationToken, ChatRequest, Client, LlmError, Message, Role};

impl Client {
    /// Structured output: ask for JSON matching `schema` (JSON-schema `response_format`); if the
    /// server rejects that, instruct in the prompt instead. The answer is parsed and checked by
    /// `validate`; one retry with the problem spelled out.
    pub async fn json<T: serde::de::DeserializeOwned>(
        &self,
        mut req: ChatRequest,
        schema_name: &str,
        schema: &Value,
        validate: impl Fn(&T) -> Result<(), String>,
        cancel: &CancellationToken,
    ) -> Result<T, LlmError> {
        req.response_format = Some(
            json!({"type": "json_schema", "json_schema": {"name": schema_name, "strict": true, "schema": schema}}),
        );
        let first = match self.chat(&req, cancel).await {
            Ok(r) => r,
            Err(LlmError::Http(400 | 422, m))
                if m.to_lowercase().contains("response_format")
                    || m.to_lowercase().contains("json_schema") =>
            {
                // Fallback: the server has no structured output; instruct in the prompt.
                req.response_format = None;
                req.messages.push(Message::system(format!(
                    "Answer with JSON only (no prose, no code fences) matching this JSON Schema:\n{schema}"
                )));
                self.chat(&req, cancel).await?
            }
            Err(e) => return Err(e),
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
}
