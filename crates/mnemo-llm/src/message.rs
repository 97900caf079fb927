//! The conversation as the Chat Completions API carries it: roles, messages, tool calls, the
//! tools offered, the request and the (non-streamed) answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// System prompt.
    System,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
}

/// A function call requested by the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Call id (echoed in the tool result).
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// Name and JSON arguments.
    pub function: FunctionCall,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<ToolCall>, D::Error> {
    Ok(Option::<Vec<ToolCall>>::deserialize(d)?.unwrap_or_default())
}

pub(crate) fn function_type() -> String {
    "function".to_owned()
}

/// Function name and its arguments as a JSON string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// Tool name.
    pub name: String,
    /// JSON text of the arguments.
    pub arguments: String,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Speaker.
    pub role: Role,
    /// Text (absent when the assistant only calls tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Tool calls of an assistant message (`null` from some proxies reads as none).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_empty"
    )]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A message with text.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
    /// A system message.
    pub fn system(c: impl Into<String>) -> Self {
        Self::new(Role::System, c)
    }
    /// A user message.
    pub fn user(c: impl Into<String>) -> Self {
        Self::new(Role::User, c)
    }
    /// A tool result.
    pub fn tool_result(call_id: impl Into<String>, c: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(call_id.into()),
            ..Self::new(Role::Tool, c)
        }
    }
}

/// A tool the model may call.
#[derive(Debug, Clone, Serialize)]
pub struct Tool {
    /// Name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of its arguments.
    pub parameters: Value,
}

/// A chat request.
#[derive(Debug, Clone, Default)]
pub struct ChatRequest {
    /// Model (default: the main model from settings).
    pub model: Option<String>,
    /// The conversation.
    pub messages: Vec<Message>,
    /// Tools offered.
    pub tools: Vec<Tool>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// Most output tokens.
    pub max_tokens: Option<u32>,
    /// `response_format` as the server expects it.
    pub response_format: Option<Value>,
    /// The whole call's time limit, streaming included (default: the settings' timeout). A
    /// server that keeps sending without finishing is cut off here: [`crate::LlmError::Timeout`].
    pub timeout: Option<std::time::Duration>,
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// The assistant message (text and/or tool calls).
    pub message: Message,
    /// Why it stopped.
    pub finish_reason: Option<String>,
}

impl ChatResponse {
    /// Whether the answer stopped at the request's `max_tokens` (`finish_reason: "length"`):
    /// cut, not finished — its text or tool arguments may be incomplete.
    #[must_use]
    pub fn cut_at_limit(&self) -> bool {
        self.finish_reason.as_deref() == Some("length")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_tool_calls_read_as_none() {
        let m: Message =
            serde_json::from_str(r#"{"role":"assistant","content":"hi","tool_calls":null}"#)
                .unwrap();
        assert!(m.tool_calls.is_empty());
    }
}
