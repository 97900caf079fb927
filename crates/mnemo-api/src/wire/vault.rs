//! What the vault's reads and writes look like on the wire: memories, search hits, write
//! outcomes, copies and exports.

use mnemo_core::{DocKind, MemoryType};
use serde::{Deserialize, Serialize};

/// When, by what and why an entry was superseded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct Supersession {
    /// The day (`YYYY-MM-DD`).
    pub at: String,
    /// The summary of the entry that replaced it.
    pub by: String,
    /// Who or why (`extraction`, a person's reason).
    pub why: Option<String>,
}

mirror!(mnemo_store::supersede::Supersession => Supersession { at, by, why });

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ExportResult {
    /// The zip written.
    pub path: String,
    /// Workspaces in it.
    pub workspaces: Vec<String>,
    /// Files in it (MEMORY.md included, the manifest not).
    pub files: u32,
    /// Bytes of those files.
    pub bytes: u64,
    /// Files left out, each `workspace/path: why` (a hard link: its bytes may be another file's,
    /// so it is never copied out) — the rest is exported.
    pub left_out: Vec<String>,
}

mirror!(mnemo_store::export::ExportResult => ExportResult {
    path, workspaces, files, bytes, left_out,
});

/// A doc as `list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct DocSummary {
    /// Workspace id.
    pub workspace: String,
    /// Path relative to the memory root.
    pub path: String,
    /// `topic` or `log`.
    pub kind: DocKind,
    /// Memory type (`None` for logs and invalid files).
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// Name (the file stem when frontmatter lacks one).
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Last modification (RFC 3339).
    pub mtime: String,
    /// Whether the file is a well-formed memory.
    pub valid: bool,
    /// Why not, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<ProblemOut>,
    /// What secrets the file holds (`github_token (line 3)`): another program wrote them. Mnemo
    /// shows, indexes and recalls it redacted, keeps none of its bytes, and its jobs never change
    /// it; a person should remove the secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// Pinned (`pinned: true` or under `pinned/`): extraction and dream leave it alone.
    pub pinned: bool,
    /// Archived (`archived: true`): out of recall and MEMORY.md, still searchable.
    pub archived: bool,
}

mirror!(mnemo_store::index::DocSummary => DocSummary {
    workspace, path, kind, memory_type, name, description, mtime, valid, problem: opt, secret,
    pinned, archived,
});

/// A flagged file's problem as it crosses the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct ProblemOut {
    /// Stable code.
    pub code: String,
    /// Explanation.
    pub message: String,
}

mirror!(mnemo_store::index::ProblemOut => ProblemOut { code, message });

/// A search result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, specta::Type)]
pub struct Hit {
    /// Workspace id.
    pub workspace: String,
    /// Path relative to the memory root.
    pub path: String,
    /// Relevance (higher is better). What `search` returns reads 0–1: the fused score of
    /// hybrid search, the share of the best match's BM25 for lexical search.
    pub score: f64,
    /// Name.
    pub name: String,
    /// Memory type (`None` for logs and invalid files).
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// One-line description.
    pub description: String,
    /// Last modification (RFC 3339).
    pub mtime: String,
    /// Cosine similarity to the query's vector (hybrid search, when it was a vector candidate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector: Option<f64>,
    /// BM25 as 0–1 of the best match (when it shared words with the query).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexical: Option<f64>,
    /// The words of its name and description that match the query's content words, as they
    /// are written there (folded): what a list highlights. Function words never count; a
    /// memory found by meaning alone has none.
    #[serde(default)]
    pub matched: Vec<String>,
    /// The part of its text that matched best, with its place in the file (search fills it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passage: Option<Passage>,
    /// Below where search stops counting it a match (its fused score far under the best, or
    /// its meaning under the model's floor): ranked after every match, returned only to give a
    /// client as many hits as it asked for. The app's list leaves them out.
    #[serde(default)]
    pub weak: bool,
}

mirror!(mnemo_store::index::Hit => Hit {
    workspace, path, score, name, memory_type, description, mtime, vector, lexical, matched,
    passage: opt, weak,
} skip doc_null);

/// The passage of a memory that matched a search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct Passage {
    /// Its text (one paragraph of the body, cut with `…` when long).
    pub text: String,
    /// The 1-based line of the file it starts on.
    pub line: u32,
}

mirror!(mnemo_store::index::Passage => Passage { text, line });

/// Per-workspace counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, specta::Type)]
pub struct Counts {
    /// Topic files.
    pub topics: u64,
    /// Topic files flagged invalid.
    pub invalid: u64,
    /// Daily logs.
    pub logs: u64,
}

mirror!(mnemo_store::index::Counts => Counts { topics, invalid, logs });

/// What a copy or move did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct Copied {
    /// Where it came from.
    pub from_workspace: String,
    /// Its path there.
    pub from_path: String,
    /// Where it is now.
    pub workspace: String,
    /// Its path there (another name when the same path held something else).
    pub path: String,
    /// The target's change group (`None` when the same bytes were already there).
    pub group: Option<i64>,
    /// The source's change group when it was moved (the delete).
    pub removed_group: Option<i64>,
}

mirror!(mnemo_store::vault::Copied => Copied {
    from_workspace, from_path, workspace, path, group, removed_group,
});

/// One memory with its content, as `show` gives it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct MemoryDetail {
    /// Listing fields.
    #[serde(flatten)]
    pub summary: DocSummary,
    /// Content hash (pass back to `update` to detect concurrent edits).
    pub hash: String,
    /// The file text: exact, or redacted when it holds a secret (`summary.secret`); `None` for
    /// binary / non-UTF-8 / too-large files.
    pub content: Option<String>,
    /// The body after the frontmatter.
    pub body: String,
    /// Body entries with stable ids.
    pub entries: Vec<EntryOut>,
    /// Pinned: extraction and dream never change or delete it.
    pub pinned: bool,
}

mirror!(mnemo_store::vault::MemoryDetail => MemoryDetail {
    summary: into, hash, content, body, entries: each, pinned,
});

/// An entry with its stable id.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct EntryOut {
    /// `relPath` or `relPath:index`.
    pub id: String,
    /// Summary line.
    pub summary: String,
    /// `Why:` text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// `How to apply:` text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    /// Replaced by a newer fact (kept, never recalled): when, by what, why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded: Option<Supersession>,
}

mirror!(mnemo_store::vault::EntryOut => EntryOut { id, summary, why, how, superseded: opt });

/// What a write did.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct WriteOutcome {
    /// Workspace id.
    pub workspace: String,
    /// Path relative to the memory root.
    pub path: String,
    /// Journal id (`None` when the content was already as asked: nothing changed).
    pub change_id: Option<i64>,
    /// Hash of the new content (`None` after a delete).
    pub hash: Option<String>,
    /// Said plainly when the change reaches other people: the workspace is shared through git
    /// (Qwen Code's team memory).
    pub shared: Option<String>,
}

mirror!(mnemo_store::vault::WriteOutcome => WriteOutcome {
    workspace, path, change_id, hash, shared,
});

/// What a sync or rebuild did.
#[derive(Debug, Clone, Default, Serialize, specta::Type)]
pub struct SyncReport {
    /// Files looked at.
    pub scanned: usize,
    /// Docs added or changed in the index.
    pub updated: usize,
    /// Docs removed from the index.
    pub removed: usize,
}

mirror!(mnemo_store::vault::SyncReport => SyncReport { scanned, updated, removed });
