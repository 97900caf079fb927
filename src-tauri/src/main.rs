//! Mnemo's desktop app: a Tauri 2 window whose webview (`ui/`) is the memory browser, chat,
//! inbox, status and settings. Setup only: the typed events bridged to the webview, the command
//! list and the bindings test; commands live in `commands.rs`, logic in `mnemo-api`.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;

use mnemo_api::Api;
use serde::{Deserialize, Serialize};
use tauri_specta::{Builder, Event, collect_events};

/// `memory_changed` as a typed frontend event (`memory-changed`); payload as in the API.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
#[tauri_specta(event_name = "memory-changed")]
pub struct MemoryChangedEvent(pub mnemo_core::MemoryChanged);

/// Chat events (reply deltas, recall, extraction) as a typed frontend event (`chat-event`).
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
#[tauri_specta(event_name = "chat-event")]
pub struct ChatEventMsg(pub mnemo_api::ChatEvent);

/// A memory task changed (`task_updated`) as a typed frontend event (`task-updated`).
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
#[tauri_specta(event_name = "task-updated")]
pub struct TaskUpdatedEvent(pub mnemo_api::reexports::TaskInfo);

/// The sync state changed (`sync_changed`), here or in another process, as a typed frontend
/// event (`sync-changed`).
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
#[tauri_specta(event_name = "sync-changed")]
pub struct SyncChangedEvent(pub mnemo_api::SyncChanged);

/// The command and event list, shared by the app and the bindings test.
fn specta_builder() -> Builder<tauri::Wry> {
    Builder::<tauri::Wry>::new()
        .commands(commands::all())
        .events(collect_events![
            MemoryChangedEvent,
            ChatEventMsg,
            TaskUpdatedEvent,
            SyncChangedEvent
        ])
        // The commands only the desktop app can run (the browser UI hides what needs them),
        // from the API's one list.
        .constant(
            "DESKTOP_ONLY",
            mnemo_api::COMMANDS
                .iter()
                .filter(|c| c.desktop_only)
                .map(|c| c.name)
                .collect::<Vec<_>>(),
        )
        // What `/` offers in the chat's message box: the commands the engine parses.
        .constant("CHAT_COMMANDS", mnemo_api::CHAT_COMMANDS)
        // Change ids and counts stay far below 2^53.
        .dangerously_cast_bigints_to_number()
        // One TypeScript type per Rust type (not separate serialize/deserialize shapes).
        .disable_serde_phases()
}

/// How the TypeScript bindings are written.
#[cfg(test)]
fn typescript() -> specta_typescript::Typescript {
    specta_typescript::Typescript::default()
        .header("// Generated from Rust by tauri-specta (src-tauri/src/main.rs). Do not edit: run\n// `UPDATE_BINDINGS=1 cargo test -p mnemo-app bindings` after changing a command or type.\n")
}

fn main() {
    let mut filter = tracing_subscriber::EnvFilter::try_from_env("MNEMO_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    for d in mnemo_api::QUIET_LOG_TARGETS {
        if let Ok(d) = d.parse() {
            filter = filter.add_directive(d);
        }
    }
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let api = match Api::open_at(None) {
        Ok(api) => api,
        Err(e) => {
            eprintln!("error[{}]: {}", e.code, e.message);
            std::process::exit(1);
        }
    };
    if let Err(e) = api.start_watching() {
        tracing::warn!("live updates are off: {e}");
    }
    let builder = specta_builder();
    let events = api.subscribe();
    let chat_events = api.subscribe_chat();
    let task_events = api.subscribe_tasks();
    let sync_events = api.subscribe_sync();
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_shell::init())
        // The native file chooser beside a typed path (Import…, Export…): the window asks, the
        // person picks, Mnemo gets a path — nothing else of the file system is opened to the page.
        .plugin(tauri_plugin_dialog::init())
        .manage(api.clone())
        .invoke_handler(builder.invoke_handler())
        .setup(move |app| {
            builder.mount_events(app);
            // `open_folder` is the one desktop-only command: the shell plugin opens the folder.
            let handle = app.handle().clone();
            api.set_folder_opener(std::sync::Arc::new(move |root: &std::path::Path| {
                use tauri_plugin_shell::ShellExt;
                #[allow(deprecated)]
                // the shell plugin's `open` is what the brief asks for; opener is its successor
                handle
                    .shell()
                    .open(root.to_string_lossy().into_owned(), None)
                    .map_err(|e| {
                        mnemo_core::Error::new(
                            mnemo_core::ErrorCode::Io,
                            format!("opening {}: {e}", root.display()),
                        )
                    })
            }));
            // Bridge the store's change events to the webview.
            let handle = app.handle().clone();
            std::thread::spawn(move || {
                for ev in events {
                    if let Err(e) = MemoryChangedEvent(ev).emit(&handle) {
                        tracing::warn!("could not forward memory_changed: {e}");
                    }
                }
            });
            let handle = app.handle().clone();
            std::thread::spawn(move || {
                for ev in chat_events {
                    if let Err(e) = ChatEventMsg(ev).emit(&handle) {
                        tracing::warn!("could not forward a chat event: {e}");
                    }
                }
            });
            let handle = app.handle().clone();
            std::thread::spawn(move || {
                for ev in task_events {
                    if let Err(e) = TaskUpdatedEvent(ev).emit(&handle) {
                        tracing::warn!("could not forward task_updated: {e}");
                    }
                }
            });
            let handle = app.handle().clone();
            std::thread::spawn(move || {
                for ev in sync_events {
                    if let Err(e) = SyncChangedEvent(ev).emit(&handle) {
                        tracing::warn!("could not forward sync_changed: {e}");
                    }
                }
            });
            Ok(())
        })
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!(
            "error: the window could not start: {e} (on Linux without a display, use `mnemo serve`)"
        );
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checked-in bindings must match what the Rust side exports.
    #[test]
    fn bindings_are_fresh() {
        let checked_in =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/lib/bindings.ts");
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("bindings.ts");
        specta_builder().export(typescript(), &fresh).unwrap();
        let fresh = std::fs::read_to_string(&fresh).unwrap();
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(&checked_in, &fresh).unwrap();
            return;
        }
        let current = std::fs::read_to_string(&checked_in).unwrap_or_default();
        assert!(
            current == fresh,
            "ui/src/lib/bindings.ts is stale: run `UPDATE_BINDINGS=1 cargo test -p mnemo-app bindings` and commit it"
        );
    }

    /// The commands the exported bindings invoke, with the argument names they send:
    /// `TAURI_INVOKE("name", { a, b })` → ("name", ["a", "b"]).
    fn invoked(bindings: &str) -> Vec<(String, Vec<String>)> {
        bindings
            .split("TAURI_INVOKE(\"")
            .skip(1)
            .map(|rest| {
                let name = rest.split('"').next().unwrap_or_default().to_owned();
                let after = &rest[name.len() + 1..];
                let call = after.split(')').next().unwrap_or_default();
                let args = match (call.find('{'), call.find('}')) {
                    (Some(a), Some(b)) => call[a + 1..b]
                        .split(',')
                        .map(|x| x.trim().to_owned())
                        .filter(|x| !x.is_empty())
                        .collect(),
                    _ => Vec::new(),
                };
                (name, args)
            })
            .collect()
    }

    /// The API's list, Tauri's commands, the HTTP dispatcher's argument names and the
    /// TypeScript bindings agree: every command, every argument name, nothing extra.
    #[test]
    fn every_api_command_is_bound_with_the_same_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("b.ts");
        specta_builder().export(typescript(), &out).unwrap();
        let bound = invoked(&std::fs::read_to_string(out).unwrap());
        let declared: Vec<(String, Vec<String>)> = mnemo_api::COMMANDS
            .iter()
            .map(|c| {
                (
                    c.name.to_owned(),
                    c.args.iter().map(|a| mnemo_api::wire_name(a)).collect(),
                )
            })
            .collect();
        assert_eq!(bound, declared);
    }
}
