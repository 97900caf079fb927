//! An OpenAI-compatible model client (works with Ollama, llama.cpp server, vLLM, OpenAI,
//! DashScope, OpenRouter): Chat Completions plain and streamed (SSE, tool-call deltas included),
//! tool calls, JSON-schema structured output stepping down for servers that refuse it
//! (`json_object`, then instructions in the prompt; remembered per server + model; parse,
//! validate, one retry), Embeddings; timeouts, retries with backoff on 429 / 5xx /
//! connection resets, cancellation, and typed errors.
//!
//! Settings come from `settings.toml` (`[llm]`) with `MNEMO_LLM_*` environment overrides; the
//! API key lives in its own 0600 file and is never logged.
//!
//! One concern per module: [`LlmError`] (`error`), the conversation types (`message`), the HTTP
//! [`Client`] with its retries (`client`), streaming (`stream`), structured output (`json`),
//! embeddings (`embeddings`), the server's real context window (`window`), tool use for
//! servers without tool calls ([`text_tools`]) and [`LlmSettings`]
//! ([`settings`]).

mod client;
mod embeddings;
mod error;
mod json;
mod message;
mod profile;
pub mod settings;
mod stream;
pub mod text_tools;
mod window;
mod wire;

pub use client::Client;
pub use error::{LlmError, refuses_tools};
pub use json::parse_json;
pub use message::{ChatRequest, ChatResponse, FunctionCall, Message, Role, Tool, ToolCall};
pub use profile::{ModelProfile, Profiles, ToolMode};
pub use settings::{Extraction, LlmSettings};
pub use stream::{Delta, LineSplitter, StreamAccumulator};
pub use tokio_util::sync::CancellationToken;
