//! The owner of `$MNEMO_HOME/settings.toml` and `$MNEMO_HOME/llm.key`.
//!
//! settings.toml holds tables owned by different parts (`folders` here, `[llm]` for the model
//! client, more later). Every change is a read-modify-write of the whole table under an OS file
//! lock (`.settings.lock`), replacing only the key it changes: saving the folder list keeps
//! `[llm]` and the reverse, also across processes. A file that cannot be parsed is never
//! overwritten (it may hold the user's folders): changes fail with `corrupt` until it is fixed.
//!
//! `llm.key` (the model API key) is written 0600 before any byte of it exists under its name.

use std::fs;
use std::path::{Path, PathBuf};

use mnemo_core::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

use crate::fsutil;
use crate::workspace::Workspace;

const FILE: &str = "settings.toml";
const LOCK: &str = ".settings.lock";
const KEY_FILE: &str = "llm.key";
/// The per-workspace auto-dream switches.
pub const AUTO_DREAM: &str = "auto_dream";
/// The per-workspace automatic-extraction switches.
pub const AUTO_EXTRACT: &str = "auto_extract";
/// The per-workspace conversation-record switches (on when absent).
pub const CHAT_RECORDS: &str = "chat_records";

/// The folder list: what `get_settings` / `set_settings` show and change.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Settings`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct Settings {
    pub folders: Vec<FolderEntry>,
}

/// A user-added folder.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::FolderEntry`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct FolderEntry {
    pub path: PathBuf,
}

fn path(home: &Path) -> PathBuf {
    home.join(FILE)
}

/// The whole file as a table (missing → empty; unparsable → `corrupt`, naming the problem).
pub fn read_table(home: &Path) -> Result<toml::Table> {
    let p = path(home);
    match fs::read_to_string(&p) {
        Ok(text) => toml::from_str(&text).map_err(|e| {
            Error::new(
                ErrorCode::Corrupt,
                format!("{} is not valid: {e}; fix or remove it", p.display()),
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(toml::Table::new()),
        Err(e) => Err(Error::io(format!("reading {}", p.display()), &e)),
    }
}

/// One top-level entry (`None` when absent).
pub fn read_section(home: &Path, key: &str) -> Result<Option<toml::Value>> {
    Ok(read_table(home)?.remove(key))
}

/// The workspaces shared with a team through sync: `[sync] shared` (workspace id → the team's
/// remote), as `mnemo-sync` stores it. Empty when absent or unreadable — it only labels writes.
#[must_use]
pub fn shared_workspaces(home: &Path) -> std::collections::BTreeMap<String, String> {
    read_section(home, "sync")
        .ok()
        .flatten()
        .and_then(|v| v.get("shared").cloned())
        .and_then(|v| v.try_into().ok())
        .unwrap_or_default()
}

/// Replace (or, with `None`, remove) one top-level entry, keeping every other one.
pub fn write_section(home: &Path, key: &str, value: Option<toml::Value>) -> Result<()> {
    update_section(home, key, |_| Ok(value))
}

/// Read-modify-write one top-level entry under the settings lock, so concurrent writers —
/// threads or processes — never lose each other's change: `f` gets the entry as it is now and
/// returns what it becomes (`None`: removed). Every other entry is kept.
pub fn update_section(
    home: &Path,
    key: &str,
    f: impl FnOnce(Option<toml::Value>) -> Result<Option<toml::Value>>,
) -> Result<()> {
    let _lock = fsutil::lock_file(&home.join(LOCK))?;
    let mut table = read_table(home)?;
    if let Some(v) = f(table.remove(key))? {
        table.insert(key.to_owned(), v);
    }
    let text = toml::to_string_pretty(&table)
        .map_err(|e| Error::new(ErrorCode::Io, format!("encoding settings: {e}")))?;
    fsutil::write_atomic(&path(home), text.as_bytes())
}

fn parse_folders(home: &Path, v: Option<toml::Value>) -> Result<Vec<FolderEntry>> {
    v.map_or_else(
        || Ok(Vec::new()),
        |v| {
            v.try_into().map_err(|e| {
                Error::new(
                    ErrorCode::Corrupt,
                    format!("`folders` in {} is not valid: {e}", path(home).display()),
                )
            })
        },
    )
}

fn encode_folders(folders: &[FolderEntry]) -> Result<toml::Value> {
    toml::Value::try_from(folders)
        .map_err(|e| Error::new(ErrorCode::Io, format!("encoding settings: {e}")))
}

/// The folder list.
pub fn folders(home: &Path) -> Result<Settings> {
    Ok(Settings {
        folders: parse_folders(home, read_section(home, "folders")?)?,
    })
}

/// Replace the folder list (every other table kept).
pub fn save_folders(home: &Path, settings: &Settings) -> Result<()> {
    let v = encode_folders(&settings.folders)?;
    write_section(home, "folders", Some(v))
}

/// Add a folder unless it is listed already; read and written under the lock, so two processes
/// adding folders at once both keep theirs.
pub fn add_folder(home: &Path, folder: &Path) -> Result<()> {
    update_section(home, "folders", |old| {
        let mut folders = parse_folders(home, old)?;
        if !folders.iter().any(|f| f.path == folder) {
            folders.push(FolderEntry {
                path: folder.to_owned(),
            });
        }
        encode_folders(&folders).map(Some)
    })
}

/// Take a folder off the list (a restore that made it and then found it elsewhere puts the
/// settings back as they were); read and written under the lock.
pub fn remove_folder(home: &Path, folder: &Path) -> Result<()> {
    update_section(home, "folders", |old| {
        let mut folders = parse_folders(home, old)?;
        folders.retain(|f| f.path != folder);
        encode_folders(&folders).map(Some)
    })
}

/// The switch table holding each workspace's review mode: automatic writes to its
/// memories become proposals.
pub const REVIEW: &str = "review";

/// A workspace's memory switches as settings.toml has them, each unset one at its default:
/// extraction after chat turns and conversation records on; auto-dream on only in Mnemo's own
/// workspaces (another tool may be consolidating its folders itself). Read by the API and
/// handed to the engine, which never reads settings.toml.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switches {
    /// `[auto_extract]`: extraction runs after chat turns.
    pub auto_extract: bool,
    /// `[auto_dream]`: a dream runs on its own when its gates allow.
    pub auto_dream: bool,
    /// `[chat_records]`: what the person says in chats is kept as conversation records.
    pub chat_records: bool,
}

impl Switches {
    /// Every switch on: a Mnemo workspace nobody switched.
    pub const ON: Self = Self {
        auto_extract: true,
        auto_dream: true,
        chat_records: true,
    };

    /// The switches of `ws` in the settings under `home` (one read of settings.toml; an
    /// unreadable file or table counts as unset, with a warning).
    #[must_use]
    pub fn read(home: &Path, ws: &Workspace) -> Self {
        let table = read_table(home).unwrap_or_else(|e| {
            tracing::warn!("settings unreadable, switches at their defaults: {e}");
            toml::Table::new()
        });
        let get = |section: &str| switch_in(&table, home, section, &ws.id);
        Self {
            auto_extract: get(AUTO_EXTRACT).unwrap_or(true),
            auto_dream: get(AUTO_DREAM).unwrap_or(ws.kind == mnemo_core::WorkspaceKind::Mnemo),
            chat_records: get(CHAT_RECORDS).unwrap_or(true),
        }
    }
}

/// One workspace's switch in a switch table (`[auto_dream]`, `[auto_extract]`): `None` when it
/// is not set — the caller's default applies. An unreadable table counts as unset, with a warning.
#[must_use]
pub fn switch(home: &Path, section: &str, workspace: &str) -> Option<bool> {
    match read_table(home) {
        Ok(table) => switch_in(&table, home, section, workspace),
        Err(e) => {
            tracing::warn!("`{section}` switches unreadable, using defaults: {e}");
            None
        }
    }
}

/// [`switch`] in a settings table already read.
fn switch_in(table: &toml::Table, home: &Path, section: &str, workspace: &str) -> Option<bool> {
    match table
        .get(section)?
        .clone()
        .try_into::<std::collections::BTreeMap<String, bool>>()
    {
        Ok(t) => t.get(workspace).copied(),
        Err(e) => {
            tracing::warn!(
                "`{section}` switches unreadable, using defaults: `{section}` in {} is not valid: {e}",
                path(home).display()
            );
            None
        }
    }
}

/// Set one workspace's switch in a switch table (every other entry and table kept).
pub fn set_switch(home: &Path, section: &str, workspace: &str, on: bool) -> Result<()> {
    update_section(home, section, |old| {
        let mut table = match old {
            Some(toml::Value::Table(t)) => t,
            Some(_) => {
                return Err(Error::new(
                    ErrorCode::Corrupt,
                    format!(
                        "`{section}` in {} is not a table: fix or remove it",
                        path(home).display()
                    ),
                ));
            }
            None => toml::Table::new(),
        };
        table.insert(workspace.to_owned(), toml::Value::Boolean(on));
        Ok(Some(toml::Value::Table(table)))
    })
}

/// The stored model API key, if any.
pub fn read_key(home: &Path) -> Option<String> {
    fs::read_to_string(home.join(KEY_FILE))
        .ok()
        .map(|k| k.trim().to_owned())
        .filter(|k| !k.is_empty())
}

/// Store (0600) or, with `None`, remove the model API key.
pub fn write_key(home: &Path, key: Option<&str>) -> Result<()> {
    match key {
        Some(k) => fsutil::write_private(&home.join(KEY_FILE), k.as_bytes()),
        None => match fs::remove_file(home.join(KEY_FILE)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io("removing the key file", &e)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_section_keeps_the_others() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join(FILE), "[llm]\nmodel = \"qwen3\"\n").unwrap();
        save_folders(
            d.path(),
            &Settings {
                folders: vec![FolderEntry {
                    path: d.path().to_path_buf(),
                }],
            },
        )
        .unwrap();
        let text = std::fs::read_to_string(d.path().join(FILE)).unwrap();
        assert!(text.contains("[llm]") && text.contains("qwen3"), "{text}");
        assert_eq!(folders(d.path()).unwrap().folders.len(), 1);
        let mut llm = toml::Table::new();
        llm.insert("model".into(), "other".into());
        write_section(d.path(), "llm", Some(llm.into())).unwrap();
        assert_eq!(folders(d.path()).unwrap().folders.len(), 1, "folders kept");
    }

    #[test]
    fn switches_read_each_table_with_its_default_and_survive_a_bad_one() {
        let d = tempfile::tempdir().unwrap();
        let ws = |id: &str, kind| Workspace {
            id: id.to_owned(),
            kind,
            label: id.to_owned(),
            origin: String::new(),
            memory_root: d.path().join("m"),
            state_dir: d.path().join("s"),
            lock_dir: d.path().join("s"),
            shared: None,
        };
        let personal = ws("personal", mnemo_core::WorkspaceKind::Mnemo);
        let claude = ws("claude:app", mnemo_core::WorkspaceKind::Claude);
        assert_eq!(Switches::read(d.path(), &personal), Switches::ON);
        assert!(
            !Switches::read(d.path(), &claude).auto_dream,
            "auto-dream is off by default outside Mnemo's own workspaces"
        );
        std::fs::write(
            d.path().join(FILE),
            "auto_extract = \"yes\"\n[chat_records]\npersonal = false\n",
        )
        .unwrap();
        let s = Switches::read(d.path(), &personal);
        assert!(s.auto_extract, "a table that is not one counts as unset");
        assert!(!s.chat_records);
        assert!(s.auto_dream);
        std::fs::write(d.path().join(FILE), "[chat_records\n").unwrap();
        assert_eq!(
            Switches::read(d.path(), &personal),
            Switches::ON,
            "an unreadable file: every default"
        );
    }

    #[test]
    fn an_unreadable_file_is_never_overwritten() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join(FILE), "folders = [broken").unwrap();
        let e = save_folders(d.path(), &Settings::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::Corrupt);
        assert_eq!(
            std::fs::read_to_string(d.path().join(FILE)).unwrap(),
            "folders = [broken"
        );
    }

    #[test]
    fn concurrent_folder_adds_keep_every_folder() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().to_path_buf();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let home = home.clone();
                std::thread::spawn(move || add_folder(&home, &home.join(format!("f{i}"))).unwrap())
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        add_folder(&home, &home.join("f0")).unwrap();
        assert_eq!(
            folders(&home).unwrap().folders.len(),
            8,
            "each once, none lost"
        );
    }

    #[test]
    fn concurrent_writers_lose_nothing() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().to_path_buf();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let home = home.clone();
                std::thread::spawn(move || {
                    write_section(&home, &format!("t{i}"), Some(toml::Value::Integer(i))).unwrap();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(read_table(&home).unwrap().len(), 8);
    }

    #[cfg(unix)]
    #[test]
    fn the_key_is_private_and_removable() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        write_key(d.path(), Some("sk-secret")).unwrap();
        let mode = std::fs::metadata(d.path().join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(read_key(d.path()).as_deref(), Some("sk-secret"));
        write_key(d.path(), None).unwrap();
        assert_eq!(read_key(d.path()), None);
        write_key(d.path(), None).unwrap();
    }
}
