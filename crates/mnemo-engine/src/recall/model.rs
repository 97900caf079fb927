//! Model selection: the fast model picks from a manifest of the workspace's
//! memories; invented paths are rejected; a timeout or an error falls back to the lexical path.

use std::collections::HashSet;
use std::time::Instant;

use chrono::{DateTime, Utc};
use mnemo_core::{MemoryType, Result};
use mnemo_store::Vault;
use serde::Deserialize;

use super::finish::{Pick, finish};
use super::{MAX_SELECTED, RecallRequest, RecallResult, Strategy, recall};

/// Most candidates in the model's manifest.
pub const MANIFEST_MAX_ITEMS: usize = 200;
/// Most bytes of the model's manifest.
pub const MANIFEST_MAX_BYTES: usize = 25_000;
/// Output tokens allowed for the selection.
pub const SELECTION_MAX_TOKENS: u32 = 256;

/// The manifest the fast model chooses from: one line per candidate,
/// `[type] path (ISO mtime): description` — the `preferred` paths first (the query's best
/// hybrid or lexical matches, in their order), then the rest newest first — within both caps.
#[must_use]
pub fn manifest(
    docs: &[mnemo_store::index::DocSummary],
    exclude: &HashSet<&str>,
    preferred: &[String],
) -> (String, Vec<String>) {
    manifest_within(docs, exclude, preferred, MANIFEST_MAX_BYTES)
}

/// [`manifest`] within `max_bytes` (an agent's share of a small context window; see
/// [`crate::budget::manifest_bytes`]). When memories are left out, a last line says how many.
#[must_use]
pub fn manifest_within(
    docs: &[mnemo_store::index::DocSummary],
    exclude: &HashSet<&str>,
    preferred: &[String],
    max_bytes: usize,
) -> (String, Vec<String>) {
    let rank: std::collections::HashMap<&str, usize> = preferred
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let mut sorted: Vec<&mnemo_store::index::DocSummary> = docs
        .iter()
        .filter(|d| d.valid && !exclude.contains(d.path.as_str()))
        .collect();
    sorted.sort_by(|a, b| {
        let ra = rank.get(a.path.as_str()).copied().unwrap_or(usize::MAX);
        let rb = rank.get(b.path.as_str()).copied().unwrap_or(usize::MAX);
        ra.cmp(&rb)
            .then_with(|| b.mtime.cmp(&a.mtime))
            .then_with(|| a.path.cmp(&b.path))
    });
    let total = sorted.len();
    let mut text = String::new();
    let mut paths = Vec::new();
    for d in sorted.into_iter().take(MANIFEST_MAX_ITEMS) {
        let ty = d.memory_type.map_or("memory", MemoryType::as_str);
        let line = format!("[{ty}] {} ({}): {}\n", d.path, d.mtime, d.description);
        if text.len() + line.len() > max_bytes.min(MANIFEST_MAX_BYTES) {
            break;
        }
        text.push_str(&line);
        paths.push(d.path.clone());
    }
    if paths.len() < total && max_bytes < MANIFEST_MAX_BYTES {
        text.push_str(&format!(
            "({} more memories not listed, to fit the context window; find them with grep_search or glob)\n",
            total - paths.len()
        ));
    }
    (text, paths)
}

/// After this many model recalls in a row that came to nothing (an unusable answer, an error, a
/// timeout), a server + fast model is not asked again by clients sharing its profile: recall goes straight to
/// the hybrid or lexical path instead of paying a wasted round trip on every turn.
pub const MAX_FAILED_SELECTIONS: u32 = 2;

fn selection_profile(client: &mnemo_llm::Client) -> std::sync::Arc<mnemo_llm::ModelProfile> {
    client.profile(client.settings().fast())
}

/// Whether model selection is still worth asking this server + fast model.
#[must_use]
pub fn model_selection_usable(client: &mnemo_llm::Client) -> bool {
    selection_profile(client).failed_selections() < MAX_FAILED_SELECTIONS
}

/// Count a model selection's outcome: a success resets the count.
fn note_selection(client: &mnemo_llm::Client, ok: bool) {
    let n = selection_profile(client).note_selection(ok);
    if n == MAX_FAILED_SELECTIONS {
        tracing::warn!(
            "model recall failed {n} times in a row on {}; recalling without the model from now on",
            client.settings().base_url
        );
    }
}

/// The manifest a memory agent's prompt preloads: [`manifest_within`] the agent's share of the
/// model's context window ([`crate::budget::manifest_bytes`]).
pub async fn agent_manifest(
    client: &mnemo_llm::Client,
    docs: &[mnemo_store::index::DocSummary],
    cancel: &mnemo_llm::CancellationToken,
) -> String {
    let window = client.context_window(cancel).await;
    manifest_within(
        docs,
        &HashSet::new(),
        &[],
        crate::budget::manifest_bytes(window),
    )
    .0
}

#[derive(Debug, Deserialize)]
struct Selection {
    paths: Vec<String>,
}

/// Memories a compact block takes all of, without asking the model to pick.
pub const COMPACT_ALL_MAX: usize = 8;

/// Recall with model selection: one side query to the fast model with the manifest,
/// JSON-schema output naming at most five paths; invented paths are rejected; a timeout, an
/// error or an unusable answer falls back to the lexical path.
pub async fn recall_with_model(
    vault: &Vault,
    client: &mnemo_llm::Client,
    req: &RecallRequest,
    now: DateTime<Utc>,
    timeout: std::time::Duration,
    cancel: &mnemo_llm::CancellationToken,
) -> Result<RecallResult> {
    let started = Instant::now();
    let ws = vault.workspace(&req.workspace)?;
    // Archived memories stay searchable but are never recalled.
    let archived = vault.archived_paths(&ws.id)?;
    let exclude: HashSet<&str> = req
        .already_surfaced
        .iter()
        .chain(&req.written_this_turn)
        .chain(&archived)
        .map(String::as_str)
        .collect();
    let docs = vault.list_indexed(Some(&ws.id), None)?;
    let preferred = super::lexical::ranked_paths(vault, req, MANIFEST_MAX_ITEMS)?;
    let (manifest_text, allowed) = manifest(&docs, &exclude, &preferred);
    if allowed.is_empty() || req.query.trim().is_empty() {
        return recall(vault, req, now);
    }
    // A model without tools (the compact block): when the home's memories are few, every one
    // goes in without a model call — no pick for a small model to miss, and a turn without the
    // extra call (the 1.5B local model's pick took 3–40 s on two cores).
    if req.compact {
        let topics: Vec<&mnemo_store::index::DocSummary> = docs
            .iter()
            .filter(|d| allowed.contains(&d.path))
            .filter(|d| {
                mnemo_store::doc::doc_kind(&d.path) == Some(mnemo_store::doc::DocKind::Topic)
            })
            .collect();
        if !topics.is_empty() && topics.len() <= COMPACT_ALL_MAX {
            let picks = topics
                .into_iter()
                .map(|d| Pick {
                    path: d.path.clone(),
                    name: d.name.clone(),
                    memory_type: d.memory_type,
                    mtime: d.mtime.clone(),
                    score: 1.0,
                    vector: None,
                    lexical: None,
                    turns: None,
                })
                .collect();
            let docs_scanned = u32::try_from(allowed.len()).unwrap_or(u32::MAX);
            return finish(
                vault,
                &ws,
                req,
                picks,
                Strategy::All,
                docs_scanned,
                started,
                now,
            );
        }
    }
    if !model_selection_usable(client) {
        return recall(vault, req, now);
    }
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"paths": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_SELECTED}},
        "required": ["paths"],
        "additionalProperties": false
    });
    let tools_note = if req.recent_tools.is_empty() {
        String::new()
    } else {
        format!(
            "\n\nTools in active use: {}. Do not choose memories that only describe how to use these tools \
             (they are already in use); do choose ones holding warnings, gotchas or known issues about them.",
            req.recent_tools.join(", ")
        )
    };
    let chat = mnemo_llm::ChatRequest {
        model: Some(client.settings().fast().to_owned()),
        messages: vec![
            mnemo_llm::Message::system(format!(
                "You select memories that will clearly help answer the user's next message. \
                 Choose at most {MAX_SELECTED} paths from the manifest below, only ones that are certainly useful; \
                 an empty list is a fine answer. Answer as JSON {{\"paths\": [...]}}.{tools_note}\n\nManifest:\n{manifest_text}"
            )),
            mnemo_llm::Message::user(req.query.clone()),
        ],
        temperature: Some(0.0),
        max_tokens: Some(SELECTION_MAX_TOKENS),
        ..mnemo_llm::ChatRequest::default()
    };
    let allowed_set: HashSet<&str> = allowed.iter().map(String::as_str).collect();
    // Invented paths make the answer unusable (one retry names the problem).
    let validate = |s: &Selection| match s.paths.iter().find(|p| !allowed_set.contains(p.as_str()))
    {
        Some(p) => Err(format!(
            "`{p}` is not in the manifest; choose only listed paths"
        )),
        None => Ok(()),
    };
    let answer = tokio::time::timeout(
        timeout,
        client.json::<Selection>(chat, "memory_selection", &schema, validate, cancel),
    )
    .await;
    note_selection(client, matches!(answer, Ok(Ok(_))));
    let chosen: Vec<String> = match answer {
        Ok(Ok(sel)) => {
            let mut seen = HashSet::new();
            sel.paths
                .into_iter()
                .filter(|p| seen.insert(p.clone()))
                .take(MAX_SELECTED)
                .collect()
        }
        Ok(Err(e)) => {
            tracing::warn!("model recall failed ({e}); falling back to lexical recall");
            return recall(vault, req, now);
        }
        Err(_) => {
            tracing::warn!(
                "model recall timed out after {timeout:?}; falling back to lexical recall"
            );
            return recall(vault, req, now);
        }
    };
    let by_path: std::collections::HashMap<&str, &mnemo_store::index::DocSummary> =
        docs.iter().map(|d| (d.path.as_str(), d)).collect();
    let found: Vec<&mnemo_store::index::DocSummary> = chosen
        .iter()
        .filter_map(|p| by_path.get(p.as_str()).copied())
        .collect();
    let n = found.len();
    let picks = found
        .into_iter()
        .enumerate()
        .map(|(rank, d)| Pick {
            path: d.path.clone(),
            name: d.name.clone(),
            memory_type: d.memory_type,
            mtime: d.mtime.clone(),
            // The model's order, as a 0–1 score: first is 1.
            score: f64::from(u32::try_from(n - rank).unwrap_or(0))
                / f64::from(u32::try_from(n).unwrap_or(1).max(1)),
            vector: None,
            lexical: None,
            turns: None,
        })
        .collect();
    let docs_scanned = u32::try_from(allowed.len()).unwrap_or(u32::MAX);
    finish(
        vault,
        &ws,
        req,
        picks,
        Strategy::Model,
        docs_scanned,
        started,
        now,
    )
}
