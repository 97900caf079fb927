//! Other tools' exports and transcripts, read: pure parsing and planning, no IO beyond reading
//! the input it is given. The vault writes a plan (`mnemo-store`'s `vault/import.rs`, through
//! `Vault::mutate`); the API remembers how far a source was read.
//!
//! - [`stream`]: JSON exports read one element at a time (never loaded whole).
//! - [`detect`]: which format a file or folder is.
//! - [`conversations`]: ChatGPT's and Claude.ai's `conversations.json`, Claude Code / Qwen Code
//!   session transcripts (JSONL) → [`Conversation`]s, for extraction.
//! - [`memories`]: mem0, claude-mem, plain JSON / JSONL → [`Candidate`] facts; markdown folders
//!   (basic-memory, Obsidian) → [`Note`]s.
//! - [`plan`], [`facts`], [`notes`], [`naming`]: candidates → the topic files an import writes,
//!   named and de-duplicated, with its [`ImportPreview`].
//! - [`transcripts`]: the chat transcripts a dream reads (other tools' and Mnemo's own), listed
//!   without following links and read within a cap.

mod chatgpt;
pub mod conversations;
pub mod detect;
pub mod facts;
#[cfg(test)]
mod facts_fixtures;
pub mod memories;
pub mod naming;
pub mod notes;
pub mod plan;
pub mod stream;
#[cfg(test)]
mod testing;
pub mod transcripts;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use mnemo_core::MemoryType;

pub use conversations::Conversation;
pub use detect::detect;
pub use memories::{Candidate, Note};
pub use plan::{ImportPlan, PlannedFile};

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

impl ImportFormat {
    /// The name people know it by.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Chatgpt => "ChatGPT export",
            Self::ClaudeAi => "Claude.ai export",
            Self::Transcripts => "Claude Code / Qwen Code transcripts",
            Self::Mem0 => "mem0 export",
            Self::ClaudeMem => "claude-mem export",
            Self::Json => "JSON memories",
            Self::Markdown => "markdown notes",
            Self::MnemoExport => "Mnemo export",
        }
    }

    /// Short name used in file names and change groups.
    #[must_use]
    pub fn slug(self) -> &'static str {
        match self {
            Self::Chatgpt => "chatgpt",
            Self::ClaudeAi => "claude-ai",
            Self::Transcripts => "transcripts",
            Self::Mem0 => "mem0",
            Self::ClaudeMem => "claude-mem",
            Self::Json => "json",
            Self::Markdown => "notes",
            Self::MnemoExport => "mnemo",
        }
    }

    /// Conversations, learnt from by extraction (needs a model); else memories, written as
    /// they are.
    #[must_use]
    pub fn is_conversations(self) -> bool {
        matches!(self, Self::Chatgpt | Self::ClaudeAi | Self::Transcripts)
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

/// A type chosen for one folder of a markdown import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct FolderType {
    /// The folder, relative to the imported one (`journal`, `work/clients`).
    pub folder: String,
    /// Its notes' type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
}

impl ImportOptions {
    /// The type for a note at `rel` (a path relative to the imported folder): the deepest
    /// folder chosen, else the default.
    #[must_use]
    pub fn type_for(&self, rel: &str) -> MemoryType {
        self.folder_types
            .iter()
            .filter(|f| {
                let dir = f.folder.trim_matches('/');
                !dir.is_empty() && rel.starts_with(dir) && rel[dir.len()..].starts_with('/')
            })
            .max_by_key(|f| f.folder.len())
            .map_or_else(|| self.default_type(), |f| f.memory_type)
    }

    /// The default type.
    #[must_use]
    pub fn default_type(&self) -> MemoryType {
        self.memory_type.unwrap_or(MemoryType::User)
    }
}

/// Why one item of an import was left out (or changed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct Skip {
    /// The item: `item 12`, `notes/a.md`, `conversation "Trip"`.
    pub item: String,
    /// Why, in a sentence.
    pub reason: String,
}

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

/// How many of a type an import writes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct TypeCount {
    /// The type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    /// Memories (entries or notes) of it.
    pub count: u32,
}

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

/// How many reasons a preview lists (the counts are always whole).
pub const MAX_REASONS: usize = 100;

impl ImportPreview {
    /// Record an item left out, counted under `secrets`, `duplicates` or `skipped`.
    pub fn skip(&mut self, kind: SkipKind, item: impl Into<String>, reason: impl Into<String>) {
        match kind {
            SkipKind::Secret => self.secrets += 1,
            SkipKind::Duplicate => self.duplicates += 1,
            SkipKind::Other => self.skipped += 1,
            SkipKind::Note => {}
        }
        if self.reasons.len() < MAX_REASONS {
            // An item's name or a reason may quote what the source holds: through the gate.
            self.reasons.push(Skip {
                item: mnemo_text::secrets::redact(&item.into()).0,
                reason: mnemo_text::secrets::redact(&reason.into()).0,
            });
        }
    }
}

/// Under which count a left-out item falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipKind {
    /// Holds a secret.
    Secret,
    /// Already there.
    Duplicate,
    /// Any other reason.
    Other,
    /// Kept, with a change worth saying (a date in the future dropped): counted nowhere.
    Note,
}

/// Every file under `root` whose name ends in `ext` (hidden entries such as `.obsidian` left
/// out; symlinked folders not followed; 8 levels deep), as (path relative to `root` with `/`,
/// full path), sorted by path. The one walk of notes and transcript folders.
pub fn files_under(root: &Path, ext: &str) -> mnemo_core::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0u32)];
    while let Some((dir, depth)) = stack.pop() {
        let rd = std::fs::read_dir(&dir)
            .map_err(|e| mnemo_core::Error::io(format!("reading {}", dir.display()), &e))?;
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(ft) = e.file_type() else { continue };
            if name.starts_with('.') {
                continue;
            }
            if ft.is_dir() && depth < 8 {
                stack.push((e.path(), depth + 1));
            } else if ft.is_file() && name.ends_with(ext) {
                let rel = e
                    .path()
                    .strip_prefix(root)
                    .map_or_else(|_| name.clone(), |r| r.to_string_lossy().replace('\\', "/"));
                out.push((rel, e.path()));
            }
        }
    }
    out.sort();
    Ok(out)
}
