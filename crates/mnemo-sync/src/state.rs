//! Sync's two pieces of state: its settings (`[sync]` in settings.toml, through
//! [`mnemo_store::settings`]) and `sync/state.json` (last runs, flagged files, open conflicts — this
//! home's side of every `conflicts.json`), owned here and written atomically under the sync lock.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mnemo_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

use super::meta::SyncConflict;
use mnemo_store::fsutil;

/// `[sync]` in settings.toml.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::SyncSettings`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncSettings {
    pub remote: Option<String>,
    pub author: Option<String>,
    /// Sync automatically: after local changes (debounced) and on an interval.
    #[serde(default)]
    pub auto: bool,
    /// Carry Claude Code's project memories (default on).
    #[serde(default = "yes")]
    pub claude: bool,
    /// Carry Qwen Code's project memories and user layer (default on).
    #[serde(default = "yes")]
    pub qwen: bool,
    /// Carry chat sessions too (whole conversations; off unless asked).
    #[serde(default)]
    pub sessions: bool,
    /// Workspaces shared with a team: workspace id → the team's remote. A shared workspace
    /// syncs through that remote instead of the home's.
    #[serde(default)]
    pub shared: BTreeMap<String, String>,
}

fn yes() -> bool {
    true
}

/// The settings as stored (defaults when absent).
pub fn load_settings(home: &Path) -> Result<SyncSettings> {
    match mnemo_store::settings::read_section(home, "sync")? {
        None => Ok(SyncSettings {
            claude: true,
            qwen: true,
            ..SyncSettings::default()
        }),
        Some(v) => v.try_into().map_err(|e| {
            Error::new(
                ErrorCode::Corrupt,
                format!("`[sync]` in settings.toml is not valid ({e}): fix or remove it"),
            )
        }),
    }
}

/// Check and store the settings.
pub fn save_settings(home: &Path, s: &SyncSettings) -> Result<SyncSettings> {
    let mut s = s.clone();
    s.remote = s
        .remote
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty());
    s.author = s
        .author
        .map(|a| a.trim().to_owned())
        .filter(|a| !a.is_empty());
    if let Some(r) = &s.remote {
        check_remote(r)?;
    }
    if let Some(a) = &s.author {
        author_line(Some(a))?;
    }
    s.shared = s
        .shared
        .into_iter()
        .map(|(w, u)| (w.trim().to_owned(), u.trim().to_owned()))
        .filter(|(w, u)| !w.is_empty() && !u.is_empty())
        .collect();
    for url in s.shared.values() {
        check_remote(url)?;
    }
    let value = toml::Value::try_from(&s)
        .map_err(|e| Error::new(ErrorCode::Io, format!("encoding [sync]: {e}")))?;
    mnemo_store::settings::update_section(home, "sync", |_| Ok(Some(value)))?;
    Ok(s)
}

/// A remote URL Mnemo will store: no control characters, no credentials, no secret.
pub fn check_remote(url: &str) -> Result<()> {
    if url.chars().any(|c| c.is_control()) || url.len() > 2048 {
        return Err(Error::new(
            ErrorCode::InvalidArguments,
            "the sync remote must be one line: a git URL or a folder path",
        ));
    }
    if url.starts_with('-') {
        return Err(Error::new(
            ErrorCode::InvalidArguments,
            "the sync remote cannot start with `-`: give a git URL or a folder path",
        ));
    }
    let userinfo = url
        .split_once("://")
        .and_then(|(_, rest)| rest.split('/').next())
        .and_then(|auth| auth.rsplit_once('@').map(|(u, _)| u.to_owned()));
    let has_password = userinfo.as_deref().is_some_and(|u| u.contains(':'));
    // A token given as the user name (`https://glpat-…@host/…`, a 40-hex name): long, and
    // nothing like a person's or a service's user name.
    let token_as_user = userinfo.as_deref().is_some_and(|u| {
        u.len() >= 20
            && u.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
    });
    // `?token=…`, `?private_token=…`, `?access_key=…` and the like.
    let token_in_query = url.split_once('?').is_some_and(|(_, q)| {
        q.split('&').any(|kv| {
            let k = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
            [
                "token",
                "key",
                "secret",
                "password",
                "passwd",
                "auth",
                "sig",
                "credential",
            ]
            .iter()
            .any(|w| k.contains(w))
        })
    });
    if has_password
        || token_as_user
        || token_in_query
        || !mnemo_store::secrets::scan(url).is_empty()
    {
        return Err(Error::new(
            ErrorCode::InvalidArguments,
            "the sync remote's URL holds a password or token: Mnemo never stores one — use git's \
             credential helper or an SSH key, and give the URL without it",
        ));
    }
    Ok(())
}

/// `Name <email>` for commits: the setting, else `Mnemo on <host> <mnemo@host>`.
pub fn author_line(setting: Option<&str>) -> Result<String> {
    let host = host_name();
    let Some(a) = setting else {
        return Ok(format!("Mnemo on {host} <mnemo@{host}>"));
    };
    let bad = a.chars().any(char::is_control) || a.matches('<').count() > 1;
    let (name, email) = match a.split_once('<') {
        Some((n, e)) => (n.trim(), e.trim().trim_end_matches('>').trim()),
        None => (a.trim(), ""),
    };
    if bad || name.is_empty() || email.contains('>') || name.contains('>') {
        return Err(Error::new(
            ErrorCode::InvalidArguments,
            "the sync author must read `Name <email>` (or just a name)",
        ));
    }
    let email = if email.is_empty() {
        format!("mnemo@{host}")
    } else {
        email.to_owned()
    };
    Ok(format!("{name} <{email}>"))
}

/// The name part of an author line.
#[must_use]
pub fn author_name(line: &str) -> String {
    line.split('<').next().unwrap_or(line).trim().to_owned()
}

fn host_name() -> String {
    let h = std::fs::read_to_string("/etc/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    let h: String = h
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
        .collect();
    if h.is_empty() {
        "this-machine".into()
    } else {
        h
    }
}

/// A file a sync did not carry, and why.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::SyncFlag`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncFlag {
    pub path: String,
    pub why: String,
    pub side: String,
}

/// How the last sync attempt ended.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::SyncRun`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncRun {
    pub at: String,
    pub error: Option<Error>,
    pub commit: Option<String>,
}

/// One key's remembered state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyState {
    /// When this key last synced with the remote.
    pub last_synced: Option<String>,
    /// The commit it last synced at (its merge base next time).
    #[serde(default)]
    pub base: Option<String>,
    /// Files the last sync left out.
    #[serde(default)]
    pub flagged: Vec<SyncFlag>,
    /// Conflicts waiting for a choice (this home's copy of the key's `conflicts.json`).
    #[serde(default)]
    pub conflicts: Vec<SyncConflict>,
    /// The workspaces (folders) here that synced as this key last time (`None`: a state from
    /// an older Mnemo). A folder in it held every file of the key after that sync, so a file
    /// missing from it was deleted there; a folder not in it (a second checkout, a worktree, a
    /// project moved) has deleted nothing.
    #[serde(default)]
    pub folders: Option<Vec<String>>,
    /// Files not brought up to date here by the last syncs (left out because they could not be
    /// sent, or held open by a writer): each with the blob it was last in step with (`None`:
    /// none). When such a file is read again, its changes are taken against that blob and what
    /// other homes wrote since is merged in, never dropped.
    #[serde(default)]
    pub behind: BTreeMap<String, Option<String>>,
}

/// `sync/state.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The last attempt.
    pub last_run: Option<SyncRun>,
    /// Per key.
    #[serde(default)]
    pub keys: BTreeMap<String, KeyState>,
}

/// The sync folder of a home.
#[must_use]
pub fn sync_dir(home: &Path) -> PathBuf {
    home.join("sync")
}

/// The state's file name in [`sync_dir`].
const STATE_FILE: &str = "state.json";

/// Call `changed` whenever `sync/state.json` changes: a sync ran (it records its run), a
/// conflict was left or resolved, the local history was reset — by this process or another
/// (`mnemo sync` at the command line). Creates `sync/` (private) when missing.
///
/// # Errors
/// The folder cannot be created or watched.
pub fn watch(
    home: &Path,
    changed: impl Fn() + Send + 'static,
) -> Result<mnemo_store::watch::FileWatch> {
    let dir = sync_dir(home);
    fsutil::private_dir(&dir).map_err(|e| Error::io(format!("creating {}", dir.display()), &e))?;
    mnemo_store::watch::watch_file(&dir, STATE_FILE, changed)
}

impl State {
    fn path(home: &Path) -> PathBuf {
        sync_dir(home).join(STATE_FILE)
    }

    /// Read it; a damaged file is moved aside (its conflicts are also in the repository).
    #[must_use]
    pub fn load(home: &Path) -> Self {
        let p = Self::path(home);
        let Ok(bytes) = std::fs::read(&p) else {
            return Self::default();
        };
        serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            tracing::warn!("{} is damaged ({e}); starting afresh", p.display());
            let _ = fsutil::quarantine(&p);
            Self::default()
        })
    }

    /// Write it atomically.
    pub fn save(&self, home: &Path) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(self)
            .map_err(|e| Error::new(ErrorCode::Io, format!("encoding sync state: {e}")))?;
        fsutil::write_private(&Self::path(home), &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_with_credentials_are_refused() {
        assert!(check_remote("https://u:tok@example.com/r.git").is_err());
        assert!(check_remote("https://glpat-abcdefghij0123456789@gitlab.com/o/r.git").is_err());
        assert!(
            check_remote("https://0123456789abcdef0123456789abcdef01234567@host/r.git").is_err()
        );
        assert!(check_remote("https://host/r.git?token=abc").is_err());
        assert!(check_remote("https://host/r.git?private_token=abc").is_err());
        assert!(check_remote("https://ana@example.com/r.git").is_ok());
        assert!(check_remote("ssh://git@example.com/r.git").is_ok());
        assert!(check_remote("https://example.com/r.git").is_ok());
        assert!(check_remote("git@example.com:a/r.git").is_ok());
        assert!(check_remote("/srv/memory.git").is_ok());
        assert!(check_remote("--upload-pack=x").is_err());
        assert!(check_remote("a\nb").is_err());
    }

    #[test]
    fn authors_read_name_and_email() {
        assert_eq!(
            author_line(Some("Ana <ana@x.org>")).unwrap(),
            "Ana <ana@x.org>"
        );
        assert!(author_line(Some("Ana")).unwrap().starts_with("Ana <mnemo@"));
        assert!(author_line(Some("A <b> <c>")).is_err());
        assert_eq!(author_name("Ana <ana@x.org>"), "Ana");
    }
}
