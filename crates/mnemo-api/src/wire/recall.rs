//! Recall, forget and the status panel's figures on the wire.

use mnemo_core::MemoryType;
use serde::{Deserialize, Serialize};

use super::Choice;

/// One entry that may be forgotten.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ForgetEntry {
    /// Stable id: `path` or `path:N`.
    pub id: String,
    /// The file.
    pub path: String,
    /// The memory's name (its frontmatter `name`).
    pub name: String,
    /// The memory's description (its frontmatter `description`).
    #[serde(default)]
    pub description: String,
    /// Its summary line.
    pub summary: String,
    /// The whole entry.
    pub text: String,
    /// The file's type.
    pub memory_type: Option<MemoryType>,
    /// The file's hash when listed (pass it back to `forget`: a file changed since → `conflict`).
    pub hash: String,
    /// The file's last change (RFC 3339).
    pub mtime: String,
    /// Whether the entry itself says what the request says (the request's words, or all of
    /// its content words, are in it). A model's pick without that evidence is offered
    /// unticked: the person confirms it.
    pub confident: bool,
}

mirror!(mnemo_engine::forget::ForgetEntry => ForgetEntry {
    id, path, name, description, summary, text, memory_type, hash, mtime, confident,
});

/// What `forget` would remove.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ForgetPreview {
    /// Workspace id.
    pub workspace: String,
    /// The query.
    pub query: String,
    /// `model` or `heuristic`.
    pub strategy: String,
    /// Exactly the entries that would go.
    pub selected: Vec<ForgetEntry>,
    /// Candidates considered.
    pub candidates: u32,
    /// Why the heuristic was used, when a model is configured.
    pub note: Option<String>,
}

mirror!(mnemo_engine::forget::ForgetPreview => ForgetPreview {
    workspace, query, strategy, selected: each, candidates, note,
});

/// An entry to remove, as the preview listed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ForgetPick {
    /// Stable id from the preview.
    pub id: String,
    /// The file's hash from the preview.
    pub hash: String,
}

mirror!(mnemo_engine::forget::ForgetPick => ForgetPick { id, hash } back);

/// How the memories were chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
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

impl From<mnemo_engine::recall::Strategy> for Strategy {
    fn from(v: mnemo_engine::recall::Strategy) -> Self {
        use mnemo_engine::recall::Strategy as S;
        match v {
            S::None => Self::None,
            S::Heuristic => Self::Heuristic,
            S::Model => Self::Model,
            S::Hybrid => Self::Hybrid,
            S::All => Self::All,
        }
    }
}

/// One recalled memory and why.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Recalled {
    /// Path relative to the memory root.
    pub path: String,
    /// Name.
    pub name: String,
    /// Type.
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// Score, 0–1 (higher is better): the fused score for hybrid recall, the share of the best
    /// match for lexical recall, the model's order for model selection.
    pub score: f64,
    /// Cosine similarity to the query (hybrid recall, when it was a vector candidate).
    pub vector: Option<f64>,
    /// BM25 normalised to 0–1 (hybrid recall, when it shared words with the query).
    pub lexical: Option<f64>,
    /// Last modification (RFC 3339).
    pub mtime: String,
    /// "today", "yesterday", "N days ago".
    pub age: String,
    /// Characters of this memory put in the prompt.
    pub chars_injected: usize,
    /// Tokens (estimated) of this memory in the prompt: what its usage records.
    pub tokens_injected: u32,
    /// It holds a sync conflict not yet settled (the prompt says its versions disagree).
    pub conflict: bool,
}

mirror!(mnemo_engine::recall::Recalled => Recalled {
    path, name, memory_type, score, vector, lexical, mtime, age, chars_injected, tokens_injected,
    conflict,
});

/// A memory recalled on an earlier turn of the chat and sent again with this one.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Carried {
    /// Path relative to the memory root.
    pub path: String,
    /// Name.
    pub name: String,
    /// Type.
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// Characters of it put in the prompt.
    pub chars_injected: usize,
    /// Tokens (estimated) of it in the prompt.
    pub tokens_injected: u32,
}

mirror!(mnemo_engine::recall::Carried => Carried {
    path, name, memory_type, chars_injected, tokens_injected,
});

/// The result of a recall.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct RecallResult {
    /// How the memories were chosen.
    pub strategy: Strategy,
    /// The chosen memories, best first.
    pub selected: Vec<Recalled>,
    /// Topic memories in the workspace (the candidate set).
    pub docs_scanned: u32,
    /// The memory section of the system prompt.
    pub prompt: String,
    /// Characters of memory content injected in all.
    pub chars_injected: usize,
    /// Memories from earlier turns of the chat sent again with this one (see
    /// [`RecallRequest::carried`]).
    pub carried: Vec<Carried>,
    /// Tokens (estimated) of the whole memory block in the prompt.
    pub tokens_injected: u32,
    /// The block's budget in tokens, when it had one.
    pub budget_tokens: Option<u32>,
    /// What was cut or left out to fit — MEMORY.md's caps, the budget — in sentences.
    pub cuts: Vec<String>,
    /// Wall time in milliseconds.
    pub duration_ms: u32,
}

mirror!(mnemo_engine::recall::RecallResult => RecallResult {
    strategy: into, selected: each, docs_scanned, prompt, chars_injected, carried: each,
    tokens_injected, budget_tokens, cuts, duration_ms,
});

/// One telemetry event.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TelemetryEvent {
    /// RFC 3339.
    pub at: String,
    /// `recall | extract | dream`.
    pub kind: String,
    /// Its figures, as a JSON object text (strategy, status, duration_ms, …).
    pub data: String,
}

mirror!(mnemo_engine::stats::TelemetryEvent => TelemetryEvent { at, kind, data });

/// The status panel's figures for one workspace.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct MemoryStats {
    /// Workspace id.
    pub workspace: String,
    /// Extraction after chat turns is on.
    pub auto_extract: bool,
    /// Dream after chat turns is on.
    pub auto_dream: bool,
    /// When extraction last ran, and how it ended.
    pub last_extract_at: Option<String>,
    /// `completed | failed | skipped`.
    pub last_extract_status: Option<String>,
    /// When dream last ran.
    pub last_dream_at: Option<String>,
    /// `updated | noop | failed`.
    pub last_dream_status: Option<String>,
    /// The change group that undid the last dream's changes, when they were undone since (read
    /// from the journal).
    pub last_dream_undone_by: Option<i64>,
    /// Topic files.
    pub topics: u32,
    /// Daily logs.
    pub logs: u32,
    /// Conversation records (`chats/`).
    pub chats: u32,
    /// Chat turns are kept as conversation records in this workspace.
    pub chat_records: bool,
    /// Which way extraction and remember write with the model in effect, and why (`None`: no
    /// model set; filled in by the API, which holds the model).
    pub extraction: Option<Choice>,
    /// MEMORY.md lines now, and its cap.
    pub memory_md_lines: u32,
    /// MEMORY.md's line cap.
    pub memory_md_max_lines: u32,
    /// MEMORY.md bytes now.
    pub memory_md_bytes: u32,
    /// MEMORY.md's byte cap.
    pub memory_md_max_bytes: u32,
    /// Files that are not valid memories (fix them).
    pub invalid: Vec<String>,
    /// Memories unchanged for 90 days and not recalled in 90 days (usage is kept in the
    /// journal): health proposes archiving them. Archived and pinned ones are not listed.
    pub stale: Vec<String>,
    /// The memories whose recalls cost the most tokens in all, most first (at most 5): health
    /// proposes trimming them.
    pub expensive: Vec<String>,
    /// Archived memories (out of recall and MEMORY.md, still searchable).
    pub archived: Vec<String>,
    /// Entries a mechanical dream would merge (likely duplicates).
    pub duplicates: u32,
    /// The files holding them.
    pub duplicate_files: Vec<String>,
    /// Memories sharing a name (case and spacing aside), each group sorted: one subject written
    /// down twice, which may say different things. A person keeps one.
    pub same_name: Vec<Vec<String>>,
    /// Pairs of memories of one type whose names are about the same subject ("Pet" and "The
    /// user's pet": one name's words hold the other's, or they share most of them) without
    /// sharing a name: they may say different things. At most [`MAX_SAME_SUBJECT`] pairs.
    pub same_subject: Vec<Vec<String>>,
    /// Recent telemetry of this workspace, newest first.
    pub telemetry: Vec<TelemetryEvent>,
}

mirror!(mnemo_engine::stats::MemoryStats => MemoryStats {
    workspace, auto_extract, auto_dream, last_extract_at, last_extract_status, last_dream_at,
    last_dream_status, last_dream_undone_by, topics, logs, chats, chat_records, extraction: opt,
    memory_md_lines, memory_md_max_lines, memory_md_bytes, memory_md_max_bytes, invalid, stale,
    expensive, archived, duplicates, duplicate_files, same_name, same_subject, telemetry: each,
});
