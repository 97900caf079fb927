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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ImportOptions`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
///
/// Its fields are documented where clients read them: `mnemo_api::wire::FolderType`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FolderType {
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
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Skip`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skip {
    pub item: String,
    pub reason: String,
}

/// One workspace of a whole-home export, as the preview offers it.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::RestoreChoice`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoreChoice {
    pub workspace: String,
    pub files: u32,
    pub chosen: bool,
    pub exists: bool,
    pub other_tool: bool,
    pub why_not: Option<String>,
    pub target: Option<String>,
}

/// How many of a type an import writes.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::TypeCount`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeCount {
    /// The type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    pub count: u32,
}

/// One memory an import would write, as a sample.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Sample`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    pub path: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    pub text: String,
}

/// What a conversation import would cost, estimated before it starts.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ConversationEstimate`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationEstimate {
    pub conversations: u32,
    pub done_before: u32,
    pub messages: u32,
    pub model_calls: u32,
    pub tokens: u64,
    pub budget_tokens: u64,
    pub spent_tokens: u64,
    pub model_ready: bool,
}

/// What an import would do (`--dry-run`, the app's preview); applying writes exactly this.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ImportPreview`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportPreview {
    pub source: String,
    pub format: Option<ImportFormat>,
    pub format_label: String,
    pub workspace: String,
    pub items: u32,
    pub memories: u32,
    pub files: u32,
    pub by_type: Vec<TypeCount>,
    pub duplicates: u32,
    pub secrets: u32,
    pub skipped: u32,
    pub reasons: Vec<Skip>,
    pub samples: Vec<Sample>,
    pub conversations: Option<ConversationEstimate>,
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
