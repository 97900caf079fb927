//! The HTTP client: request bodies, sending with retries (doubling backoff on 429 / 5xx /
//! connection resets, `Retry-After` honoured), status classification, plain chat completions and
//! the connection test. Streaming, structured output and embeddings build on `Client::send`
//! in their own modules.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{CancellationToken, ChatRequest, ChatResponse, LlmError, LlmSettings, Message};

/// Model names [`Client::list_models`] returns at most.
pub const MAX_LISTED_MODELS: usize = 500;
/// The largest model list read (a server sending more is answered with an error).
const MAX_MODEL_LIST_BYTES: usize = 4 << 20;

/// The client.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    settings: LlmSettings,
    /// Attempts per request (1 = no retry).
    pub attempts: u32,
    /// First backoff delay (doubles each retry).
    pub backoff: Duration,
    /// What is learnt of each server + model, shared with clients made from the same registry.
    profiles: crate::Profiles,
}

impl Client {
    /// A client for these settings, learning of its servers afresh.
    pub fn new(settings: LlmSettings) -> Result<Self, LlmError> {
        Self::with_profiles(settings, crate::Profiles::default())
    }

    /// A client for these settings that shares what `profiles` learnt (and learns into it).
    pub fn with_profiles(
        settings: LlmSettings,
        profiles: crate::Profiles,
    ) -> Result<Self, LlmError> {
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
            profiles,
        })
    }

    /// The registry of what is learnt of servers (to make another client sharing it).
    #[must_use]
    pub fn profiles(&self) -> &crate::Profiles {
        &self.profiles
    }

    /// What is known of `model` on this client's server.
    #[must_use]
    pub fn profile(&self, model: &str) -> std::sync::Arc<crate::ModelProfile> {
        self.profiles.of(&self.settings.base_url, model)
    }

    /// The settings in use.
    #[must_use]
    pub fn settings(&self) -> &LlmSettings {
        &self.settings
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.settings.base_url.trim_end_matches('/'))
    }

    pub(crate) fn body(&self, req: &ChatRequest, stream: bool) -> Value {
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
    /// 10 s; not a refusal of the request's `response_format`), a timeout and cancellation.
    pub(crate) async fn send(
        &self,
        path: &str,
        body: &Value,
        cancel: &CancellationToken,
    ) -> Result<reqwest::Response, LlmError> {
        let mut delay = self.backoff;
        let mut last =
            LlmError::Unreachable(self.settings.base_url.clone(), "no attempt made".to_owned());
        for attempt in 1..=self.attempts.max(1) {
            let mut rb = self
                .http
                .post(self.url(path))
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(crate::wire::to_wire(body));
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
            // A server refusing the requested `response_format` will refuse again, whatever the
            // status (llama-cpp-python answers 500): `json` steps down instead.
            // Nor will one refusing the request's `tools` (llama.cpp without `--jinja`: HTTP 500
            // "tools param requires --jinja flag"): the agents switch to the text protocol.
            let refusal = (!body["response_format"].is_null() && crate::json::refuses_format(&err))
                || (!body["tools"].is_null() && crate::error::refuses_tools(&err));
            if refusal || !err.retryable() || attempt == self.attempts {
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
                    // FastAPI servers (llama-cpp-python): `{"detail": "..." | [...]}`.
                    .or_else(|| v["detail"].as_str().map(str::to_owned))
                    .or_else(|| (!v["detail"].is_null()).then(|| v["detail"].to_string()))
            })
            .unwrap_or_else(|| text.chars().take(300).collect());
        let lower = message.to_lowercase();
        if let Some(n) = crate::window::window_in_error(&message) {
            let model = body["model"].as_str().unwrap_or(&self.settings.model);
            tracing::info!(
                "{}: the model's context window is {n} tokens",
                self.settings.base_url
            );
            self.profile(model).learn_window(n);
        }
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

    /// The whole-call time limit of a request: its own, else the settings' timeout.
    pub(crate) fn call_limit(&self, req: &ChatRequest) -> Duration {
        req.timeout
            .unwrap_or(Duration::from_secs(self.settings.timeout_secs.max(1)))
    }

    /// One chat completion, within the request's time limit.
    pub async fn chat(
        &self,
        req: &ChatRequest,
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        let limit = self.call_limit(req);
        tokio::time::timeout(limit, self.chat_unbounded(req, cancel))
            .await
            .unwrap_or(Err(LlmError::Timeout(limit.as_secs().max(1))))
    }

    async fn chat_unbounded(
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
        if choice.is_null() {
            return Err(LlmError::BadResponse(
                "the answer holds no choices".to_owned(),
            ));
        }
        let message: Message = serde_json::from_value(choice["message"].clone())
            .map_err(|e| LlmError::BadResponse(format!("no message in the answer: {e}")))?;
        Ok(ChatResponse {
            message,
            finish_reason: choice["finish_reason"].as_str().map(str::to_owned),
        })
    }

    /// A GET answered with JSON (server self-description; no retries; `None` on any failure).
    pub(crate) async fn get_json(&self, url: &str) -> Option<Value> {
        self.answer_json(self.http.get(url)).await
    }

    /// A POST answered with JSON (as [`Self::get_json`]).
    pub(crate) async fn post_json(&self, url: &str, body: &Value) -> Option<Value> {
        self.answer_json(self.http.post(url).json(body)).await
    }

    async fn answer_json(&self, mut rb: reqwest::RequestBuilder) -> Option<Value> {
        if let Some(key) = self.settings.api_key.as_deref() {
            rb = rb.bearer_auth(key);
        }
        let resp = rb.send().await.ok()?;
        if !resp.status().is_success() {
            return None;
        }
        resp.json().await.ok()
    }

    /// The models the server offers (`GET /models`, the OpenAI list shape `{"data": [{"id"}]}`;
    /// Ollama's `{"models": [{"name"}]}` too), sorted and deduplicated. No retries: the person
    /// is waiting. Errors as for a chat (unreachable, unauthorized, another status).
    pub async fn list_models(&self, cancel: &CancellationToken) -> Result<Vec<String>, LlmError> {
        let mut rb = self.http.get(self.url("models"));
        if let Some(key) = self.settings.api_key.as_deref() {
            rb = rb.bearer_auth(key);
        }
        let resp = tokio::select! {
            () = cancel.cancelled() => return Err(LlmError::Cancelled),
            r = rb.send() => r,
        };
        let resp = match resp {
            Ok(r) => r,
            Err(e) if e.is_timeout() => return Err(LlmError::Timeout(self.settings.timeout_secs)),
            Err(e) => {
                return Err(LlmError::Unreachable(
                    self.settings.base_url.clone(),
                    e.to_string(),
                ));
            }
        };
        let status = resp.status().as_u16();
        let mut resp = resp;
        let mut body = Vec::new();
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| LlmError::Unreachable(self.settings.base_url.clone(), e.to_string()))?
        {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_MODEL_LIST_BYTES {
                return Err(LlmError::BadResponse(format!(
                    "the model list is over {} MB",
                    MAX_MODEL_LIST_BYTES >> 20
                )));
            }
        }
        let text = String::from_utf8_lossy(&body);
        if !(200..300).contains(&status) {
            return Err(match status {
                // No list here is not a wrong model name.
                404 => LlmError::Http(404, "the server does not list its models".to_owned()),
                _ => self.classify(status, &text, &Value::Null),
            });
        }
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| LlmError::BadResponse(format!("the model list is not JSON: {e}")))?;
        let items = v["data"]
            .as_array()
            .or_else(|| v["models"].as_array())
            .ok_or_else(|| LlmError::BadResponse("the answer holds no model list".to_owned()))?;
        let mut names: Vec<String> = items
            .iter()
            .filter_map(|m| m["id"].as_str().or_else(|| m["name"].as_str()))
            .map(|n| n.chars().take(200).collect::<String>())
            .filter(|n| !n.trim().is_empty())
            .take(MAX_LISTED_MODELS)
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
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
