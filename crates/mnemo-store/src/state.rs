//! Workspace bookkeeping: `meta.json` (how far a session was extracted is the session's own
//! record, kept with the chat sessions); and the
//! home's `model-paths.json`: which way of writing memories each model was found to need.
//!
//! Invariant: reading never fails on bad content. A corrupt file is moved aside as
//! `<name>.corrupt-<timestamp>`, recreated with defaults, and a warning is logged and returned.

use std::path::Path;

use mnemo_core::{Error, Result};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::fsutil;

/// `meta.json`: last extract / dream times, session ids, status. Unknown keys are kept.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Meta {
    /// When extraction last ran (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_extract_at: Option<String>,
    /// The session extraction last worked on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_extract_session_id: Option<String>,
    /// `completed` | `failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_extract_status: Option<String>,
    /// When dream last ran (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_dream_at: Option<String>,
    /// The session that last dreamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_dream_session_id: Option<String>,
    /// `updated` | `noop` | `failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_dream_status: Option<String>,
    /// Keys written by other versions or tools.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// File name of the metadata file in a state dir.
pub const META_FILE: &str = "meta.json";

/// File name of the learned extraction paths, in the home.
pub const MODEL_PATHS_FILE: &str = "model-paths.json";

/// `model-paths.json`: for each `<base URL> <model>`, the way of writing memories `auto`
/// settled on.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct ModelPaths {
    /// Keyed by `<base URL> <model>`.
    pub models: std::collections::BTreeMap<String, LearnedPath>,
}

/// What `auto` learned for one model.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", default)]
pub struct LearnedPath {
    /// `tools` or `planner`.
    pub path: String,
    /// Why, in words.
    pub why: String,
    /// When (RFC 3339).
    pub at: String,
}

/// A value read from disk plus any recovery that happened on the way.
#[derive(Debug)]
pub struct Loaded<T> {
    /// The value (defaults when missing or corrupt).
    pub value: T,
    /// Set when a corrupt file was moved aside.
    pub warning: Option<String>,
}

/// Read a JSON state file; missing → default; corrupt → moved aside, recreated, warned.
pub fn load<T: DeserializeOwned + Serialize + Default>(path: &Path) -> Result<Loaded<T>> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Loaded {
                value: T::default(),
                warning: None,
            });
        }
        Err(e) => return Err(Error::io(format!("reading {}", path.display()), &e)),
    };
    match serde_json::from_slice::<T>(&bytes) {
        Ok(value) => Ok(Loaded {
            value,
            warning: None,
        }),
        Err(e) => {
            let aside = fsutil::quarantine(path)?;
            let value = T::default();
            save(path, &value)?;
            let warning = format!(
                "{} was corrupt ({e}); moved it to {} and started afresh",
                path.display(),
                aside.display()
            );
            tracing::warn!("{warning}");
            Ok(Loaded {
                value,
                warning: Some(warning),
            })
        }
    }
}

/// Write a JSON state file atomically.
pub fn save<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| {
        Error::new(
            mnemo_core::ErrorCode::Io,
            format!("encoding {}: {e}", path.display()),
        )
    })?;
    text.push('\n');
    fsutil::write_atomic(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_files_give_defaults() {
        let d = tempfile::tempdir().unwrap();
        let m: Loaded<Meta> = load(&d.path().join(META_FILE)).unwrap();
        assert_eq!(m.value, Meta::default());
        assert!(m.warning.is_none());
    }

    #[test]
    fn round_trip_keeps_unknown_keys() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(META_FILE);
        std::fs::write(
            &p,
            r#"{"lastDreamAt":"2026-01-01T00:00:00Z","qwenOnly":{"a":1}}"#,
        )
        .unwrap();
        let m: Loaded<Meta> = load(&p).unwrap();
        assert_eq!(
            m.value.last_dream_at.as_deref(),
            Some("2026-01-01T00:00:00Z")
        );
        save(&p, &m.value).unwrap();
        let again: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        assert_eq!(again["qwenOnly"]["a"], 1);
    }

    #[test]
    fn corrupt_files_are_moved_aside_and_recreated() {
        let d = tempfile::tempdir().unwrap();
        for (name, junk) in [
            (META_FILE, &b"{not json"[..]),
            (MODEL_PATHS_FILE, &b"\xff\xfe garbage"[..]),
        ] {
            let p = d.path().join(name);
            std::fs::write(&p, junk).unwrap();
            let warning = if name == META_FILE {
                load::<Meta>(&p).unwrap().warning
            } else {
                load::<ModelPaths>(&p).unwrap().warning
            };
            assert!(warning.unwrap().contains("corrupt"));
            let aside: Vec<_> = std::fs::read_dir(d.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|n| n.starts_with(&format!("{name}.corrupt-")))
                .collect();
            assert_eq!(aside.len(), 1, "{aside:?}");
            assert_eq!(
                std::fs::read(d.path().join(&aside[0])).unwrap(),
                junk,
                "nothing lost"
            );
            assert!(
                serde_json::from_slice::<serde_json::Value>(&std::fs::read(&p).unwrap()).is_ok()
            );
        }
    }
}
