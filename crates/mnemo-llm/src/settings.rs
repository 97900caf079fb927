//! Model settings: `[llm]` in `$MNEMO_HOME/settings.toml` (base URL, main model, fast model,
//! context window, timeout), the API key in `$MNEMO_HOME/llm.key` (mode 0600, never logged),
//! and the `MNEMO_LLM_BASE_URL`, `MNEMO_LLM_API_KEY`, `MNEMO_LLM_MODEL`, `MNEMO_LLM_FAST_MODEL`
//! environment overrides.

use std::fmt;
use std::path::Path;

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
            .finish()
    }
}

const KEY_FILE: &str = "llm.key";

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

    /// Read settings.toml's `[llm]`, the key file, then apply environment overrides.
    pub fn load(home: &Path) -> Result<Self> {
        let mut s = Self::load_stored(home)?;
        s.apply_env();
        Ok(s)
    }

    /// What is stored (settings.toml's `[llm]` and the key file), without environment
    /// overrides: the base for changing and saving settings, so an overriding variable is
    /// never written to disk.
    pub fn load_stored(home: &Path) -> Result<Self> {
        let path = home.join("settings.toml");
        let mut s = match std::fs::read_to_string(&path) {
            Ok(text) => {
                let table: toml::Table = toml::from_str(&text).map_err(|e| {
                    Error::new(
                        ErrorCode::Corrupt,
                        format!("{} is not valid: {e}; fix or remove it", path.display()),
                    )
                })?;
                match table.get("llm") {
                    Some(v) => v.clone().try_into().map_err(|e| {
                        Error::new(
                            ErrorCode::Corrupt,
                            format!("[llm] in {} is not valid: {e}", path.display()),
                        )
                    })?,
                    None => Self::default(),
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::default(),
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), &e)),
        };
        if let Ok(k) = std::fs::read_to_string(home.join(KEY_FILE)) {
            s.api_key = Some(k.trim().to_owned()).filter(|k| !k.is_empty());
        }
        Ok(s)
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

    /// Write `[llm]` into settings.toml (other tables kept) and the key to `llm.key` (0600).
    pub fn save(&self, home: &Path) -> Result<()> {
        let path = home.join("settings.toml");
        let mut table: toml::Table = match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text).map_err(|e| {
                Error::new(
                    ErrorCode::Corrupt,
                    format!("{} is not valid: {e}", path.display()),
                )
            })?,
            // Never replace a settings file that could not be read: it may hold the user's folders.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => toml::Table::new(),
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), &e)),
        };
        let llm = toml::Value::try_from(self)
            .map_err(|e| Error::new(ErrorCode::Io, format!("encoding settings: {e}")))?;
        table.insert("llm".to_owned(), llm);
        let text = toml::to_string_pretty(&table)
            .map_err(|e| Error::new(ErrorCode::Io, format!("encoding settings: {e}")))?;
        write_private(home, "settings.toml", text.as_bytes(), false)?;
        match &self.api_key {
            Some(k) => write_private(home, KEY_FILE, k.as_bytes(), true),
            None => match std::fs::remove_file(home.join(KEY_FILE)) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(Error::io("removing the key file", &e)),
            },
        }
    }
}

/// Atomic write; `private` makes the file 0600 before any byte of it exists under its name.
fn write_private(dir: &Path, name: &str, bytes: &[u8], private: bool) -> Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(format!("creating {}", dir.display()), &e))?;
    // A temp name of its own: concurrent writers never share (and interleave in) one file.
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{seq}.tmp", std::process::id()));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if private {
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    }
    let mut f = opts
        .open(&tmp)
        .map_err(|e| Error::io(format!("writing {}", tmp.display()), &e))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io(format!("writing {}", tmp.display()), &e))?;
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::io(format!("restricting {}", tmp.display()), &e))?;
    }
    std::fs::rename(&tmp, dir.join(name)).map_err(|e| Error::io(format!("replacing {name}"), &e))
}
