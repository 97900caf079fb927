//! Model settings: what `[llm]` in `$MNEMO_HOME/settings.toml` holds (base URL, main model,
//! fast model, context window, timeout), the API key (kept apart, in `llm.key`; never logged),
//! and the `MNEMO_LLM_BASE_URL`, `MNEMO_LLM_API_KEY`, `MNEMO_LLM_MODEL`, `MNEMO_LLM_FAST_MODEL`
//! environment overrides. This module does no file IO: the files have one owner,
//! `mnemo_store::settings`; here is only their meaning.

use std::fmt;

use mnemo_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

/// Where and how to reach the model.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LlmSettings {
    /// OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// Bearer key (stored in `llm.key`, not in settings.toml).
    #[serde(skip)]
    pub api_key: Option<String>,
    /// Main model (chat, memory agent).
    pub model: String,
    /// Fast model (side queries such as recall selection); defaults to the main model.
    pub fast_model: String,
    /// Context window in tokens.
    pub context_window: u32,
    /// Seconds to wait for an answer.
    pub timeout_secs: u64,
    /// How extraction and remember write memories: the tool agent, the planner, or `auto`.
    pub extraction: Extraction,
    /// Use the model that comes with Mnemo, run on this computer, instead of the server above:
    /// `Some(true)` or `Some(false)` as the person chose; `None`: when no server is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local: Option<bool>,
}

/// How extraction and remember write memories.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Extraction {
    /// Learn per base URL + model which one writes true facts (the tool agent first; the
    /// planner when the agent writes nothing where the planner finds facts).
    #[default]
    Auto,
    /// Always the tool-calling memory agent.
    Tools,
    /// Always the planner: one side query held to a JSON schema.
    Planner,
}

impl Extraction {
    /// The settings value.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Tools => "tools",
            Self::Planner => "planner",
        }
    }

    /// Parse a settings value; a usage error names the three.
    pub fn parse(s: &str) -> Result<Self> {
        match s.trim() {
            "" | "auto" => Ok(Self::Auto),
            "tools" => Ok(Self::Tools),
            "planner" => Ok(Self::Planner),
            other => Err(Error::new(
                ErrorCode::Usage,
                format!("extraction `{other}` is not auto, tools or planner"),
            )),
        }
    }
}

impl Default for LlmSettings {
    fn default() -> Self {
        Self {
            base_url: String::new(),
            api_key: None,
            model: String::new(),
            fast_model: String::new(),
            context_window: 32_768,
            timeout_secs: 120,
            extraction: Extraction::Auto,
            local: None,
        }
    }
}

impl fmt::Debug for LlmSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("fast_model", &self.fast_model)
            .field("context_window", &self.context_window)
            .field("timeout_secs", &self.timeout_secs)
            .field("extraction", &self.extraction)
            .field("local", &self.local)
            .finish()
    }
}

impl LlmSettings {
    /// Whether a model can be called.
    #[must_use]
    pub fn is_configured(&self) -> bool {
        !self.base_url.trim().is_empty() && !self.model.trim().is_empty()
    }

    /// The model for side queries.
    #[must_use]
    pub fn fast(&self) -> &str {
        if self.fast_model.trim().is_empty() {
            &self.model
        } else {
            &self.fast_model
        }
    }

    /// Settings from what is stored — the `[llm]` table (`None`: absent) and the key — without
    /// environment overrides: the base for changing and saving settings, so an overriding
    /// variable is never written to disk. `corrupt` when the table does not fit.
    pub fn from_stored(llm: Option<toml::Value>, api_key: Option<String>) -> Result<Self> {
        let mut s: Self = match llm {
            Some(v) => v.try_into().map_err(|e| {
                Error::new(
                    ErrorCode::Corrupt,
                    format!("[llm] in settings.toml is not valid: {e}"),
                )
            })?,
            None => Self::default(),
        };
        s.api_key = api_key.filter(|k| !k.trim().is_empty());
        Ok(s)
    }

    /// The `[llm]` table to store (never the key: store that apart, 0600).
    pub fn to_stored(&self) -> Result<toml::Value> {
        toml::Value::try_from(self)
            .map_err(|e| Error::new(ErrorCode::Io, format!("encoding settings: {e}")))
    }

    /// Apply the `MNEMO_LLM_*` environment overrides; returns the names of those in effect.
    pub fn apply_env(&mut self) -> Vec<&'static str> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let mut used = Vec::new();
        if let Some(v) = env("MNEMO_LLM_BASE_URL") {
            self.base_url = v;
            used.push("MNEMO_LLM_BASE_URL");
        }
        if let Some(v) = env("MNEMO_LLM_API_KEY") {
            self.api_key = Some(v);
            used.push("MNEMO_LLM_API_KEY");
        }
        if let Some(v) = env("MNEMO_LLM_MODEL") {
            self.model = v;
            used.push("MNEMO_LLM_MODEL");
        }
        if let Some(v) = env("MNEMO_LLM_FAST_MODEL") {
            self.fast_model = v;
            used.push("MNEMO_LLM_FAST_MODEL");
        }
        used
    }
}
