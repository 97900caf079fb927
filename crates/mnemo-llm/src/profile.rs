//! What Mnemo learns of a model server + model while talking to it, in one [`ModelProfile`] per
//! base URL + model: its context window, the structured-output level it accepts, whether its tool
//! calls are native or need Mnemo's text protocol, and how many model recalls in a row came to
//! nothing. Profiles live in a [`Profiles`] registry the [`crate::Client`] holds: clients made
//! from one registry (the API keeps one for its life, across settings changes) share what was
//! learnt; a client made alone starts afresh. Nothing is kept process-wide, so a server that
//! failed once never colours another that later takes its port.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// How structured output is asked for, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum JsonLevel {
    /// `response_format: {"type": "json_schema", ...}` (OpenAI, vLLM, Ollama).
    JsonSchema,
    /// `response_format: {"type": "json_object", "schema": ...}` plus the schema in the prompt
    /// (llama.cpp / llama-cpp-python honour the schema there; others still get JSON mode).
    JsonObject,
    /// No `response_format`: the schema in the prompt only.
    Prompt,
}

impl JsonLevel {
    pub(crate) fn next(self) -> Self {
        match self {
            Self::JsonSchema => Self::JsonObject,
            Self::JsonObject | Self::Prompt => Self::Prompt,
        }
    }
}

/// How tools reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolMode {
    /// The API's `tools` and `tool_calls`.
    Native,
    /// Mnemo's text protocol (the engine's `protocol` module).
    Text,
}

#[derive(Debug, Default)]
struct Learned {
    /// `None`: not asked; `Some(None)`: asked, the server does not say.
    window: Option<Option<u32>>,
    json: Option<JsonLevel>,
    tools: Option<ToolMode>,
    failed_selections: u32,
}

/// What is known of one server + model (see the module docs).
#[derive(Debug, Default)]
pub struct ModelProfile {
    learned: Mutex<Learned>,
}

impl ModelProfile {
    fn with<R>(&self, f: impl FnOnce(&mut Learned) -> R) -> R {
        f(&mut self.learned.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The server's own context window: `None` when not asked yet, `Some(None)` when it does
    /// not say.
    #[must_use]
    pub fn window(&self) -> Option<Option<u32>> {
        self.with(|l| l.window)
    }

    /// Keep what asking the server gave, unless something was learnt meanwhile (an overflow
    /// error naming the size is not overwritten by "unknown"); returns what is known now.
    pub(crate) fn asked_window(&self, asked: Option<u32>) -> Option<u32> {
        self.with(|l| {
            let slot = l.window.get_or_insert(asked);
            if slot.is_none() {
                *slot = asked;
            }
            *slot
        })
    }

    /// The server named its window (an overflow error, its answer). Nonsense (< 256) is ignored.
    pub fn learn_window(&self, tokens: u32) {
        if tokens >= 256 {
            self.with(|l| l.window = Some(Some(tokens)));
        }
    }

    /// The structured-output level to start at.
    pub(crate) fn json_level(&self) -> JsonLevel {
        self.with(|l| l.json.unwrap_or(JsonLevel::JsonSchema))
    }

    /// The server refused a level: start lower from now on (only ever steps down).
    pub(crate) fn json_refused_down_to(&self, level: JsonLevel) {
        self.with(|l| l.json = Some(l.json.map_or(level, |was| was.max(level))));
    }

    /// The tool protocol this server + model needs (native until shown otherwise).
    #[must_use]
    pub fn tool_mode(&self) -> ToolMode {
        self.with(|l| l.tools.unwrap_or(ToolMode::Native))
    }

    /// It does not make native tool calls: Mnemo's text protocol from now on.
    pub fn use_text_tools(&self) {
        self.with(|l| l.tools = Some(ToolMode::Text));
    }

    /// Model recalls in a row that came to nothing (an unusable answer, an error, a timeout).
    #[must_use]
    pub fn failed_selections(&self) -> u32 {
        self.with(|l| l.failed_selections)
    }

    /// Count a model recall's outcome (a success starts the count again); returns the count.
    pub fn note_selection(&self, ok: bool) -> u32 {
        self.with(|l| {
            l.failed_selections = if ok { 0 } else { l.failed_selections + 1 };
            l.failed_selections
        })
    }
}

/// Base URL (without a trailing `/`) and model name.
type Key = (String, String);

/// The profiles of every server + model some client talked to (shared by clones).
#[derive(Debug, Clone, Default)]
pub struct Profiles {
    all: Arc<Mutex<HashMap<Key, Arc<ModelProfile>>>>,
}

impl Profiles {
    /// The profile of `model` on the server at `base_url` (a trailing `/` is the same server).
    #[must_use]
    pub fn of(&self, base_url: &str, model: &str) -> Arc<ModelProfile> {
        let key = (base_url.trim_end_matches('/').to_owned(), model.to_owned());
        Arc::clone(
            self.all
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(key)
                .or_default(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_is_per_server_and_model_and_shared_by_its_registry_only() {
        let p = Profiles::default();
        let a = p.of("http://one.test/v1/", "m");
        assert_eq!(a.tool_mode(), ToolMode::Native);
        a.use_text_tools();
        a.learn_window(8192);
        a.learn_window(100); // nonsense is ignored
        assert_eq!(a.window(), Some(Some(8192)));
        assert_eq!(a.asked_window(None), Some(8192), "learnt beats unknown");
        // The same server (with or without the slash) and model: the same profile.
        assert_eq!(
            {
                let shared = p.clone();
                std::thread::spawn(move || shared.of("http://one.test/v1", "m").tool_mode())
                    .join()
                    .unwrap()
            },
            ToolMode::Text
        );
        // Another model, or another registry: nothing learnt.
        assert_eq!(
            p.of("http://one.test/v1", "other").tool_mode(),
            ToolMode::Native
        );
        assert_eq!(
            Profiles::default().of("http://one.test/v1", "m").window(),
            None
        );
        // Structured output only steps down; selections count failures in a row.
        a.json_refused_down_to(JsonLevel::Prompt);
        a.json_refused_down_to(JsonLevel::JsonObject);
        assert_eq!(a.json_level(), JsonLevel::Prompt);
        assert_eq!((a.note_selection(false), a.note_selection(false)), (1, 2));
        assert_eq!((a.note_selection(true), a.failed_selections()), (0, 0));
    }
}
