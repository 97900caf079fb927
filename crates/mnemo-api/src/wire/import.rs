//! What an import would do (the preview) and what a person chose for it, on the wire.

use mnemo_core::MemoryType;
use serde::{Deserialize, Serialize};

/// The formats Mnemo imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ImportFormat {
    /// ChatGPT's data export (`conversations.json`).
    Chatgpt,
    /// Claude.ai's data export (`conversations.json`).
    ClaudeAi,
    /// Claude Code or Qwen Code session transcripts (`*.jsonl`, a file or a folder of them).
    Transcripts,
    /// mem0's export: a list of memories with metadata.
    Mem0,
    /// claude-mem's export (`observations`).
    ClaudeMem,
    /// A JSON array or JSONL of `{text, type?, created?}`.
    Json,
    /// A folder of markdown notes (basic-memory, Obsidian).
    Markdown,
    /// A Mnemo export (`mnemo export`'s zip).
    MnemoExport,
}

impl From<mnemo_store::import::ImportFormat> for ImportFormat {
    fn from(v: mnemo_store::import::ImportFormat) -> Self {
        use mnemo_store::import::ImportFormat as S;
        match v {
            S::Chatgpt => Self::Chatgpt,
            S::ClaudeAi => Self::ClaudeAi,
            S::Transcripts => Self::Transcripts,
            S::Mem0 => Self::Mem0,
            S::ClaudeMem => Self::ClaudeMem,
            S::Json => Self::Json,
            S::Markdown => Self::Markdown,
            S::MnemoExport => Self::MnemoExport,
        }
    }
}

impl From<ImportFormat> for mnemo_store::import::ImportFormat {
    fn from(v: ImportFormat) -> Self {
        match v {
            ImportFormat::Chatgpt => Self::Chatgpt,
            ImportFormat::ClaudeAi => Self::ClaudeAi,
            ImportFormat::Transcripts => Self::Transcripts,
            ImportFormat::Mem0 => Self::Mem0,
            ImportFormat::ClaudeMem => Self::ClaudeMem,
            ImportFormat::Json => Self::Json,
            ImportFormat::Markdown => Self::Markdown,
            ImportFormat::MnemoExport => Self::MnemoExport,
        }
    }
}

/// What a person chose for an import.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ImportOptions {
    /// The type of memories whose source names none (default `user`).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub memory_type: Option<MemoryType>,
    /// A type per top-level folder of a markdown import (`journal` → `user`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folder_types: Vec<FolderType>,
    /// Conversations: the most tokens the import may spend (estimated), over all its runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_tokens: Option<u64>,
    /// A whole-home Mnemo export: the workspaces to restore, each into the workspace of the
    /// same id (the app's ticks). Another tool's memory or an added folder is written only when
    /// named here (or with `--workspace`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workspaces: Vec<String>,
    /// A whole-home Mnemo export: restore every one of Mnemo's own workspaces it holds
    /// (`--all-workspaces`; missing ones are created). Never another tool's memory.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all_workspaces: bool,
}

mirror!(mnemo_store::import::ImportOptions => ImportOptions {
    memory_type, folder_types: each, budget_tokens, workspaces, all_workspaces,
} back);

/// A type chosen for one folder of a markdown import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct FolderType {
    /// The folder, relative to the imported one (`journal`, `work/clients`).
    pub folder: String,
    /// Its notes' type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
}

mirror!(mnemo_store::import::FolderType => FolderType { folder, memory_type } back);

/// Why one item of an import was left out (or changed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct Skip {
    /// The item: `item 12`, `notes/a.md`, `conversation "Trip"`.
    pub item: String,
    /// Why, in a sentence.
    pub reason: String,
}

mirror!(mnemo_store::import::Skip => Skip { item, reason });

/// One workspace of a whole-home export, as the preview offers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct RestoreChoice {
    /// Its id in the export (and here).
    pub workspace: String,
    /// Its files in the export.
    pub files: u32,
    /// Whether this import restores it.
    pub chosen: bool,
    /// Whether the home has it now (Mnemo's own are created when missing).
    pub exists: bool,
    /// Another tool's memory or an added folder: restored only when named or ticked.
    pub other_tool: bool,
    /// Why it is not restored (when it is not), in a sentence.
    pub why_not: Option<String>,
    /// The memory folder a restore writes it into (here now, or where it lived and will be
    /// made again: another tool's project folder, an added folder), shown so the person
    /// confirms each target; `None` when there is no place for it on this computer.
    pub target: Option<String>,
}

mirror!(mnemo_store::import::RestoreChoice => RestoreChoice {
    workspace, files, chosen, exists, other_tool, why_not, target,
} back);

/// How many of a type an import writes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct TypeCount {
    /// The type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    /// Memories (entries or notes) of it.
    pub count: u32,
}

mirror!(mnemo_store::import::TypeCount => TypeCount { memory_type, count });

/// One memory an import would write, as a sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct Sample {
    /// The file it goes to.
    pub path: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    /// Its text (first line, ≤ 200 characters).
    pub text: String,
}

mirror!(mnemo_store::import::Sample => Sample { path, memory_type, text });

/// What a conversation import would cost, estimated before it starts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ConversationEstimate {
    /// Conversations in the source.
    pub conversations: u32,
    /// Of them, already learnt from by an earlier run of this import (skipped).
    pub done_before: u32,
    /// Messages in the conversations still to read.
    pub messages: u32,
    /// Model calls expected (about two per window-sized piece of a conversation).
    pub model_calls: u32,
    /// Tokens expected (prompts and answers, estimated at 3 bytes a token).
    pub tokens: u64,
    /// The budget the run stops at (what was asked, or the estimate with a quarter more).
    pub budget_tokens: u64,
    /// Tokens earlier runs of this import already spent.
    pub spent_tokens: u64,
    /// Whether a model is configured: without one nothing can be learnt.
    pub model_ready: bool,
}

mirror!(mnemo_store::import::ConversationEstimate => ConversationEstimate {
    conversations, done_before, messages, model_calls, tokens, budget_tokens, spent_tokens,
    model_ready,
});

/// What an import would do (`--dry-run`, the app's preview); applying writes exactly this.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ImportPreview {
    /// The source as given.
    pub source: String,
    /// Its format.
    pub format: Option<ImportFormat>,
    /// The format's name.
    pub format_label: String,
    /// The workspace it goes into.
    pub workspace: String,
    /// Items read from the source (memories, notes or files).
    pub items: u32,
    /// Memories that would be written.
    pub memories: u32,
    /// Files that would be created.
    pub files: u32,
    /// Memories by type.
    pub by_type: Vec<TypeCount>,
    /// Items already in the workspace (or twice in the source): skipped.
    pub duplicates: u32,
    /// Items holding a secret: refused.
    pub secrets: u32,
    /// Items left out for other reasons (no text, unreadable, forgotten earlier…).
    pub skipped: u32,
    /// Why items were left out or changed (the first 100).
    pub reasons: Vec<Skip>,
    /// A few of the memories, as they would be written.
    pub samples: Vec<Sample>,
    /// Conversations: the estimate (and `memories` / `files` are 0: the model decides).
    pub conversations: Option<ConversationEstimate>,
    /// A fingerprint of the planned files: `import_start` with it refuses to write anything
    /// else (the source or the workspace changed since the preview).
    pub plan: String,
    /// A whole-home Mnemo export: each workspace it holds, chosen or not (empty otherwise).
    #[serde(default)]
    pub restore: Vec<RestoreChoice>,
}

mirror!(mnemo_store::import::ImportPreview => ImportPreview {
    source, format: opt, format_label, workspace, items, memories, files, by_type: each,
    duplicates, secrets, skipped, reasons: each, samples: each, conversations: opt, plan,
    restore: each,
});
