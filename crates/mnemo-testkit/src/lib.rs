//! A fake OpenAI-compatible model server for tests — the only stand-in in the project (the
//! remote model API is the one part of the system we do not run for real in tests).
//!
//! It listens on 127.0.0.1, speaks Chat Completions (plain and streamed as SSE, text and tool
//! calls, JSON answers), Embeddings and `GET /models`, plays a per-test script of replies
//! (errors and delays included), and records every request body so tests can assert on prompts.
//! The `mnemo-fake-model` binary runs it as a process for the end-to-end tests; `files` takes
//! folder snapshots that prove a tree outside Mnemo's roots was left alone.
//!
//! ```no_run
//! # async fn demo() {
//! use mnemo_testkit::{FakeModel, Reply};
//! let fake = FakeModel::start().await;
//! fake.push(Reply::text("Hello!"));
//! // point the client at fake.base_url() …
//! assert_eq!(fake.requests().len(), 0);
//! # }
//! ```

pub mod files;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// An assistant message with this text.
    Text(String),
    /// An assistant message calling tools: (name, arguments).
    ToolCalls(Vec<(String, Value)>),
    /// An HTTP error with this status and JSON body.
    Status(u16, Value),
    /// Wait, then answer.
    Delay(Duration, Box<Reply>),
    /// Close the connection without answering (a reset).
    Hangup,
    /// A `write_file` call saving the request's last user message (after any `Remember this:`
    /// line) as a `user` memory under `facts/` — a remember agent that does its job, whatever
    /// the fact (load tests).
    SaveFact,
    /// An extraction agent for imported conversations: when the request's last message is a
    /// tool result it answers "Saved."; otherwise it calls `write_file` saving the first
    /// `User:` line of the task as a `user` memory under `facts/`.
    SaveFirstUserLine,
    /// This exact body with this status (`application/json`): invalid JSON, empty choices…
    Raw(u16, String),
    /// Text that stopped at the request's `max_tokens` (`finish_reason: "length"`).
    Cut(String),
    /// A reply that never ends: a stream sending a delta every 50 ms forever (or, for a plain
    /// request, a body that never completes).
    Endless,
    /// A stream that sends some text, then an error event (a 500 in the middle of a stream).
    BrokenStream(String),
}

impl Reply {
    /// A text reply.
    pub fn text(s: impl Into<String>) -> Self {
        Self::Text(s.into())
    }
    /// A JSON answer (the text of the reply is the serialised value).
    #[must_use]
    pub fn json(v: &Value) -> Self {
        Self::Text(v.to_string())
    }
    /// One tool call.
    pub fn tool(name: impl Into<String>, args: Value) -> Self {
        Self::ToolCalls(vec![(name.into(), args)])
    }
    /// An OpenAI-style error.
    pub fn error(status: u16, message: impl Into<String>) -> Self {
        Self::Status(
            status,
            json!({"error": {"message": message.into(), "type": "error"}}),
        )
    }
}

/// What kind of chat request came in, for replies scripted per kind ([`FakeModel::push_for`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A streamed request (`"stream": true`): the chat reply.
    Stream,
    /// A request for structured output (`response_format` present): side queries such as recall.
    Json,
    /// A non-streamed request offering tools: the memory agent (extraction).
    Tools,
    /// Mnemo's tool-use probe (one tool named `mnemo_probe`). Unless scripted, answered with a
    /// well-formed call — this server proves tool use — and kept apart from [`FakeModel::requests`]
    /// (see [`FakeModel::probes`]), so scripts of the work that follows are not shifted by it.
    Probe,
    /// Anything else (e.g. "Test connection").
    Plain,
}

/// The probe tool's name (`mnemo_engine::planner::probe::PROBE_TOOL`).
pub const PROBE_TOOL: &str = "mnemo_probe";

impl Kind {
    /// Classify a request body.
    #[must_use]
    pub fn of(body: &Value) -> Self {
        let tools = body["tools"].as_array();
        if tools.is_some_and(|t| {
            t.iter()
                .any(|tool| tool["function"]["name"].as_str() == Some(PROBE_TOOL))
        }) {
            Self::Probe
        } else if body["stream"].as_bool().unwrap_or(false) {
            Self::Stream
        } else if !body["response_format"].is_null() {
            Self::Json
        } else if body["tools"].as_array().is_some_and(|t| !t.is_empty()) {
            Self::Tools
        } else {
            Self::Plain
        }
    }

    /// Parse `stream`, `json`, `tools` or `plain`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "stream" => Self::Stream,
            "json" => Self::Json,
            "tools" => Self::Tools,
            "probe" => Self::Probe,
            "plain" => Self::Plain,
            _ => return None,
        })
    }
}

/// Which structured-output requests the server accepts ([`FakeModel::set_formats`]). A refused
/// request is recorded but takes no scripted reply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Formats {
    /// Every `response_format` (OpenAI, vLLM, Ollama).
    #[default]
    All,
    /// As llama-cpp-python: `json_schema` is refused with HTTP 500 and a pydantic `detail`
    /// ("Input should be 'text' or 'json_object'"); `json_object` (with a `schema`) is accepted.
    LlamaCpp,
    /// No structured output: `json_schema` refused as in [`Self::LlamaCpp`], `json_object` with
    /// HTTP 400; only requests without a `response_format` are answered.
    TextOnly,
}

impl Formats {
    /// Parse `all`, `llama_cpp` or `text_only`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "all" => Self::All,
            "llama_cpp" => Self::LlamaCpp,
            "text_only" => Self::TextOnly,
            _ => return None,
        })
    }

    /// The refusal this server gives a request body, if any.
    fn refusal(self, body: &Value) -> Option<Reply> {
        let kind = body["response_format"]["type"].as_str()?;
        match (self, kind) {
            (Self::LlamaCpp | Self::TextOnly, "json_schema") => Some(Reply::Status(
                500,
                json!({"detail": "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should be 'text' or 'json_object' [type=literal_error, input_value='json_schema', input_type=str]"}),
            )),
            (Self::TextOnly, "json_object") => Some(Reply::error(
                400,
                "response_format of type json_object is not supported by this server",
            )),
            _ => None,
        }
    }
}

#[derive(Default)]
struct Script {
    replies: VecDeque<Reply>,
    routed: HashMap<Kind, VecDeque<Reply>>,
    requests: Vec<Value>,
    probes: Vec<Value>,
    chunk_delay: Duration,
    formats: Formats,
    context_window: Option<u32>,
    fallback: Option<Reply>,
}

/// A running fake server; stops when dropped.
pub struct FakeModel {
    base: String,
    script: Arc<Mutex<Script>>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// A listener on a port no earlier fake server of this process had. Code under test may remember
/// a server by its URL (recall stops asking a server whose picks keep failing), and the kernel
/// hands a just-freed port straight back: without this, a test's new fake could inherit what
/// another test taught the process about its predecessor at the same address.
async fn fresh_listener() -> tokio::net::TcpListener {
    static USED: Mutex<Vec<u16>> = Mutex::new(Vec::new());
    let mut held = Vec::new();
    loop {
        #[allow(clippy::unwrap_used)]
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        #[allow(clippy::unwrap_used)]
        let port = listener.local_addr().unwrap().port();
        let mut used = USED.lock().unwrap_or_else(PoisonError::into_inner);
        if !used.contains(&port) {
            used.push(port);
            return listener;
        }
        drop(used);
        // Keep it bound so the next bind gets another port.
        held.push(listener);
    }
}

fn lock(s: &Mutex<Script>) -> std::sync::MutexGuard<'_, Script> {
    s.lock().unwrap_or_else(PoisonError::into_inner)
}

impl FakeModel {
    /// Start on a free port of 127.0.0.1.
    ///
    /// # Panics
    /// If no port can be bound (tests only).
    pub async fn start() -> Self {
        let script = Arc::new(Mutex::new(Script::default()));
        let app = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/v1/embeddings", post(embeddings))
            .route("/v1/models", get(models))
            .route("/props", get(props))
            .route("/_requests", get(recorded))
            .with_state(Arc::clone(&script));
        let listener = fresh_listener().await;
        #[allow(clippy::unwrap_used)]
        let addr = listener.local_addr().unwrap();
        let (stop, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
        });
        Self {
            base: format!("http://{addr}/v1"),
            script,
            _stop: stop,
        }
    }

    /// The base URL to configure (ends in `/v1`).
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// The reply when no queued one is left (default: the text "ok").
    pub fn set_fallback(&self, reply: Reply) {
        lock(&self.script).fallback = Some(reply);
    }

    /// Queue a reply for the next chat request (when the queue is empty the reply is "ok").
    pub fn push(&self, reply: Reply) {
        lock(&self.script).replies.push_back(reply);
    }

    /// Queue a reply for the next chat request of one kind; these come before [`Self::push`]ed
    /// ones, so a test can script a whole turn without depending on the order of its requests.
    pub fn push_for(&self, kind: Kind, reply: Reply) {
        lock(&self.script)
            .routed
            .entry(kind)
            .or_default()
            .push_back(reply);
    }

    /// Pause between streamed chunks (default none), so a client can be seen receiving a reply
    /// piece by piece.
    pub fn set_chunk_delay(&self, d: Duration) {
        lock(&self.script).chunk_delay = d;
    }

    /// Which structured-output requests are accepted (default [`Formats::All`]).
    pub fn set_formats(&self, formats: Formats) {
        lock(&self.script).formats = formats;
    }

    /// Answer `GET /props` as llama.cpp does, with this context window (default: 404, as
    /// servers that do not describe themselves).
    pub fn set_context_window(&self, n_ctx: u32) {
        lock(&self.script).context_window = Some(n_ctx);
    }

    /// Every tool-use probe received so far, oldest first.
    #[must_use]
    pub fn probes(&self) -> Vec<Value> {
        lock(&self.script).probes.clone()
    }

    /// Every request body received so far (chat and embeddings, probes aside), oldest first.
    #[must_use]
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.script).requests.clone()
    }
}

async fn chat(State(script): State<Arc<Mutex<Script>>>, Json(body): Json<Value>) -> Response {
    let (reply, delay) = {
        let mut s = lock(&script);
        let kind = Kind::of(&body);
        let reply = if kind == Kind::Probe {
            s.probes.push(body.clone());
            s.routed
                .get_mut(&Kind::Probe)
                .and_then(VecDeque::pop_front)
                .unwrap_or_else(|| Reply::tool(PROBE_TOOL, json!({"word": "ready"})))
        } else {
            s.requests.push(body.clone());
            match s.formats.refusal(&body) {
                Some(refusal) => refusal,
                None => s
                    .routed
                    .get_mut(&kind)
                    .and_then(VecDeque::pop_front)
                    .or_else(|| s.replies.pop_front())
                    .or_else(|| s.fallback.clone())
                    .unwrap_or_else(|| Reply::text("ok")),
            }
        };
        (reply, s.chunk_delay)
    };
    let model = body["model"].as_str().unwrap_or("fake").to_owned();
    let stream = body["stream"].as_bool().unwrap_or(false);
    let reply = resolve(reply, &body);
    answer(reply, &model, stream, delay).await
}

async fn props(State(script): State<Arc<Mutex<Script>>>) -> Response {
    match lock(&script).context_window {
        Some(n) => Json(json!({"default_generation_settings": {"n_ctx": n}})).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn recorded(State(script): State<Arc<Mutex<Script>>>) -> Json<Value> {
    Json(Value::Array(lock(&script).requests.clone()))
}

async fn answer(mut reply: Reply, model: &str, stream: bool, delay: Duration) -> Response {
    while let Reply::Delay(d, inner) = reply {
        tokio::time::sleep(d).await;
        reply = *inner;
    }
    match reply {
        Reply::Status(code, body) => (
            StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            Json(body),
        )
            .into_response(),
        Reply::Hangup => {
            // A body that fails mid-way makes the server drop the connection: a reset.
            let failing = tokio_stream::iter(vec![
                Ok(axum::body::Bytes::from_static(b"{\"partial\":")),
                Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "hang up",
                )),
            ]);
            Response::builder()
                .status(200)
                .body(Body::from_stream(failing))
                .unwrap_or_default()
        }
        Reply::Raw(code, body) => (
            StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response(),
        Reply::Cut(text) if stream => sse(model, text_chunks(&text), "length", delay),
        Reply::Cut(text) => Json(completion(
            model,
            &json!({"role": "assistant", "content": text}),
            "length",
        ))
        .into_response(),
        Reply::Endless => endless(model, stream),
        Reply::BrokenStream(text) => {
            let mut events: Vec<String> = text_chunks(&text)
                .into_iter()
                .map(|d| {
                    let chunk = json!({"object": "chat.completion.chunk", "model": model,
                        "choices": [{"index": 0, "delta": d, "finish_reason": null}]});
                    format!("data: {chunk}\n\n")
                })
                .collect();
            events.push(
                "data: {\"error\": {\"code\": 500, \"message\": \"the server failed while generating\", \"type\": \"server_error\"}}\n\n"
                    .to_owned(),
            );
            (
                [(header::CONTENT_TYPE, "text/event-stream")],
                events.concat(),
            )
                .into_response()
        }
        Reply::Text(text) if stream => sse(model, text_chunks(&text), "stop", delay),
        Reply::ToolCalls(calls) if stream => sse(model, tool_chunks(&calls), "tool_calls", delay),
        Reply::Text(text) => Json(completion(
            model,
            &json!({"role": "assistant", "content": text}),
            "stop",
        ))
        .into_response(),
        Reply::ToolCalls(calls) => {
            let msg = json!({"role": "assistant", "content": null, "tool_calls": tool_call_values(&calls)});
            Json(completion(model, &msg, "tool_calls")).into_response()
        }
        Reply::Delay(..) | Reply::SaveFact | Reply::SaveFirstUserLine => {
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// A body that never ends (see [`Reply::Endless`]).
fn endless(model: &str, stream: bool) -> Response {
    let model = model.to_owned();
    let ticks = tokio_stream::StreamExt::then(tokio_stream::iter(0u64..), move |i| {
        let model = model.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let piece = if stream {
                let chunk = json!({"object": "chat.completion.chunk", "model": model,
                        "choices": [{"index": 0, "delta": {"content": format!("word{i} ")}, "finish_reason": null}]});
                format!("data: {chunk}\n\n")
            } else if i == 0 {
                "{\"choices\": [{\"message\": {\"role\": \"assistant\", \"content\": \"".to_owned()
            } else {
                "more ".to_owned()
            };
            Ok::<_, std::io::Error>(axum::body::Bytes::from(piece))
        }
    });
    let kind = if stream {
        "text/event-stream"
    } else {
        "application/json"
    };
    ([(header::CONTENT_TYPE, kind)], Body::from_stream(ticks)).into_response()
}

/// A reply made from the request (through any delay).
fn resolve(reply: Reply, body: &Value) -> Reply {
    match reply {
        Reply::SaveFact => save_fact(body),
        Reply::SaveFirstUserLine => save_first_user_line(body),
        Reply::Delay(d, inner) => Reply::Delay(d, Box::new(resolve(*inner, body))),
        other => other,
    }
}

fn save_first_user_line(body: &Value) -> Reply {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    if messages.last().is_some_and(|m| m["role"] == "tool") {
        return Reply::text("Saved.");
    }
    let task = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default();
    let Some(line) = task
        .lines()
        .find_map(|l| l.strip_prefix("User: "))
        .map(str::trim)
    else {
        return Reply::text("Nothing to save.");
    };
    let h = line.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    Reply::tool(
        "write_file",
        json!({"path": format!("facts/{h:016x}.md"), "content": format!("---\nname: Fact {h:016x}\ndescription: A fact from an imported conversation\ntype: user\n---\n{line}\n")}),
    )
}

fn save_fact(body: &Value) -> Reply {
    let last_user = body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default();
    let fact = last_user
        .strip_prefix("Remember this:")
        .unwrap_or(last_user)
        .trim()
        .to_owned();
    // FNV-1a: a stable file name per fact.
    let h = fact.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    Reply::tool(
        "write_file",
        json!({"path": format!("facts/{h:016x}.md"), "content": format!("---\nname: Fact {h:016x}\ndescription: A fact the user asked to remember\ntype: user\n---\n{fact}\n")}),
    )
}

fn tool_call_values(calls: &[(String, Value)]) -> Vec<Value> {
    calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            json!({"id": format!("call_{i}"), "type": "function", "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect()
}

fn completion(model: &str, message: &Value, finish: &str) -> Value {
    json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    })
}

/// Text split into a few deltas (by characters, so multi-byte text is split safely).
fn text_chunks(text: &str) -> Vec<Value> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = vec![json!({"role": "assistant", "content": ""})];
    for piece in chars.chunks(4) {
        out.push(json!({"content": piece.iter().collect::<String>()}));
    }
    out
}

/// Tool calls as streamed deltas: id + name first, then the arguments in fragments.
fn tool_chunks(calls: &[(String, Value)]) -> Vec<Value> {
    let mut out = Vec::new();
    for (i, (name, args)) in calls.iter().enumerate() {
        out.push(json!({"tool_calls": [{"index": i, "id": format!("call_{i}"), "type": "function", "function": {"name": name, "arguments": ""}}]}));
        let a: Vec<char> = args.to_string().chars().collect();
        for piece in a.chunks(7) {
            out.push(json!({"tool_calls": [{"index": i, "function": {"arguments": piece.iter().collect::<String>()}}]}));
        }
    }
    out
}

fn sse(model: &str, deltas: Vec<Value>, finish: &str, delay: Duration) -> Response {
    let mut events = Vec::new();
    for d in deltas {
        let chunk = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model,
            "choices": [{"index": 0, "delta": d, "finish_reason": null}]});
        events.push(format!("data: {chunk}\n\n"));
    }
    let last = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model,
        "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]});
    events.push(format!("data: {last}\n\ndata: [DONE]\n\n"));
    let headers = [(header::CONTENT_TYPE, "text/event-stream")];
    if delay.is_zero() {
        return (headers, events.concat()).into_response();
    }
    // One chunk at a time, with a pause before each.
    let stream = tokio_stream::StreamExt::then(tokio_stream::iter(events), move |e| async move {
        tokio::time::sleep(delay).await;
        Ok::<_, std::io::Error>(axum::body::Bytes::from(e))
    });
    (headers, Body::from_stream(stream)).into_response()
}

async fn embeddings(
    State(script): State<Arc<Mutex<Script>>>,
    Json(body): Json<Value>,
) -> Json<Value> {
    lock(&script).requests.push(body.clone());
    let inputs: Vec<String> = match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"object": "embedding", "index": i, "embedding": fake_vector(s)}))
        .collect();
    Json(json!({"object": "list", "data": data, "model": body["model"]}))
}

/// A deterministic 8-dimensional vector derived from the text's bytes.
#[must_use]
pub fn fake_vector(s: &str) -> Vec<f32> {
    let mut v = [0f32; 8];
    for (i, b) in s.bytes().enumerate() {
        v[i % 8] += f32::from(b) / 255.0;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    v.iter().map(|x| x / norm).collect()
}

async fn models() -> Json<Value> {
    Json(
        json!({"object": "list", "data": [{"id": "fake-main", "object": "model"}, {"id": "fake-fast", "object": "model"}]}),
    )
}
