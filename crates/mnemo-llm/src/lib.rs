//! An OpenAI-compatible model client (works with Ollama, llama.cpp server, vLLM, OpenAI,
//! DashScope, OpenRouter): Chat Completions plain and streamed (SSE, tool-call deltas included),
//! tool calls, JSON-schema structured output with a fallback for servers without it (instruct,
//! parse, validate, one retry), Embeddings; timeouts, retries with backoff on 429 / 5xx /
//! connection resets, cancellation, and typed errors.
//!
//! Settings come from `settings.toml` (`[llm]`) with `MNEMO_LLM_*` environment overrides; the
//! API key lives in its own 0600 file and is never logged.

pub mod settings;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
pub use settings::LlmSettings;
pub use tokio_util::sync::CancellationToken;

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// No model is configured.
    #[error(
        "no model is configured: set a base URL and model in Settings (or MNEMO_LLM_BASE_URL and MNEMO_LLM_MODEL)"
    )]
    NotConfigured,
    /// The server could not be reached (after retries).
    #[error("the model server at {0} is unreachable: is it running? ({1})")]
    Unreachable(String, String),
    /// The key was refused.
    #[error("the model server refused the API key (HTTP {0}): check the key in Settings")]
    Unauthorized(u16),
    /// The model does not exist on the server.
    #[error("model `{0}` was not found on the server: check the model name in Settings")]
    ModelNotFound(String),
    /// The conversation is longer than the model accepts.
    #[error("the conversation is longer than the model's context window: {0}")]
    ContextTooLong(String),
    /// Too many requests, still after retries.
    #[error("the model server is rate-limiting requests; try again shortly")]
    RateLimited,
    /// Any other HTTP error.
    #[error("the model server answered HTTP {0}: {1}")]
    Http(u16, String),
    /// The answer could not be understood.
    #[error("the model's answer could not be used: {0}")]
    BadResponse(String),
    /// No answer within the time limit.
    #[error("the model did not answer within {0} seconds")]
    Timeout(u64),
    /// Cancelled by the caller.
    #[error("cancelled")]
    Cancelled,
}

impl LlmError {
    /// Whether retrying may help.
    #[must_use]
    pub fn retryable(&self) -> bool {
        matches!(self, Self::Unreachable(..) | Self::RateLimited)
            || matches!(self, Self::Http(s, _) if *s >= 500)
    }
}

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

fn function_type() -> String {
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
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// The assistant message (text and/or tool calls).
    pub message: Message,
    /// Why it stopped.
    pub finish_reason: Option<String>,
}

/// A piece of a streamed answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta {
    /// More text.
    Text(String),
    /// A tool call started (its index, id and name).
    ToolCallStart {
        /// Position.
        index: usize,
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
    },
    /// More argument text for a tool call.
    ToolCallArgs {
        /// Position.
        index: usize,
        /// Fragment.
        fragment: String,
    },
}

/// The client.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    settings: LlmSettings,
    /// Attempts per request (1 = no retry).
    pub attempts: u32,
    /// First backoff delay (doubles each retry).
    pub backoff: Duration,
}

impl Client {
    /// A client for these settings.
    pub fn new(settings: LlmSettings) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(Duration::from_secs(settings.timeout_secs))
            .build()
            .map_err(|e| LlmError::BadResponse(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self {
            http,
            settings,
            attempts: 3,
            backoff: Duration::from_millis(250),
        })
    }

    /// The settings in use.
    #[must_use]
    pub fn settings(&self) -> &LlmSettings {
        &self.settings
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.settings.base_url.trim_end_matches('/'))
    }

    fn body(&self, req: &ChatRequest, stream: bool) -> Value {
        let model = req
            .model
            .clone()
            .unwrap_or_else(|| self.settings.model.clone());
        let mut body = json!({"model": model, "messages": req.messages, "stream": stream});
        if !req.tools.is_empty() {
            body["tools"] = req
                .tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
                .collect();
        }
        if let Some(t) = req.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(m) = req.max_tokens {
            body["max_tokens"] = json!(m);
        }
        if let Some(f) = &req.response_format {
            body["response_format"] = f.clone();
        }
        body
    }

    /// Send a request with retries (429, 5xx, connection resets; `Retry-After` honoured up to
    /// 10 s), a timeout and cancellation.
    async fn send(
        &self,
        path: &str,
        body: &Value,
        cancel: &CancellationToken,
    ) -> Result<reqwest::Response, LlmError> {
        let mut delay = self.backoff;
        let mut last =
            LlmError::Unreachable(self.settings.base_url.clone(), "no attempt made".to_owned());
        for attempt in 1..=self.attempts.max(1) {
            let mut rb = self.http.post(self.url(path)).json(body);
            if let Some(key) = self.settings.api_key.as_deref() {
                rb = rb.bearer_auth(key);
            }
            let result = tokio::select! {
                () = cancel.cancelled() => return Err(LlmError::Cancelled),
                r = rb.send() => r,
            };
            let err = match result {
                Ok(resp) if resp.status().is_success() => return Ok(resp),
                Ok(resp) => {
                    let retry_after = resp
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.parse::<u64>().ok())
                        .map(|s| Duration::from_secs(s.min(10)));
                    let status = resp.status().as_u16();
                    let text = resp.text().await.unwrap_or_default();
                    if let Some(d) = retry_after {
                        delay = delay.max(d);
                    }
                    self.classify(status, &text, body)
                }
                Err(e) if e.is_timeout() => LlmError::Timeout(self.settings.timeout_secs),
                Err(e) => LlmError::Unreachable(self.settings.base_url.clone(), e.to_string()),
            };
            if !err.retryable() || attempt == self.attempts {
                return Err(err);
            }
            tracing::debug!("model call failed ({err}); retry {attempt} in {delay:?}");
            tokio::select! {
                () = cancel.cancelled() => return Err(LlmError::Cancelled),
                () = tokio::time::sleep(delay) => {}
            }
            delay *= 2;
            last = err;
        }
        Err(last)
    }

    fn classify(&self, status: u16, text: &str, body: &Value) -> LlmError {
        let message = serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| {
                v["error"]["message"]
                    .as_str()
                    .map(str::to_owned)
                    .or_else(|| v["error"].as_str().map(str::to_owned))
            })
            .unwrap_or_else(|| text.chars().take(300).collect());
        let lower = message.to_lowercase();
        match status {
            401 | 403 => LlmError::Unauthorized(status),
            404 => LlmError::ModelNotFound(body["model"].as_str().unwrap_or_default().to_owned()),
            429 => LlmError::RateLimited,
            400 | 413
                if lower.contains("context")
                    || lower.contains("too many tokens")
                    || lower.contains("too long") =>
            {
                LlmError::ContextTooLong(message)
            }
            _ => LlmError::Http(status, message),
        }
    }

    /// One chat completion.
    pub async fn chat(
        &self,
        req: &ChatRequest,
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        let body = self.body(req, false);
        let resp = self.send("chat/completions", &body, cancel).await?;
        let v: Value = tokio::select! {
            () = cancel.cancelled() => return Err(LlmError::Cancelled),
            r = resp.json() => r.map_err(|e| LlmError::BadResponse(format!("not JSON: {e}")))?,
        };
        let choice = &v["choices"][0];
        let message: Message = serde_json::from_value(choice["message"].clone())
            .map_err(|e| LlmError::BadResponse(format!("no message in the answer: {e}")))?;
        Ok(ChatResponse {
            message,
            finish_reason: choice["finish_reason"].as_str().map(str::to_owned),
        })
    }

    /// A streamed chat completion: `on_delta` sees every piece as it arrives; the assembled
    /// answer is returned at the end.
    pub async fn chat_stream(
        &self,
        req: &ChatRequest,
        cancel: &CancellationToken,
        mut on_delta: impl FnMut(&Delta),
    ) -> Result<ChatResponse, LlmError> {
        let body = self.body(req, true);
        let mut resp = self.send("chat/completions", &body, cancel).await?;
        let mut acc = StreamAccumulator::default();
        let mut lines = LineSplitter::default();
        loop {
            let chunk = tokio::select! {
                () = cancel.cancelled() => return Err(LlmError::Cancelled),
                c = resp.chunk() => c.map_err(|e| LlmError::Unreachable(self.settings.base_url.clone(), format!("stream broke: {e}")))?,
            };
            let Some(chunk) = chunk else { break };
            for line in lines.push(&chunk) {
                if acc.feed_line(&line, &mut on_delta)? == Some(true) {
                    return Ok(acc.finish());
                }
            }
        }
        if let Some(last) = lines.finish() {
            acc.feed_line(&last, &mut on_delta)?;
        }
        Ok(acc.finish())
    }

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

    /// Embeddings of several texts.
    pub async fn embeddings(
        &self,
        model: &str,
        inputs: &[String],
        cancel: &CancellationToken,
    ) -> Result<Vec<Vec<f32>>, LlmError> {
        let body = json!({"model": model, "input": inputs});
        let resp = self.send("embeddings", &body, cancel).await?;
        let v: Value = resp
            .json()
            .await
            .map_err(|e| LlmError::BadResponse(format!("not JSON: {e}")))?;
        let mut data: Vec<(usize, Vec<f32>)> = v["data"]
            .as_array()
            .ok_or_else(|| LlmError::BadResponse("no `data` in the embeddings answer".to_owned()))?
            .iter()
            .map(|d| {
                let idx = usize::try_from(d["index"].as_u64().unwrap_or(0)).unwrap_or(0);
                let vec = serde_json::from_value::<Vec<f32>>(d["embedding"].clone())
                    .map_err(|e| LlmError::BadResponse(e.to_string()))?;
                Ok((idx, vec))
            })
            .collect::<Result<_, LlmError>>()?;
        data.sort_by_key(|(i, _)| *i);
        if data.len() != inputs.len() {
            return Err(LlmError::BadResponse(format!(
                "{} embeddings for {} inputs",
                data.len(),
                inputs.len()
            )));
        }
        Ok(data.into_iter().map(|(_, v)| v).collect())
    }

    /// "Test connection": a one-token chat with the main model.
    pub async fn test_connection(&self, cancel: &CancellationToken) -> Result<String, LlmError> {
        let req = ChatRequest {
            messages: vec![Message::user("Reply with: ok")],
            max_tokens: Some(5),
            ..ChatRequest::default()
        };
        let r = self.chat(&req, cancel).await?;
        Ok(r.message.content.unwrap_or_default())
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

/// Splits a byte stream into lines, decoding each complete line (so a multi-byte character split
/// across network chunks stays whole).
#[derive(Debug, Default)]
pub struct LineSplitter {
    buf: Vec<u8>,
}

impl LineSplitter {
    /// Add bytes; returns the complete lines (without `\r\n` / `\n`).
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(end) = self.buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=end).collect();
            let text = String::from_utf8_lossy(&line[..line.len() - 1]).into_owned();
            out.push(text.trim_end_matches('\r').to_owned());
        }
        out
    }

    /// The last line when the stream ends without a newline.
    pub fn finish(self) -> Option<String> {
        (!self.buf.is_empty()).then(|| {
            String::from_utf8_lossy(&self.buf)
                .trim_end_matches('\r')
                .to_owned()
        })
    }
}

/// Assembles a streamed answer from SSE `data:` lines.
#[derive(Debug, Default)]
pub struct StreamAccumulator {
    text: String,
    calls: Vec<ToolCall>,
    finish: Option<String>,
}

impl StreamAccumulator {
    /// Feed one SSE line. `Ok(Some(true))` at `[DONE]`.
    pub fn feed_line(
        &mut self,
        line: &str,
        on_delta: &mut impl FnMut(&Delta),
    ) -> Result<Option<bool>, LlmError> {
        let Some(data) = line.strip_prefix("data:") else {
            return Ok(None);
        };
        let data = data.trim();
        if data == "[DONE]" {
            return Ok(Some(true));
        }
        if data.is_empty() {
            return Ok(None);
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| LlmError::BadResponse(format!("bad stream chunk: {e}")))?;
        if let Some(m) = v["error"]["message"].as_str() {
            return Err(LlmError::Http(500, m.to_owned()));
        }
        let choice = &v["choices"][0];
        if let Some(f) = choice["finish_reason"].as_str() {
            self.finish = Some(f.to_owned());
        }
        let delta = &choice["delta"];
        if let Some(t) = delta["content"].as_str().filter(|t| !t.is_empty()) {
            self.text.push_str(t);
            on_delta(&Delta::Text(t.to_owned()));
        }
        for tc in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = usize::try_from(tc["index"].as_u64().unwrap_or(0)).unwrap_or(usize::MAX);
            if index > self.calls.len() {
                return Err(LlmError::BadResponse(format!(
                    "tool call index {index} out of order"
                )));
            }
            while self.calls.len() <= index {
                self.calls.push(ToolCall {
                    id: String::new(),
                    kind: function_type(),
                    function: FunctionCall {
                        name: String::new(),
                        arguments: String::new(),
                    },
                });
            }
            let call = &mut self.calls[index];
            if let Some(id) = tc["id"].as_str() {
                call.id = id.to_owned();
            }
            if let Some(name) = tc["function"]["name"].as_str().filter(|n| !n.is_empty()) {
                call.function.name = name.to_owned();
                on_delta(&Delta::ToolCallStart {
                    index,
                    id: call.id.clone(),
                    name: name.to_owned(),
                });
            }
            if let Some(a) = tc["function"]["arguments"]
                .as_str()
                .filter(|a| !a.is_empty())
            {
                call.function.arguments.push_str(a);
                on_delta(&Delta::ToolCallArgs {
                    index,
                    fragment: a.to_owned(),
                });
            }
        }
        Ok(Some(false))
    }

    /// The assembled answer.
    #[must_use]
    pub fn finish(self) -> ChatResponse {
        ChatResponse {
            message: Message {
                role: Role::Assistant,
                content: (!self.text.is_empty()).then_some(self.text),
                tool_calls: self.calls,
                tool_call_id: None,
            },
            finish_reason: self.finish,
        }
    }
}

#[cfg(test)]
mod tests {
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
    fn stream_accumulator_assembles_text_and_tool_calls() {
        let mut acc = StreamAccumulator::default();
        let mut seen = Vec::new();
        let mut cb = |d: &Delta| seen.push(d.clone());
        for l in [
            r#"data: {"choices":[{"delta":{"content":"Hel"}}]}"#,
            r#"data: {"choices":[{"delta":{"content":"lo"}}]}"#,
            r#"data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"read_file","arguments":""}}]}}]}"#,
            r#"data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}}]}"#,
            r#"data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a.md\"}"}}]}}]}"#,
            r#"data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            ": keep-alive comment",
        ] {
            acc.feed_line(l, &mut cb).unwrap();
        }
        assert_eq!(acc.feed_line("data: [DONE]", &mut cb).unwrap(), Some(true));
        let r = acc.finish();
        assert_eq!(r.message.content.as_deref(), Some("Hello"));
        assert_eq!(r.message.tool_calls[0].function.name, "read_file");
        assert_eq!(
            r.message.tool_calls[0].function.arguments,
            r#"{"path":"a.md"}"#
        );
        assert_eq!(r.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(seen.len(), 5);
        assert!(
            StreamAccumulator::default()
                .feed_line("data: {nope", &mut |_| {})
                .is_err()
        );
    }

    #[test]
    fn line_splitter_keeps_multibyte_characters_split_across_chunks() {
        let text = "data: {\"choices\":[{\"delta\":{\"content\":\"你好\"}}]}\n".as_bytes();
        let cut = text.iter().position(|b| *b >= 0x80).unwrap() + 1; // inside the first character
        let mut s = LineSplitter::default();
        assert!(s.push(&text[..cut]).is_empty());
        let lines = s.push(&text[cut..]);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].contains("你好"));
        let mut s = LineSplitter::default();
        assert!(s.push(b"data: [DONE]").is_empty());
        assert_eq!(s.finish().as_deref(), Some("data: [DONE]"));
    }

    #[test]
    fn null_tool_calls_and_absurd_indexes() {
        let m: Message =
            serde_json::from_str(r#"{"role":"assistant","content":"hi","tool_calls":null}"#)
                .unwrap();
        assert!(m.tool_calls.is_empty());
        let mut acc = StreamAccumulator::default();
        let line = r#"data: {"choices":[{"delta":{"tool_calls":[{"index":1000000000,"id":"x","function":{"name":"a","arguments":""}}]}}]}"#;
        assert!(acc.feed_line(line, &mut |_| {}).is_err());
    }

    #[test]
    fn only_transient_errors_are_retried() {
        assert!(LlmError::RateLimited.retryable());
        assert!(LlmError::Http(503, String::new()).retryable());
        assert!(LlmError::Unreachable(String::new(), String::new()).retryable());
        assert!(!LlmError::Unauthorized(401).retryable());
        assert!(!LlmError::Http(400, String::new()).retryable());
        assert!(!LlmError::ModelNotFound(String::new()).retryable());
    }
}
