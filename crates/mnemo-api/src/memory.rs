//! Memory commands: workspaces, list, get, create, update, remove, search, history, diffs,
//! undo (single changes and change groups), the index, status and the folder settings.

use std::path::PathBuf;

use mnemo_core::{ChangeSource, Error, ErrorCode, Field, MemoryType, Result};
use serde::Serialize;
use specta::Type;

use crate::wire::{
    self, ChangeSummary, DocSummary, GroupInfo, GroupUndo, Hit, MemoryDetail, Settings, Status,
    SyncReport, WorkspaceInfo, WriteOutcome,
};
use crate::{Api, clamp};

pub use mnemo_core::{NewMemory, Patch};

/// A path, name or description must be printable: no control character, no bidi override.
fn check_printable(parts: &[(Field, &str)]) -> Result<()> {
    match parts
        .iter()
        .find(|(_, p)| p.chars().any(mnemo_store::fsutil::unsafe_char))
    {
        Some((field, p)) => Err(Error::new(
            ErrorCode::InvalidPath,
            format!(
                "`{}` holds a control character or a bidirectional override: use printable characters only",
                mnemo_store::fsutil::printable(p)
            ),
        )
        .on(Some(*field))),
        None => Ok(()),
    }
}

/// A journaled change with its before/after text, for a diff view.
#[derive(Debug, Clone, Serialize, Type)]
pub struct ChangeDiff {
    /// The change.
    pub change: ChangeSummary,
    /// Text before (`null`: no file, or not text).
    pub before: Option<String>,
    /// Text after (`null`: deleted, or not text).
    pub after: Option<String>,
    /// Why a side's text is missing though the file existed (it held a secret, or was too
    /// large), in a sentence; `null` when both sides are here or truly absent.
    pub withheld: Option<String>,
    /// Whether undo can restore the content before (false: it was not kept).
    pub undoable: bool,
}

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// Workspaces with counts.
    pub fn workspaces(&self) -> Result<Vec<WorkspaceInfo>> {
        self.vault.workspace_infos().map(wire::all)
    }

    /// Add a folder as a workspace; it is indexed and watched at once.
    pub fn add_folder(&self, path: String) -> Result<WorkspaceInfo> {
        let path = path.trim();
        if path.is_empty() {
            return Err(Error::usage("give the folder's path"));
        }
        let ws = self.vault.home().add_folder(std::path::Path::new(path))?;
        self.adopt(&ws)
    }

    /// Topic memories, optionally one workspace and one type.
    pub fn list(
        &self,
        workspace: Option<String>,
        memory_type: Option<MemoryType>,
    ) -> Result<Vec<DocSummary>> {
        if self.watching() {
            self.vault.list_indexed(workspace.as_deref(), memory_type)
        } else {
            self.vault.list(workspace.as_deref(), memory_type)
        }
        .map(wire::all)
    }

    /// One memory with its content.
    pub fn get(&self, workspace: String, path: String) -> Result<MemoryDetail> {
        self.vault.get(&workspace, &path).map(Into::into)
    }

    /// A workspace's daily logs (`logs/YYYY/MM/YYYY-MM-DD.md`), newest day first; read, search
    /// and edit them like any memory (`get`, `search`, `update` with a new body).
    pub fn logs(&self, workspace: String) -> Result<Vec<DocSummary>> {
        self.vault.logs(&workspace).map(wire::all)
    }

    /// A workspace's MEMORY.md as it is on disk (empty when there is none).
    pub fn memory_index(&self, workspace: String) -> Result<String> {
        self.vault.memory_index_text(&workspace)
    }

    /// The workspace a client working in `dir` means by default: the Mnemo workspace bound to
    /// its git repository when there is one, else `personal`.
    #[must_use]
    pub fn default_workspace_for(&self, dir: &std::path::Path) -> String {
        self.vault
            .home()
            .bound_project(dir)
            .unwrap_or_else(|| mnemo_store::workspace::PERSONAL.to_owned())
    }

    /// Create a memory (`conflict` if the path exists).
    pub fn create(&self, workspace: String, memory: NewMemory) -> Result<WriteOutcome> {
        check_printable(&[
            (Field::Path, memory.path.as_deref().unwrap_or("")),
            (Field::Name, &memory.name),
            (Field::Description, &memory.description),
        ])?;
        let new = NewMemory {
            path: memory.path.filter(|p| !p.trim().is_empty()),
            ..memory
        };
        let out = self.vault.create(&workspace, &new, self.person)?;
        self.lift_forgotten(&workspace, &new.body);
        Ok(out.into())
    }

    /// A person wrote these entries: what they had asked to forget may be written again.
    fn lift_forgotten(&self, workspace: &str, body: &str) {
        self.lift_forgotten_new(workspace, "", body);
    }

    /// A person changed a body from `before` to `after`: the entries they added (not those that
    /// were already there) may be written again by agents.
    fn lift_forgotten_new(&self, workspace: &str, before: &str, after: &str) {
        let had: std::collections::HashSet<String> = mnemo_store::format::entries(before)
            .iter()
            .map(|e| mnemo_store::format::summary_key(&e.summary))
            .collect();
        let summaries: Vec<String> = mnemo_store::format::entries(after)
            .into_iter()
            .filter(|e| !had.contains(&mnemo_store::format::summary_key(&e.summary)))
            .map(|e| e.summary)
            .collect();
        if let Err(e) = self.vault.remove_forgotten(workspace, &summaries) {
            tracing::warn!("could not lift forgotten marks: {e}");
        }
    }

    /// Change a memory's fields and/or body.
    pub fn update(&self, workspace: String, path: String, patch: Patch) -> Result<WriteOutcome> {
        check_printable(&[
            (Field::Name, patch.name.as_deref().unwrap_or("")),
            (
                Field::Description,
                patch.description.as_deref().unwrap_or(""),
            ),
        ])?;
        let body = patch.body.clone();
        let before = body
            .as_ref()
            .and_then(|_| self.vault.get(&workspace, &path).ok())
            .map(|d| d.body);
        let out = self.vault.update(&workspace, &path, &patch, self.person)?;
        if let Some(b) = body {
            self.lift_forgotten_new(&workspace, before.as_deref().unwrap_or(""), &b);
        }
        Ok(out.into())
    }

    /// Pin or unpin a memory: `pinned: true` is added to, or removed from, its
    /// frontmatter; nothing else changes. Extraction and dream never change or delete a pinned
    /// memory. A file in Qwen Code's `pinned/` folder is pinned by where it is: `conflict`.
    pub fn set_pinned(
        &self,
        workspace: String,
        path: String,
        pinned: bool,
    ) -> Result<WriteOutcome> {
        let ws = self.vault.workspace(&workspace)?;
        self.vault.mutate(&ws, &path, self.person, None, |cur, rel| {
            if mnemo_store::doc::doc_kind(rel) != Some(mnemo_store::doc::DocKind::Topic) {
                return Err(Error::usage(format!("`{rel}` is not a topic file: only topic files can be pinned")));
            }
            if mnemo_store::doc::in_pinned_folder(rel) {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!("`{rel}` is in the pinned/ folder, which pins it: move it out to unpin it"),
                ));
            }
            let bytes = cur.ok_or_else(|| Error::not_found(format!("no memory `{rel}` in workspace `{workspace}`")))?;
            let text = String::from_utf8(bytes.to_vec()).map_err(|_| {
                Error::new(ErrorCode::InvalidContent, format!("`{rel}` is not UTF-8 text"))
            })?;
            let mut file = mnemo_store::format::TopicFile::parse(&text);
            file.set_pinned(pinned)?;
            Ok(Some(file.render().into_bytes()))
        })
        .map(Into::into)
    }

    /// Delete a memory (undoable).
    pub fn remove(&self, workspace: String, path: String) -> Result<WriteOutcome> {
        self.vault
            .delete(&workspace, &path, self.person)
            .map(Into::into)
    }

    /// Search, best first: as many hits as asked when there are that many candidates — the
    /// matches, then (flagged `weak`) the rest by meaning — each with the passage that matched
    /// and its line.
    pub fn search(
        &self,
        workspace: Option<String>,
        query: String,
        limit: Option<u32>,
        lexical: Option<bool>,
    ) -> Result<Vec<Hit>> {
        if query.len() > 4096 {
            return Err(Error::new(
                ErrorCode::TooLarge,
                "a search query may be at most 4,096 bytes",
            ));
        }
        let ws = workspace.as_deref();
        let limit = clamp(limit);
        if !self.watching() {
            for w in self.vault.scope(ws)? {
                self.vault.sync(&w)?;
            }
        }
        // Function words match everything; they count only when nothing else is typed yet.
        let content = mnemo_engine::recall::content_query(&query);
        let words = if content.is_empty() { &query } else { &content };
        let mut hits = None;
        if lexical != Some(true)
            && !query.trim().is_empty()
            && self.hybrid_worthwhile(ws)
            && let Some(qv) = self.query_vector(&query)
        {
            if !self.watching() {
                self.embed_inline(ws);
            }
            hits = mnemo_engine::recall::search_hybrid(&self.vault, ws, words, &qv, limit)?;
        }
        let mut hits = match hits {
            Some(h) => h,
            None => {
                let mut hits = self.vault.search_indexed(ws, words, limit)?;
                let shares = mnemo_engine::recall::normalise_lexical(&hits);
                for (h, share) in hits.iter_mut().zip(shares) {
                    h.score = share;
                    h.lexical = Some(share);
                }
                mnemo_engine::recall::mark_search_floor(hits)
            }
        };
        mnemo_engine::recall::mark_matches(words, &mut hits);
        for h in &mut hits {
            if let Some((body, line)) = self.vault.body_indexed(&h.workspace, &h.path)? {
                h.passage = mnemo_engine::recall::passage(&body, line, words);
            }
        }
        Ok(wire::all(hits))
    }

    /// The journal, newest first.
    pub fn history(
        &self,
        workspace: Option<String>,
        path: Option<String>,
        limit: Option<u32>,
    ) -> Result<Vec<ChangeSummary>> {
        self.vault
            .history(workspace.as_deref(), path.as_deref(), clamp(limit))
            .map(wire::all)
    }

    /// One change with its before/after text.
    pub fn diff(&self, id: i64) -> Result<ChangeDiff> {
        let c = self.vault.change(id)?;
        let text = |b: Option<Vec<u8>>| b.and_then(|b| String::from_utf8(b).ok());
        let side = |name: &str, secret: &Option<String>, hash: &Option<String>, kept: bool| {
            match secret {
                Some(rules) => Some(format!(
                    "The text {name} this change is not shown: it held what looks like a secret ({rules}), and Mnemo never keeps secrets."
                )),
                None if hash.is_some() && !kept => Some(format!(
                    "The text {name} this change is not shown: the file was too large to keep."
                )),
                None => None,
            }
        };
        let notes: Vec<String> = [
            side(
                "before",
                &c.before_secret,
                &c.before_hash,
                c.before.is_some(),
            ),
            side("after", &c.after_secret, &c.after_hash, c.after.is_some()),
        ]
        .into_iter()
        .flatten()
        .collect();
        let undoable = c.unrestorable().is_none();
        Ok(ChangeDiff {
            change: c.summary.into(),
            before: text(c.before),
            after: text(c.after),
            withheld: (!notes.is_empty()).then(|| notes.join(" ")),
            undoable,
        })
    }

    /// Undo a change (restores exact bytes; journaled).
    pub fn undo(&self, id: i64) -> Result<WriteOutcome> {
        let change = self.vault.change(id)?;
        let out = self.vault.undo(id, self.person)?;
        // Undoing a forget's change is the person asking for those entries back.
        if change.summary.source == ChangeSource::Forget
            && let Ok(d) = self
                .vault
                .get(&change.summary.workspace, &change.summary.path)
        {
            self.lift_forgotten(&change.summary.workspace, &d.body);
        }
        Ok(out.into())
    }

    /// Status of the home.
    pub fn status(&self) -> Result<Status> {
        if !self.watching() {
            self.vault.sync_all()?;
        }
        let mut status = self.vault.status()?;
        status.warnings.extend(self.tasks.warnings());
        Ok(Status::new(status, self.semantic()?))
    }

    /// Settings (`settings.toml`).
    pub fn get_settings(&self) -> Result<Settings> {
        self.vault.home().settings().map(Into::into)
    }

    /// Replace the settings. Folders must exist.
    pub fn set_settings(&self, settings: Settings) -> Result<()> {
        for f in &settings.folders {
            if !f.path.is_dir() {
                return Err(Error::not_found(format!(
                    "{} is not a folder",
                    f.path.display()
                )));
            }
        }
        self.vault.home().save_settings(&settings.into())
    }

    /// The memory folder of a workspace.
    pub fn memory_root(&self, workspace: &str) -> Result<PathBuf> {
        Ok(self.vault.workspace(workspace)?.memory_root)
    }

    /// A workspace just added: indexed, watched when this process watches, listed with counts.
    fn adopt(&self, ws: &mnemo_store::Workspace) -> Result<WorkspaceInfo> {
        self.vault.sync(ws)?;
        if self.watching() {
            self.start_watching()?;
        }
        self.workspaces()?
            .into_iter()
            .find(|w| w.workspace.id == ws.id)
            .ok_or_else(|| Error::not_found(format!("workspace {} vanished", ws.id)))
    }

    /// Undo a whole change group (one job's changes): every file back to its bytes from before
    /// the group, or `conflict` naming the files changed since, with nothing written.
    pub fn undo_group(&self, id: i64) -> Result<GroupUndo> {
        // A job still writing would add to the group after the undo's plan: wait for it.
        if let Some(task) = self.vault.group(id)?.task
            && let Ok(t) = self.task(task)
            && !t.status.is_finished()
        {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "group {id} is still being written by task {} ({}): cancel it or wait for it to finish",
                    t.id,
                    t.status.as_str()
                ),
            ));
        }
        let group = self.vault.group(id)?;
        let undone = self.vault.undo_group(id, self.person)?;
        // Undoing a forget is the person asking for those entries back: lift their marks.
        if group.kind == "forget" {
            for c in &group.changes {
                if let Ok(d) = self.vault.get(&group.workspace, &c.path) {
                    self.lift_forgotten(&group.workspace, &d.body);
                }
            }
        }
        Ok(undone.into())
    }

    /// A change group with its changes (open it to see each file's diff).
    pub fn change_group(&self, id: i64) -> Result<GroupInfo> {
        self.vault.group(id).map(Into::into)
    }

    /// Bring the index up to date with the files of every workspace (`rebuild`: from scratch).
    pub fn index(&self, rebuild: Option<bool>) -> Result<SyncReport> {
        if rebuild == Some(true) {
            self.vault.rebuild()
        } else {
            self.vault.sync_all()
        }
        .map(Into::into)
    }

    /// Create (or find) the workspace bound to the git repository containing `dir`.
    pub fn bind_workspace(&self, dir: String) -> Result<WorkspaceInfo> {
        if dir.trim().is_empty() {
            return Err(Error::usage("give a folder inside the git repository"));
        }
        let ws = self
            .vault
            .home()
            .bind_project(std::path::Path::new(dir.trim()))?;
        self.adopt(&ws)
    }

    /// Open a workspace's memory folder in the system file manager. Only the desktop app can:
    /// elsewhere `desktop_only` (the browser UI hides the button).
    pub fn open_folder(&self, workspace: String) -> Result<()> {
        let root = self.memory_root(&workspace)?;
        let opener = self
            .opener
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        match opener {
            Some(open) => open(&root),
            None => Err(Error::new(
                ErrorCode::DesktopOnly,
                format!(
                    "only the desktop app can open folders; the folder is {}",
                    root.display()
                ),
            )),
        }
    }
}
