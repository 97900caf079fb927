//! The one API over Mnemo's memory: every operation a client needs (workspaces, list, get,
//! create, update, remove, search, history, diff, undo, status, settings, change events,
//! recall, model settings, chat sessions and turns with their events — see [`model`]).
//! The Tauri shell, the HTTP server and the CLI are thin layers over [`Api`]; none of them
//! touches the store directly.
//!
//! Commands are declared once, in [`for_each_command!`]: that list drives the JSON dispatcher
//! used by HTTP ([`Api::call`]) and the Tauri command wrappers, so both transports offer the same
//! commands with the same argument names (camelCase on the wire, as Tauri does).
//!
//! Errors cross every boundary as `mnemo_core::Error` = `{ code, message }` with stable codes.

mod model;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use mnemo_core::{ChangeSource, Error, ErrorCode, MemoryChanged, MemoryType, Result};
use mnemo_store::index::{DocSummary, Hit};
use mnemo_store::journal::ChangeSummary;
use mnemo_store::vault::{MemoryDetail, Status, WorkspaceInfo, WriteOutcome};
use mnemo_store::watch::WatchHandle;
use mnemo_store::workspace::Settings;
use mnemo_store::{Home, Vault};
use serde::{Deserialize, Serialize};
use specta::Type;

pub use model::{ChatEvent, ChatLine, ChatTranscript, MAX_MESSAGE_BYTES, ModelSettings, ModelTest};

/// Most results a list-like command returns when no limit is given.
pub const DEFAULT_LIMIT: u32 = 200;
/// Largest limit a client may ask for.
pub const MAX_LIMIT: u32 = 10_000;

/// A new memory, as clients send it.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
pub struct NewMemory {
    /// Path relative to the memory root (`null`: derived from the name).
    pub path: Option<String>,
    /// Short title.
    pub name: String,
    /// One specific line.
    pub description: String,
    /// Memory type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    /// Body text.
    pub body: String,
}

/// Changes to a memory, as clients send them; `null` fields stay as they are.
#[derive(Debug, Clone, Default, Serialize, Deserialize, Type)]
pub struct Patch {
    /// New name.
    pub name: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// New type (validated: `invalid_type` otherwise).
    #[serde(rename = "type")]
    pub memory_type: Option<String>,
    /// New body.
    pub body: Option<String>,
    /// The hash the client last read; `conflict` if the file changed since.
    pub expected_hash: Option<String>,
}

/// A journaled change with its before/after text, for a diff view.
#[derive(Debug, Clone, Serialize, Type)]
pub struct ChangeDiff {
    /// The change.
    pub change: ChangeSummary,
    /// Text before (`null`: no file, or not text).
    pub before: Option<String>,
    /// Text after (`null`: deleted, or not text).
    pub after: Option<String>,
}

/// Invokes `$m! { name(arg: Type, ...) -> Ret; ... }` with every API command. Transports use it
/// to generate their bindings, so the command set and argument names are defined only here.
#[macro_export]
macro_rules! for_each_command {
    ($m:ident) => {
        $m! {
            workspaces() -> Vec<$crate::reexports::WorkspaceInfo>;
            add_folder(path: String) -> $crate::reexports::WorkspaceInfo;
            list(workspace: Option<String>, memory_type: Option<$crate::reexports::MemoryType>) -> Vec<$crate::reexports::DocSummary>;
            get(workspace: String, path: String) -> $crate::reexports::MemoryDetail;
            create(workspace: String, memory: $crate::NewMemory) -> $crate::reexports::WriteOutcome;
            update(workspace: String, path: String, patch: $crate::Patch) -> $crate::reexports::WriteOutcome;
            remove(workspace: String, path: String) -> $crate::reexports::WriteOutcome;
            search(workspace: Option<String>, query: String, limit: Option<u32>) -> Vec<$crate::reexports::Hit>;
            history(workspace: Option<String>, path: Option<String>, limit: Option<u32>) -> Vec<$crate::reexports::ChangeSummary>;
            diff(id: i64) -> $crate::ChangeDiff;
            undo(id: i64) -> $crate::reexports::WriteOutcome;
            status() -> $crate::reexports::Status;
            get_settings() -> $crate::reexports::Settings;
            set_settings(settings: $crate::reexports::Settings) -> ();
            recall(workspace: String, query: String, already_surfaced: Option<Vec<String>>, lexical: Option<bool>) -> $crate::reexports::RecallResult;
            get_model_settings() -> $crate::ModelSettings;
            set_model_settings(settings: $crate::ModelSettings) -> $crate::ModelSettings;
            test_model() -> $crate::ModelTest;
            chat_sessions(workspace: String) -> Vec<$crate::reexports::SessionInfo>;
            chat_create(workspace: String, title: Option<String>) -> $crate::reexports::SessionInfo;
            chat_transcript(workspace: String, session: String) -> $crate::ChatTranscript;
            chat_update(workspace: String, session: String, title: Option<String>, ignore_memory: Option<bool>) -> $crate::reexports::SessionInfo;
            chat_delete(workspace: String, session: String) -> ();
            chat_send(workspace: String, session: String, message: String) -> $crate::reexports::TurnResult;
            chat_cancel(session: String) -> bool;
        }
    };
}

/// Types named by [`for_each_command!`], so users of the macro need no store imports.
pub mod reexports {
    pub use mnemo_core::MemoryType;
    pub use mnemo_engine::RecallResult;
    pub use mnemo_engine::chat::{SessionInfo, TurnResult};
    pub use mnemo_store::index::{DocSummary, Hit};
    pub use mnemo_store::journal::ChangeSummary;
    pub use mnemo_store::vault::{MemoryDetail, Status, WorkspaceInfo, WriteOutcome};
    pub use mnemo_store::workspace::Settings;
}

/// The API. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Api {
    vault: Arc<Vault>,
    watcher: Arc<Mutex<Option<WatchHandle>>>,
    model: Arc<model::ModelState>,
}

fn clamp(limit: Option<u32>) -> usize {
    limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT) as usize
}

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// Open the home (creating it and `personal` on first use).
    pub fn open(home: Home) -> Result<Self> {
        let model = Arc::new(model::ModelState::load(&home.root)?);
        Ok(Self {
            vault: Arc::new(Vault::open(home)?),
            watcher: Arc::new(Mutex::new(None)),
            model,
        })
    }

    /// The vault underneath (for transports' own needs, e.g. the CLI's watch loop).
    #[must_use]
    pub fn vault(&self) -> &Arc<Vault> {
        &self.vault
    }

    /// Bring every workspace up to date and watch them all for outside edits. Calling it again
    /// restarts the watcher (after a workspace was added).
    pub fn start_watching(&self) -> Result<()> {
        self.vault.sync_all()?;
        let handle = mnemo_store::watch::watch(Arc::clone(&self.vault), self.vault.workspaces()?)?;
        *self.watcher.lock().unwrap_or_else(PoisonError::into_inner) = Some(handle);
        Ok(())
    }

    /// Every `memory_changed` event from now on.
    pub fn subscribe(&self) -> std::sync::mpsc::Receiver<MemoryChanged> {
        self.vault.subscribe()
    }

    /// Workspaces with counts.
    pub fn workspaces(&self) -> Result<Vec<WorkspaceInfo>> {
        self.vault.workspace_infos()
    }

    /// Add a folder as a workspace; it is indexed and watched at once.
    pub fn add_folder(&self, path: String) -> Result<WorkspaceInfo> {
        let path = path.trim();
        if path.is_empty() {
            return Err(Error::usage("give the folder's path"));
        }
        let ws = self.vault.home().add_folder(std::path::Path::new(path))?;
        self.vault.sync(&ws)?;
        if self.watching() {
            self.start_watching()?;
        }
        self.workspaces()?
            .into_iter()
            .find(|w| w.workspace.id == ws.id)
            .ok_or_else(|| Error::not_found(format!("workspace {} vanished", ws.id)))
    }

    /// Topic memories, optionally one workspace and one type.
    pub fn list(
        &self,
        workspace: Option<String>,
        memory_type: Option<MemoryType>,
    ) -> Result<Vec<DocSummary>> {
        if self.watching() {
            self.vault.list_indexed(workspace.as_deref(), memory_type)
        } else {
            self.vault.list(workspace.as_deref(), memory_type)
        }
    }

    /// With the watcher running the index is current, so reads skip the stat walk.
    fn watching(&self) -> bool {
        self.watcher
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// One memory with its content.
    pub fn get(&self, workspace: String, path: String) -> Result<MemoryDetail> {
        self.vault.get(&workspace, &path)
    }

    /// Create a memory (`conflict` if the path exists).
    pub fn create(&self, workspace: String, memory: NewMemory) -> Result<WriteOutcome> {
        let new = mnemo_store::NewMemory {
            path: memory.path.filter(|p| !p.trim().is_empty()),
            name: memory.name,
            description: memory.description,
            memory_type: memory.memory_type,
            body: memory.body,
        };
        self.vault.create(&workspace, &new, ChangeSource::User)
    }

    /// Change a memory's fields and/or body.
    pub fn update(&self, workspace: String, path: String, patch: Patch) -> Result<WriteOutcome> {
        let p = mnemo_store::Patch {
            name: patch.name,
            description: patch.description,
            memory_type: patch.memory_type,
            body: patch.body,
            expected_hash: patch.expected_hash,
        };
        self.vault.update(&workspace, &path, &p, ChangeSource::User)
    }

    /// Delete a memory (undoable).
    pub fn remove(&self, workspace: String, path: String) -> Result<WriteOutcome> {
        self.vault.delete(&workspace, &path, ChangeSource::User)
    }

    /// Full-text search, best first.
    pub fn search(
        &self,
        workspace: Option<String>,
        query: String,
        limit: Option<u32>,
    ) -> Result<Vec<Hit>> {
        if query.len() > 4096 {
            return Err(Error::new(
                ErrorCode::TooLarge,
                "a search query may be at most 4,096 bytes",
            ));
        }
        if self.watching() {
            self.vault
                .search_indexed(workspace.as_deref(), &query, clamp(limit))
        } else {
            self.vault
                .search(workspace.as_deref(), &query, clamp(limit))
        }
    }

    /// The journal, newest first.
    pub fn history(
        &self,
        workspace: Option<String>,
        path: Option<String>,
        limit: Option<u32>,
    ) -> Result<Vec<ChangeSummary>> {
        self.vault
            .history(workspace.as_deref(), path.as_deref(), clamp(limit))
    }

    /// One change with its before/after text.
    pub fn diff(&self, id: i64) -> Result<ChangeDiff> {
        let c = self.vault.change(id)?;
        let text = |b: Option<Vec<u8>>| b.and_then(|b| String::from_utf8(b).ok());
        Ok(ChangeDiff {
            change: c.summary,
            before: text(c.before),
            after: text(c.after),
        })
    }

    /// Undo a change (restores exact bytes; journaled).
    pub fn undo(&self, id: i64) -> Result<WriteOutcome> {
        self.vault.undo(id, ChangeSource::User)
    }

    /// Status of the home.
    pub fn status(&self) -> Result<Status> {
        self.vault.status()
    }

    /// Settings (`settings.toml`).
    pub fn get_settings(&self) -> Result<Settings> {
        self.vault.home().settings()
    }

    /// Replace the settings. Folders must exist.
    pub fn set_settings(&self, settings: Settings) -> Result<()> {
        for f in &settings.folders {
            if !f.path.is_dir() {
                return Err(Error::not_found(format!(
                    "{} is not a folder",
                    f.path.display()
                )));
            }
        }
        self.vault.home().save_settings(&settings)
    }

    /// The memory folder of a workspace (for "open folder").
    pub fn memory_root(&self, workspace: &str) -> Result<PathBuf> {
        Ok(self.vault.workspace(workspace)?.memory_root)
    }
}

macro_rules! dispatch {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        /// Argument objects of every command, as JSON carries them.
        #[allow(non_camel_case_types)]
        mod args {
            use super::*;
            $(
                #[derive(Deserialize)]
                #[serde(rename_all = "camelCase", deny_unknown_fields)]
                pub(super) struct $name { $(pub(super) $arg: $ty,)* }
            )*
        }

        /// Names of every command.
        pub const COMMANDS: &[&str] = &[$(stringify!($name)),*];

        impl Api {
            /// Run a command by name with its JSON arguments (the HTTP transport).
            /// `unknown_command` for a name not in [`COMMANDS`]; `invalid_arguments` when the
            /// arguments do not fit.
            pub fn call(&self, command: &str, args: serde_json::Value) -> Result<serde_json::Value> {
                let args = if args.is_null() { serde_json::json!({}) } else { args };
                match command {
                    $(stringify!($name) => {
                        #[allow(unused_variables)]
                        let a: args::$name = serde_json::from_value(args).map_err(|e| {
                            Error::new(ErrorCode::InvalidArguments, format!("{}: {e}", command))
                        })?;
                        let out = self.$name($(a.$arg),*)?;
                        serde_json::to_value(out).map_err(|e| Error::new(ErrorCode::Io, format!("encoding the reply: {e}")))
                    })*
                    _ => Err(Error::new(
                        ErrorCode::UnknownCommand,
                        format!("unknown command `{command}`; see GET /capabilities"),
                    )),
                }
            }
        }
    };
}

for_each_command!(dispatch);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn api() -> (tempfile::TempDir, Api) {
        let d = tempfile::tempdir().unwrap();
        let home = Home {
            root: d.path().join("home"),
            claude_dir: d.path().join("c"),
            qwen_dir: d.path().join("q"),
        };
        let api = Api::open(home).unwrap();
        (d, api)
    }

    #[test]
    fn call_dispatches_with_camel_case_arguments() {
        let (_d, api) = api();
        let created = api
            .call("create", json!({"workspace": "personal", "memory": {"path": null, "name": "Style", "description": "terse", "type": "feedback", "body": "short"}}))
            .unwrap();
        assert_eq!(created["path"], "style.md");
        let list = api
            .call(
                "list",
                json!({"workspace": "personal", "memoryType": "feedback"}),
            )
            .unwrap();
        assert_eq!(list[0]["name"], "Style");
        let hits = api
            .call(
                "search",
                json!({"workspace": null, "query": "terse", "limit": 5}),
            )
            .unwrap();
        assert_eq!(hits[0]["path"], "style.md");
        let history = api.call("history", json!({})).unwrap();
        let id = history[0]["id"].as_i64().unwrap();
        let diff = api.call("diff", json!({"id": id})).unwrap();
        assert!(diff["after"].as_str().unwrap().contains("name: Style"));
        assert!(diff["before"].is_null());
        api.call("undo", json!({"id": id})).unwrap();
        assert_eq!(
            api.call("list", json!({}))
                .unwrap()
                .as_array()
                .unwrap()
                .len(),
            0
        );
    }

    #[test]
    fn errors_keep_their_stable_shape() {
        let (_d, api) = api();
        let e = api.call("frobnicate", json!({})).unwrap_err();
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"code": "unknown_command", "message": e.message})
        );
        let e = api
            .call("get", json!({"workspace": "personal"}))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArguments);
        let e = api.call("list", json!({"bogus": 1})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArguments);
        let e = api
            .call("get", json!({"workspace": "personal", "path": "../x.md"}))
            .unwrap_err();
        assert_eq!(serde_json::to_value(&e).unwrap()["code"], "path_escape");
        let e = api
            .call(
                "update",
                json!({"workspace": "personal", "path": "nope.md", "patch": {"name": "x"}}),
            )
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
    }

    #[test]
    fn every_command_is_reachable() {
        let (_d, api) = api();
        for name in COMMANDS {
            let r = api.call(name, json!({}));
            if let Err(e) = r {
                assert_ne!(e.code, ErrorCode::UnknownCommand, "{name}");
            }
        }
    }
}
