//! `mnemo model`: the model that comes with Mnemo — its status, install, start, stop, remove.
//! Status, start, stop and install go through the API like every command (install is the task the
//! app starts, followed here); remove clears the shared models folder.

use std::path::PathBuf;

use mnemo_api::{Api, LocalModelInfo};
use mnemo_core::{Error, ErrorCode, Result};
use mnemo_local::manifest::QWEN_CODER_1_5B;

use crate::cli::ModelAction;
use crate::out::{emit, follow, term};

pub fn run(api: &Api, action: Option<ModelAction>, json: bool) -> Result<()> {
    match action.unwrap_or(ModelAction::Status) {
        ModelAction::Status => emit(json, &api.local_model()?, report),
        ModelAction::Start => emit(json, &api.local_model_start()?, report),
        ModelAction::Stop => emit(json, &api.local_model_stop()?, report),
        ModelAction::Install => {
            // The same task the app starts: its phase printed as it changes.
            let info = api.local_model()?;
            if !info.installed {
                eprintln!(
                    "installing {} ({}) into {}",
                    term(&info.name),
                    term(&info.size),
                    term(&models()?.display().to_string())
                );
            }
            // Subscribed before the start: every phase is seen.
            let updates = api.subscribe_tasks();
            let started = api.local_model_install()?;
            let t = follow(api, &updates, &started.id, false)?;
            if t.status != mnemo_core::TaskStatus::Completed {
                return Err(Error::new(
                    ErrorCode::Io,
                    t.error
                        .unwrap_or_else(|| "the install did not finish".to_owned()),
                ));
            }
            if let Some(r) = &t.result {
                eprintln!("{}", term(&r.summary));
            }
            emit(json, &api.local_model()?, report)
        }
        ModelAction::Remove => {
            api.local_model_stop()?;
            let freed = mnemo_local::install::remove(&QWEN_CODER_1_5B, &models()?)
                .map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?;
            eprintln!("removed: {} freed", mnemo_local::size_words(freed));
            emit(json, &api.local_model()?, report)
        }
    }
}

fn models() -> Result<PathBuf> {
    mnemo_local::models_dir().ok_or_else(|| {
        Error::new(
            ErrorCode::Io,
            "this system names no data folder for the shared models folder: set XDG_DATA_HOME",
        )
    })
}

fn report(m: &LocalModelInfo) {
    println!("{} ({})", term(&m.name), term(&m.size));
    println!("  installed: {}", if m.installed { "yes" } else { "no" });
    println!(
        "  llama-server: {}",
        if m.server_found { "found" } else { "not found" }
    );
    println!(
        "  in use: {}",
        if m.in_use {
            "yes — chat, extraction, remember and dream use it"
        } else {
            "no — a model server set in Settings is used (or none)"
        }
    );
    match m.pid {
        Some(pid) => println!("  running: yes (pid {pid}); log: {}", term(&m.log)),
        None => println!("  running: no (it starts when a message needs it)"),
    }
    if let Some(what) = &m.missing {
        println!("{}", term(what));
    }
}
