//! The one API over Mnemo's memory: every operation a client needs — memories, search, history
//! and undo (single changes and change groups), curation (archive, replace a fact), the index
//! and its embeddings, settings, recall, model settings, chat, background memory tasks
//! (extraction, remember, dream, forget, import), import and export, review mode and the inbox,
//! sync, and the status panel's figures. The Tauri shell, the HTTP server, the CLI and the MCP
//! server (`mnemo-mcp`) are thin layers over [`Api`]; none of them touches the store directly.
//!
//! Commands are declared once, in [`for_each_command!`]: that list generates the JSON
//! dispatcher used by HTTP ([`Api::call`]), [`COMMANDS`] (names, argument names, where each
//! runs) and — in the desktop shell — the Tauri commands and TypeScript bindings, so every
//! transport offers the same commands with the same argument names (camelCase on the wire).
//! What they take and return is declared here too: [`wire`] holds every shape the store defines
//! that crosses to a client, so the store's own types never become the contract by accident.
//!
//! Errors cross every boundary as `mnemo_core::Error` = `{ code, message }` with stable codes.

mod chat;
mod curate;
mod dream;
mod embed;
mod extract;
mod forget;
mod import;
mod import_chats;
mod local_model;
mod memory;
mod model;
mod remember;
mod review;
mod runtime;
mod stats;
mod sync;
mod tasks;
pub mod wire;

pub use wire::{ChatCommand, MemoryStats, TelemetryEvent};

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use mnemo_core::{Error, ErrorCode, MemoryChanged, Result};
use mnemo_store::tasks::TaskStore;
use mnemo_store::watch::WatchHandle;
use mnemo_store::{Home, Vault};
use serde::Deserialize;

pub use chat::{ChatEvent, ChatLine, ChatRole, ChatTranscript, MAX_MESSAGE_BYTES};
pub use import::default_export_name;
pub use local_model::{ENV_LOCAL, LocalModelInfo};
pub use memory::{ChangeDiff, NewMemory, Patch};
pub use mnemo_engine::chat::{CHAT_COMMANDS, extraction_state, local_time};
pub use model::{ModelSettings, ModelTest};
pub use remember::{
    MAX_PENDING as MAX_REMEMBER_PENDING, RememberChanged, RememberResult, RememberTask,
    check_client_id,
};
pub use review::{REVIEW, ReviewMode, parse_status};
pub use sync::SyncChanged;

/// Most results a list-like command returns when no limit is given.
pub const DEFAULT_LIMIT: u32 = 200;
/// Largest limit a client may ask for.
pub const MAX_LIMIT: u32 = 10_000;

/// Invokes `$m! { name(arg: Type, ...) -> Ret; ... }` with every API command; a command only the
/// desktop app can serve carries `#[desktop]`. Transports use it to generate their bindings, so
/// the command set and argument names are defined only here: adding a line here is all it takes
/// for a command to exist in Tauri, over HTTP and in the TypeScript bindings.
#[macro_export]
macro_rules! for_each_command {
    ($m:ident) => {
        $m! {
            workspaces() -> Vec<$crate::reexports::WorkspaceInfo>;
            add_folder(path: String) -> $crate::reexports::WorkspaceInfo;
            bind_workspace(dir: String) -> $crate::reexports::WorkspaceInfo;
            list(workspace: Option<String>, memory_type: Option<$crate::reexports::MemoryType>) -> Vec<$crate::reexports::DocSummary>;
            get(workspace: String, path: String) -> $crate::reexports::MemoryDetail;
            memory_index(workspace: String) -> String;
            logs(workspace: String) -> Vec<$crate::reexports::DocSummary>;
            create(workspace: String, memory: $crate::NewMemory) -> $crate::reexports::WriteOutcome;
            update(workspace: String, path: String, patch: $crate::Patch) -> $crate::reexports::WriteOutcome;
            remove(workspace: String, path: String) -> $crate::reexports::WriteOutcome;
            search(workspace: Option<String>, query: String, limit: Option<u32>, lexical: Option<bool>) -> Vec<$crate::reexports::Hit>;
            history(workspace: Option<String>, path: Option<String>, limit: Option<u32>) -> Vec<$crate::reexports::ChangeSummary>;
            diff(id: i64) -> $crate::ChangeDiff;
            undo(id: i64) -> $crate::reexports::WriteOutcome;
            change_group(id: i64) -> $crate::reexports::GroupInfo;
            undo_group(id: i64) -> $crate::reexports::GroupUndo;
            index(rebuild: Option<bool>) -> $crate::reexports::SyncReport;
            status() -> $crate::reexports::Status;
            get_settings() -> $crate::reexports::Settings;
            set_settings(settings: $crate::reexports::Settings) -> ();
            #[desktop] open_folder(workspace: String) -> ();
            recall(workspace: String, query: String, already_surfaced: Option<Vec<String>>, lexical: Option<bool>) -> $crate::reexports::RecallResult;
            get_model_settings() -> $crate::ModelSettings;
            set_model_settings(settings: $crate::ModelSettings) -> $crate::ModelSettings;
            test_model(settings: Option<$crate::ModelSettings>) -> $crate::ModelTest;
            model_list(settings: Option<$crate::ModelSettings>) -> Vec<String>;
            local_model() -> $crate::LocalModelInfo;
            local_model_start() -> $crate::LocalModelInfo;
            local_model_stop() -> $crate::LocalModelInfo;
            local_model_install() -> $crate::reexports::TaskInfo;
            memory_status(workspace: String, session: Option<String>) -> String;
            chat_sessions(workspace: String) -> Vec<$crate::reexports::SessionInfo>;
            chat_create(workspace: String, title: Option<String>) -> $crate::reexports::SessionInfo;
            chat_transcript(workspace: String, session: String) -> $crate::ChatTranscript;
            chat_update(workspace: String, session: String, title: Option<String>, ignore_memory: Option<bool>) -> $crate::reexports::SessionInfo;
            chat_delete(workspace: String, session: String) -> ();
            chat_send(workspace: String, session: String, message: String) -> $crate::reexports::TurnResult;
            chat_cancel(session: String) -> bool;
            tasks(workspace: Option<String>, kind: Option<$crate::reexports::TaskKind>, status: Option<$crate::reexports::TaskStatus>, limit: Option<u32>) -> Vec<$crate::reexports::TaskInfo>;
            task(id: String) -> $crate::reexports::TaskInfo;
            task_cancel(id: String) -> $crate::reexports::TaskInfo;
            dream(workspace: String, mechanical: Option<bool>) -> $crate::reexports::TaskInfo;
            dream_plan(workspace: String) -> $crate::reexports::DreamPlan;
            auto_dream(workspace: String) -> bool;
            set_auto_dream(workspace: String, enabled: bool) -> bool;
            set_pinned(workspace: String, path: String, pinned: bool) -> $crate::reexports::WriteOutcome;
            remember(workspace: Option<String>, content: String, context_mode: Option<String>, client_id: Option<String>) -> $crate::RememberTask;
            remember_task(id: String, client_id: Option<String>) -> $crate::RememberTask;
            forget_preview(workspace: String, query: String) -> $crate::reexports::ForgetPreview;
            forget(workspace: String, entries: Vec<$crate::reexports::ForgetPick>) -> $crate::reexports::TaskInfo;
            auto_extract(workspace: String) -> bool;
            set_auto_extract(workspace: String, enabled: bool) -> bool;
            chat_records(workspace: String) -> bool;
            set_chat_records(workspace: String, enabled: bool) -> bool;
            stats(workspace: String) -> $crate::MemoryStats;
            embed(workspace: Option<String>) -> $crate::reexports::TaskInfo;
            sync_now(workspace: Option<String>) -> $crate::reexports::RemoteSync;
            sync_status() -> $crate::reexports::RemoteSync;
            sync_settings() -> $crate::reexports::SyncSettings;
            set_sync_settings(settings: $crate::reexports::SyncSettings) -> $crate::reexports::SyncSettings;
            sync_resolve(id: String, keep: Option<u32>) -> $crate::reexports::SyncConflict;
            sync_reset_local() -> ();
            review_mode(workspace: String) -> $crate::ReviewMode;
            set_review_mode(workspace: String, on: bool) -> $crate::ReviewMode;
            inbox(workspace: String, status: Option<$crate::reexports::ProposalStatus>, offset: Option<u32>, limit: Option<u32>) -> $crate::reexports::ProposalPage;
            proposal(id: i64) -> $crate::reexports::Proposal;
            inbox_accept(id: i64, choice: Option<$crate::reexports::AcceptChoice>) -> $crate::reexports::Accepted;
            inbox_reject(id: i64, dont_learn: Option<bool>) -> $crate::reexports::ProposalSummary;
            memory_usage(workspace: String, path: Option<String>) -> Vec<$crate::reexports::MemoryUsage>;
            set_archived(workspace: String, path: String, archived: bool) -> $crate::reexports::WriteOutcome;
            replace_entry(workspace: String, path: String, entry: String, text: String, why: Option<String>) -> $crate::reexports::WriteOutcome;
            import_preview(source: String, workspace: Option<String>, options: Option<$crate::reexports::ImportOptions>) -> $crate::reexports::ImportPreview;
            import_start(source: String, workspace: Option<String>, options: Option<$crate::reexports::ImportOptions>, plan: Option<String>) -> $crate::reexports::TaskInfo;
            export_memories(workspace: Option<String>, dest: String) -> $crate::reexports::ExportResult;
            copy_memory(workspace: String, path: String, to_workspace: String, remove_source: Option<bool>) -> $crate::reexports::Copied;
        }
    };
}

/// Types named by [`for_each_command!`], so users of the macro need no store imports.
pub mod reexports {
    pub use crate::wire::*;
    pub use mnemo_core::{MemoryType, ProposalStatus, TaskKind, TaskStatus};
    pub use mnemo_store::fsutil::printable;
    pub use mnemo_store::secrets::redact;
}

/// Log targets held at `info` whatever `MNEMO_LOG` asks (each host adds these directives to its
/// filter, after the user's): at debug and trace they print protocol messages, HTTP headers and
/// bodies — tool arguments, memory text, keys — or, for `tokenizers`, each character of the text
/// it embeds. Mnemo's own logs name things, never their text.
pub const QUIET_LOG_TARGETS: &[&str] = &[
    // rmcp logs what a client sent (tool arguments in its `response error` warnings, whole
    // messages at debug): never — `mnemo mcp` logs calls itself, redacted and cut.
    "rmcp=off",
    "hyper=info",
    "hyper_util=info",
    "reqwest=info",
    "h2=info",
    "tower=info",
    "tower_http=info",
    "axum=info",
    // At trace it logs every character of the text it normalises: memory text, one by one.
    "tokenizers=info",
];

/// Opens a folder in the system file manager (installed by the desktop shell).
pub type FolderOpener = Arc<dyn Fn(&Path) -> Result<()> + Send + Sync>;

/// The API. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Api {
    vault: Arc<Vault>,
    watcher: Arc<Mutex<Option<WatchHandle>>>,
    model: Arc<model::ModelState>,
    tasks: Arc<tasks::Tasks>,
    dreams: Arc<dream::Dreams>,
    remember: Arc<remember::Lanes>,
    embeddings: Arc<embed::Embeddings>,
    opener: Arc<RwLock<Option<FolderOpener>>>,
    syncs: Arc<sync::SyncEvents>,
    /// Who the memory agents' writes are journaled as when this API serves another program
    /// (`mnemo mcp`: `mcp`); `None`: each flow's own source (`remember`, `forget`).
    acting_for: Option<mnemo_core::ChangeSource>,
    /// Who a person's own writes (create, update, pin, delete, undo) are journaled as: `user`
    /// for the app and HTTP, `cli` for the command line.
    person: mnemo_core::ChangeSource,
}

fn clamp(limit: Option<u32>) -> usize {
    limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT) as usize
}

impl Api {
    /// Open the home (creating it and `personal` on first use).
    pub fn open(home: Home) -> Result<Self> {
        let model = Arc::new(model::ModelState::load(&home.root)?);
        let tasks_path = home.tasks_path();
        let vault = Arc::new(Vault::open(home)?);
        let tasks = Arc::new(tasks::Tasks::open(TaskStore::open(&tasks_path)?));
        Ok(Self {
            vault,
            watcher: Arc::new(Mutex::new(None)),
            model,
            tasks,
            dreams: Arc::default(),
            remember: Arc::default(),
            embeddings: Arc::default(),
            opener: Arc::new(RwLock::new(None)),
            syncs: Arc::default(),
            acting_for: None,
            person: mnemo_core::ChangeSource::User,
        })
    }

    /// This API, with a person's own writes journaled as `source` (the command line uses `cli`).
    #[must_use]
    pub fn person_is(mut self, source: mnemo_core::ChangeSource) -> Self {
        self.person = source;
        self
    }

    /// This API, with remember and forget journaled as `source` (the MCP server uses `mcp`).
    #[must_use]
    pub fn acting_for(mut self, source: mnemo_core::ChangeSource) -> Self {
        self.acting_for = Some(source);
        self
    }

    /// Open the home at `dir` (else `$MNEMO_HOME`, else the platform data dir).
    pub fn open_at(dir: Option<std::path::PathBuf>) -> Result<Self> {
        Self::open(Home::resolve(dir)?)
    }

    /// `$MNEMO_HOME`.
    #[must_use]
    pub fn home_dir(&self) -> &Path {
        &self.vault.home().root
    }

    /// Let `open_folder` work: the desktop shell installs how folders are opened.
    pub fn set_folder_opener(&self, opener: FolderOpener) {
        *self.opener.write().unwrap_or_else(PoisonError::into_inner) = Some(opener);
    }

    /// Bring every workspace up to date and watch them all for outside edits. Calling it again
    /// restarts the watcher (after a workspace was added).
    pub fn start_watching(&self) -> Result<()> {
        self.vault.sync_all()?;
        let handle = mnemo_store::watch::watch(Arc::clone(&self.vault), self.vault.workspaces()?)?;
        let first = self
            .watcher
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .replace(handle)
            .is_none();
        if first {
            self.start_embedding_loop();
            self.start_sync_events();
            self.start_auto_sync();
        }
        Ok(())
    }

    /// Every `memory_changed` event from now on.
    pub fn subscribe(&self) -> std::sync::mpsc::Receiver<MemoryChanged> {
        self.vault.subscribe()
    }

    /// A workspace's memory switches (auto-extract, auto-dream, chat records) from the settings:
    /// read here and handed to the engine.
    fn switches(&self, ws: &mnemo_store::Workspace) -> mnemo_store::settings::Switches {
        mnemo_store::settings::Switches::read(&self.vault.home().root, ws)
    }

    /// With the watcher running the index is current, so reads skip the stat walk.
    fn watching(&self) -> bool {
        self.watcher
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }
}

/// One command as [`for_each_command!`] declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandSpec {
    /// Its name (`POST /api/<name>`, the Tauri command).
    pub name: &'static str,
    /// Argument names as Rust spells them (snake_case; camelCase on the wire — see [`wire_name`]).
    pub args: &'static [&'static str],
    /// Only the desktop app can serve it.
    pub desktop_only: bool,
}

/// An argument name as JSON carries it (camelCase, as Tauri does).
#[must_use]
pub fn wire_name(arg: &str) -> String {
    let mut out = String::with_capacity(arg.len());
    let mut upper = false;
    for c in arg.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `#[desktop]` → `true`; no flag → `false` (an unknown flag does not compile).
macro_rules! desktop_flag {
    () => {
        false
    };
    (desktop) => {
        true
    };
}

macro_rules! dispatch {
    ($($(#[$flag:ident])? $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
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

        /// Every command, in the order declared.
        pub const COMMANDS: &[CommandSpec] = &[$(CommandSpec {
            name: stringify!($name),
            args: &[$(stringify!($arg)),*],
            desktop_only: desktop_flag!($($flag)?),
        }),*];

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
                        // Exactly the declared type: HTTP answers what Tauri's bindings say.
                        let out: $ret = self.$name($(a.$arg),*)?;
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
    fn every_command_is_reachable_with_its_declared_argument_names() {
        let (_d, api) = api();
        for spec in COMMANDS {
            let r = api.call(spec.name, json!({}));
            if let Err(e) = r {
                assert_ne!(e.code, ErrorCode::UnknownCommand, "{}", spec.name);
            }
            // Every declared argument is accepted under its wire name (an unknown one would be
            // `invalid_arguments` "unknown field"), and nothing else is.
            let mut args = serde_json::Map::new();
            for a in spec.args {
                args.insert(wire_name(a), serde_json::Value::Null);
            }
            if let Err(e) = api.call(spec.name, serde_json::Value::Object(args.clone())) {
                assert!(
                    !e.message.contains("unknown field"),
                    "{}: {}",
                    spec.name,
                    e.message
                );
            }
            args.insert("notAnArgument".into(), json!(1));
            let e = api
                .call(spec.name, serde_json::Value::Object(args))
                .unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArguments, "{}", spec.name);
        }
        assert_eq!(
            COMMANDS
                .iter()
                .filter(|c| c.desktop_only)
                .map(|c| c.name)
                .collect::<Vec<_>>(),
            ["open_folder"]
        );
        assert_eq!(wire_name("already_surfaced"), "alreadySurfaced");
    }

    #[test]
    fn open_folder_is_desktop_only_without_an_opener() {
        let (_d, api) = api();
        let e = api
            .call("open_folder", json!({"workspace": "personal"}))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::DesktopOnly);
        let opened = Arc::new(Mutex::new(None));
        let seen = Arc::clone(&opened);
        api.set_folder_opener(Arc::new(move |p: &Path| {
            *seen.lock().unwrap() = Some(p.to_path_buf());
            Ok(())
        }));
        api.call("open_folder", json!({"workspace": "personal"}))
            .unwrap();
        assert!(opened.lock().unwrap().as_ref().unwrap().ends_with("memory"));
    }
}
