//! Recall: candidates from the index (never by reading every file), lexical scoring
//! (name and description weigh more than the body — the index's bm25 weights; a query naming the
//! memory's type adds a little; ties go to the newest), score 0 dropped, top five; then the
//! prompt block with ages, the "Before recommending from memory" rule, ignore-memory semantics
//! and the MEMORY.md index. Every recall records a telemetry event.
//!
//! This module holds what recall takes and returns; the work is split by concern: lexical
//! ranking and the lexical path (`lexical`), hybrid ranking with vectors (`hybrid`), the
//! calibrated gate (`gate`), conversation records (`records`), the `search` command's ranking
//! (`search`), the prompt block with ages and cut bodies (`prompt`), model selection (`model`)
//! and the tail every strategy shares — bodies, prompt, telemetry (`finish`).

mod finish;
mod hybrid;
mod lexical;
mod model;
mod prompt;
pub mod records;
mod search;

use mnemo_core::MemoryType;
use serde::{Deserialize, Serialize};

pub use hybrid::{
    Calibration, E5_CALIBRATION, Fusion, LEXICAL_WEIGHT, MAX_CANDIDATES, MIN_COSINE, MIN_SCORE,
    MINILM_CALIBRATION, Meaning, QueryNull, SEARCH_FUSION, SEARCH_RELATIVE_FLOOR, VECTOR_WEIGHT,
    calibration_of, candidates_for, fuse, meaning_for, normalise_cosine, normalise_lexical,
};
pub use lexical::{
    content_query, has_substance, mark_matches, matched_words, rank_lexical, recall,
};
pub use model::{
    MANIFEST_MAX_BYTES, MANIFEST_MAX_ITEMS, MAX_FAILED_SELECTIONS, SELECTION_MAX_TOKENS,
    agent_manifest, manifest, manifest_within, model_selection_usable, recall_with_model,
};
pub use prompt::{
    CONFLICT_NOTE, MAX_BODY_CHARS, PromptMemory, age_text, build_block, build_prompt, cut_body,
    cut_body_to,
};
pub use search::{PASSAGE_CHARS, fill_weak, mark_search_floor, passage, search_hybrid};

/// Most memories injected per turn.
pub const MAX_SELECTED: usize = 5;

/// How the memories were chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Nothing recalled (no memories, no searchable words, or nothing matched).
    None,
    /// Lexical full-text scoring.
    Heuristic,
    /// The fast model chose.
    Model,
    /// Vectors fused with BM25.
    Hybrid,
    /// Every memory: few enough to all go in (a model without tools, a small home).
    All,
}

/// What to recall for.
#[derive(Debug, Clone, Default)]
pub struct RecallRequest {
    /// Workspace id.
    pub workspace: String,
    /// The user's message.
    pub query: String,
    /// Paths already surfaced earlier in this chat session (never repeated).
    pub already_surfaced: Vec<String>,
    /// Paths written during this turn (excluded).
    pub written_this_turn: Vec<String>,
    /// How many to select (default [`MAX_SELECTED`]; benchmarks ask for more).
    pub limit: Option<usize>,
    /// Tools the conversation has been using: model selection skips
    /// memories that merely document them, unless they hold warnings or gotchas.
    pub recent_tools: Vec<String>,
    /// The query's embedding, when a model is loaded: recall is hybrid (vectors fused with
    /// BM25) where the workspace has vectors for that model, lexical otherwise.
    pub query_vector: Option<QueryVector>,
    /// How hybrid lists are merged (by default standardised scores, half and half; benches
    /// compare others).
    pub fusion: Fusion,
    /// Memories surfaced earlier in this chat session, newest first: the model no longer sees
    /// the turn that recalled them (the system prompt is rebuilt each turn), so they are sent
    /// again — after this message's own — as far as the budget allows.
    pub carried: Vec<String>,
    /// Tokens (estimated) the whole memory block may take: index, recalled and carried bodies.
    /// `None`: no budget beyond the index's and each body's own caps.
    pub budget_tokens: Option<usize>,
    /// The chat session recalling (recorded with each memory's usage).
    pub session: Option<String>,
    /// Memory files holding an open sync conflict (`mnemo_sync::VaultSync::open_conflicts`):
    /// injected with a note that their versions disagree, and marked in the result.
    pub conflicted: Vec<String>,
    /// The block as a small model without tools reads it best: only what was recalled, one line
    /// each, no rules and no index ([`prompt::build_compact`]).
    pub compact: bool,
}

/// A query's embedding and the model that made it (vectors of other models are not compared).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryVector {
    /// Model id (`Embedder::model_id`).
    pub model: String,
    /// Unit vector.
    pub vector: Vec<f32>,
    /// Its null distribution over the model's background set, when known: meaning is then
    /// read as standings over it ([`hybrid::Meaning::Null`]).
    pub null: Option<QueryNull>,
    /// The model's background queries (rows of its dimension), for each memory's own null.
    pub background: Option<std::sync::Arc<Vec<f32>>>,
}

/// One recalled memory and why.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Recalled`.
#[derive(Debug, Clone, Serialize)]
pub struct Recalled {
    pub path: String,
    pub name: String,
    /// Type.
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    pub score: f64,
    pub vector: Option<f64>,
    pub lexical: Option<f64>,
    pub mtime: String,
    pub age: String,
    pub chars_injected: usize,
    pub tokens_injected: u32,
    pub conflict: bool,
}

/// A memory recalled on an earlier turn of the chat and sent again with this one.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Carried`.
#[derive(Debug, Clone, Serialize)]
pub struct Carried {
    pub path: String,
    pub name: String,
    /// Type.
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    pub chars_injected: usize,
    pub tokens_injected: u32,
}

/// The result of a recall.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::RecallResult`.
#[derive(Debug, Clone, Serialize)]
pub struct RecallResult {
    pub strategy: Strategy,
    pub selected: Vec<Recalled>,
    pub docs_scanned: u32,
    pub prompt: String,
    pub chars_injected: usize,
    pub carried: Vec<Carried>,
    pub tokens_injected: u32,
    pub budget_tokens: Option<u32>,
    pub cuts: Vec<String>,
    pub duration_ms: u32,
}
