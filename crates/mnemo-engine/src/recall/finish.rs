//! The shared tail of every strategy: read the chosen bodies from disk, build the prompt block,
//! record the `recall` telemetry event.

use std::time::Instant;

use chrono::{DateTime, Utc};
use mnemo_core::{MemoryType, Result};
use mnemo_store::Vault;

use super::prompt::{PromptMemory, age_text, build_prompt, cut_body};
use super::{RecallRequest, RecallResult, Recalled, Strategy};

/// A memory chosen for the prompt, by whichever strategy.
pub(super) struct Pick {
    pub(super) path: String,
    pub(super) name: String,
    pub(super) memory_type: Option<MemoryType>,
    pub(super) mtime: String,
    pub(super) score: f64,
    pub(super) vector: Option<f64>,
    pub(super) lexical: Option<f64>,
}

/// Shared tail of every strategy: read the chosen bodies from disk, build the prompt block,
/// record the telemetry event.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish(
    vault: &Vault,
    ws: &mnemo_store::Workspace,
    req: &RecallRequest,
    picks: Vec<Pick>,
    strategy_when_any: Strategy,
    docs_scanned: u32,
    started: Instant,
    now: DateTime<Utc>,
) -> Result<RecallResult> {
    // Bodies come from the files (the truth), confined like every read.
    let bodies: Vec<String> = picks
        .iter()
        .map(|p| {
            vault
                .get(&ws.id, &p.path)
                .map(|d| d.body)
                .unwrap_or_default()
        })
        .collect();
    let ages: Vec<String> = picks.iter().map(|p| age_text(&p.mtime, now)).collect();
    let items: Vec<PromptMemory<'_>> = picks
        .iter()
        .zip(&bodies)
        .zip(&ages)
        .map(|((p, b), a)| PromptMemory {
            path: &p.path,
            name: &p.name,
            memory_type: p.memory_type,
            age: a,
            body: b,
        })
        .collect();
    let prompt = build_prompt(&items, &mnemo_store::vault::memory_index_of(ws));
    let selected: Vec<Recalled> = picks
        .into_iter()
        .zip(&bodies)
        .zip(ages)
        .map(|((p, b), age)| Recalled {
            chars_injected: cut_body(b, &p.path).chars().count(),
            path: p.path,
            name: p.name,
            memory_type: p.memory_type,
            score: p.score,
            vector: p.vector,
            lexical: p.lexical,
            mtime: p.mtime,
            age,
        })
        .collect();
    let strategy = if selected.is_empty() {
        Strategy::None
    } else {
        strategy_when_any
    };
    let chars_injected = selected.iter().map(|s| s.chars_injected).sum();
    let duration_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
    vault.record_event(
        "recall",
        &ws.id,
        &serde_json::json!({
            "query_len": req.query.chars().count(),
            "docs_scanned": docs_scanned,
            "docs_selected": selected.len(),
            "strategy": strategy,
            "duration_ms": duration_ms,
            "paths": selected.iter().map(|s| s.path.as_str()).collect::<Vec<_>>(),
        }),
    )?;
    Ok(RecallResult {
        strategy,
        selected,
        docs_scanned,
        prompt,
        chars_injected,
        duration_ms,
    })
}
