//! The home on the wire: its workspaces (where each lives, how writes reach others, counts),
//! its status with semantic search's state, and the folder list.

use std::path::PathBuf;

use mnemo_core::WorkspaceKind;
use serde::{Deserialize, Serialize};

use super::Counts;

/// How writes to a workspace reach other people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(tag = "via", rename_all = "snake_case")]
pub enum Sharing {
    /// Qwen Code's team memory: `folder` is tracked by git in the repository `repo`.
    QwenTeam {
        /// The team memory folder.
        folder: PathBuf,
        /// The repository that tracks it.
        repo: PathBuf,
    },
    /// Mnemo's sync carries it to a team's remote.
    Team {
        /// The team remote (as the person gave it).
        remote: String,
    },
}

impl From<mnemo_store::workspace::Sharing> for Sharing {
    fn from(v: mnemo_store::workspace::Sharing) -> Self {
        use mnemo_store::workspace::Sharing as S;
        match v {
            S::QwenTeam { folder, repo } => Self::QwenTeam { folder, repo },
            S::Team { remote } => Self::Team { remote },
        }
    }
}

/// The folder list: what `get_settings` / `set_settings` show and change.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, specta::Type)]
#[serde(default)]
pub struct Settings {
    /// Folders the user added as workspaces.
    pub folders: Vec<FolderEntry>,
}

mirror!(mnemo_store::settings::Settings => Settings { folders: each } back);

/// A user-added folder.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, specta::Type)]
pub struct FolderEntry {
    /// Absolute path of the memory folder.
    pub path: PathBuf,
}

mirror!(mnemo_store::settings::FolderEntry => FolderEntry { path } back);

/// A workspace with its counts, as `workspaces` lists it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct WorkspaceInfo {
    /// The workspace.
    #[serde(flatten)]
    pub workspace: Workspace,
    /// Counts from the index.
    pub counts: Counts,
}

mirror!(mnemo_store::vault::WorkspaceInfo => WorkspaceInfo { workspace: into, counts: into });

/// Status of the home.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Status {
    /// `$MNEMO_HOME`.
    pub home: String,
    /// Workspaces and counts.
    pub workspaces: Vec<WorkspaceStatus>,
    /// Size of index.db in bytes.
    pub index_bytes: u64,
    /// Recoveries that happened while opening (corrupt files moved aside, …).
    pub warnings: Vec<String>,
    /// Semantic (hybrid) search: the local embedding model and how far embedding has got.
    pub semantic: Semantic,
}

impl Status {
    /// The vault's status with what the API found of semantic search.
    pub(crate) fn new(status: mnemo_store::vault::Status, semantic: Semantic) -> Self {
        let mnemo_store::vault::Status {
            home,
            workspaces,
            index_bytes,
            warnings,
        } = status;
        Self {
            home,
            workspaces: super::all(workspaces),
            index_bytes,
            warnings,
            semantic,
        }
    }
}

/// Whether hybrid search can run: the local embedding model and how far embedding has got.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Semantic {
    /// Whether the model is there and loads.
    pub state: SemanticState,
    /// The model's id, when loaded.
    pub model: Option<String>,
    /// Memories (and logs) with a vector for that model.
    pub embedded: u64,
    /// Memories (and logs) in all.
    pub total: u64,
    /// What it means and what to do (how to install the model, what is wrong with its files).
    pub message: String,
}

/// Whether search by meaning can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SemanticState {
    /// The embedding model is loaded: search uses meaning and words.
    Ready,
    /// No embedding model is installed: search uses words only.
    NotInstalled,
    /// The model's files are there but do not load.
    Broken,
    /// Turned off (`MNEMO_EMBED_MODEL=off`).
    Off,
}

/// Status of one workspace.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct WorkspaceStatus {
    /// Workspace id.
    pub id: String,
    /// Kind.
    pub kind: WorkspaceKind,
    /// Counts.
    pub counts: Counts,
    /// Last extraction (from meta.json).
    pub last_extract_at: Option<String>,
    /// Last dream (from meta.json).
    pub last_dream_at: Option<String>,
    /// PID holding `consolidation.lock`, if any.
    pub consolidation_locked_by: Option<u32>,
}

mirror!(mnemo_store::vault::WorkspaceStatus => WorkspaceStatus {
    id, kind, counts: into, last_extract_at, last_dream_at, consolidation_locked_by,
});

/// One memory root plus where its bookkeeping lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct Workspace {
    /// Stable id: `personal`, a sanitized git root, `claude:<project>`, `qwen:<project>`, `folder:<path>`.
    pub id: String,
    /// Where it comes from.
    pub kind: WorkspaceKind,
    /// A human label (a Claude Code / Qwen Code project's own name, not its encoded folder).
    pub label: String,
    /// Where it comes from, in full: the project folder a Claude Code / Qwen Code workspace
    /// belongs to (when it can be found), else the memory folder (shown on hover).
    pub origin: String,
    /// The memory root (only memories live here).
    pub memory_root: PathBuf,
    /// Where Mnemo keeps `meta.json`, sessions and its write lock.
    pub state_dir: PathBuf,
    /// Where `consolidation.lock` lives (the other tool's state dir for Qwen Code).
    pub lock_dir: PathBuf,
    /// How writes here reach other people (`null`: they stay on this machine).
    pub shared: Option<Sharing>,
}

mirror!(mnemo_store::workspace::Workspace => Workspace {
    id, kind, label, origin, memory_root, state_dir, lock_dir, shared: opt,
});
