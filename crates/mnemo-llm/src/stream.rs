//! Streamed chat completions: SSE bytes split into lines ([`LineSplitter`]), `data:` lines
//! assembled into an answer ([`StreamAccumulator`]) with every text and tool-call piece passed
//! on as a [`Delta`].

use serde_json::Value;

use crate::message::function_type;
use crate::{
    CancellationToken, ChatRequest, ChatResponse, Client, FunctionCall, LlmError, Message, Role,
    ToolCall,
};

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

impl Client {
    /// A streamed chat completion: `on_delta` sees every piece as it arrives; the assembled
    /// answer is returned at the end.
    pub async fn chat_stream(
        &self,
        req: &ChatRequest,
        cancel: &CancellationToken,
        on_delta: impl FnMut(&Delta),
    ) -> Result<ChatResponse, LlmError> {
        let limit = self.call_limit(req);
        tokio::time::timeout(limit, self.chat_stream_unbounded(req, cancel, on_delta))
            .await
            .unwrap_or(Err(LlmError::Timeout(limit.as_secs().max(1))))
    }

    async fn chat_stream_unbounded(
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
                c = resp.chunk() => c.map_err(|e| LlmError::Unreachable(self.settings().base_url.clone(), format!("stream broke: {e}")))?,
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
        if acc.is_empty() {
            return Err(LlmError::BadResponse(
                "the stream ended without an answer".to_owned(),
            ));
        }
        Ok(acc.finish())
    }
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

    /// Whether nothing at all arrived: no text, no tool call, no finish reason.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.calls.is_empty() && self.finish.is_none()
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
    fn absurd_tool_call_indexes_are_rejected() {
        let mut acc = StreamAccumulator::default();
        let line = r#"data: {"choices":[{"delta":{"tool_calls":[{"index":1000000000,"id":"x","function":{"name":"a","arguments":""}}]}}]}"#;
        assert!(acc.feed_line(line, &mut |_| {}).is_err());
    }
}
