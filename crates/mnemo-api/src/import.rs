//! Import and export: `import_preview` (what an import would do: counts by type,
//! duplicates, secrets refused, reasons, samples — or for conversations the estimate of model
//! calls and tokens), `import_start` (the same as a task: memories written in one change group
//! per workspace, all or nothing; conversations learnt from one by one, see `import_chats.rs`),
//! `export_memories` (a zip of markdown + manifest), `copy_memory` (between workspaces).

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use mnemo_core::{Error, ErrorCode, Result, TaskKind, TaskReason, TaskStatus, WorkspaceKind};
use mnemo_store::export;
use mnemo_store::import::plan::{FactPlanner, ImportPlan};
use mnemo_store::import::{self, ImportFormat, ImportOptions, memories};
use mnemo_store::tasks::TaskResult;
use mnemo_store::workspace::PERSONAL;

use crate::embed::thousands;
use crate::{Api, wire};

/// An import's source as a path: absolute (a client's working folder means nothing here),
/// existing, resolved.
pub(crate) fn source_path(source: &str) -> Result<PathBuf> {
    let p = Path::new(source.trim());
    if source.trim().is_empty() {
        return Err(Error::usage("name the export file or folder to import"));
    }
    if !p.is_absolute() {
        return Err(Error::usage(format!(
            "give the full path of the export (`{}` is relative)",
            source.trim()
        )));
    }
    std::fs::canonicalize(p).map_err(|e| {
        Error::new(
            if e.kind() == std::io::ErrorKind::NotFound {
                ErrorCode::NotFound
            } else {
                ErrorCode::Io
            },
            format!("cannot read {}: {e}", p.display()),
        )
    })
}

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// What importing `source` into `workspace` (default: personal) would do; nothing is
    /// written. Errors: an unreadable, damaged or unknown source — said plainly.
    pub fn import_preview(
        &self,
        source: String,
        workspace: Option<String>,
        options: Option<wire::ImportOptions>,
    ) -> Result<wire::ImportPreview> {
        let path = source_path(&source)?;
        let format = import::detect(&path)?;
        let options: ImportOptions = options.map(Into::into).unwrap_or_default();
        let mut preview = if format.is_conversations() {
            self.conversations_preview(&path, format, workspace.as_deref(), &options)?
        } else {
            self.plan_memories(&path, format, workspace.as_deref(), &options)?
                .preview
        };
        preview.source = path.display().to_string();
        Ok(preview.into())
    }

    /// Start importing `source` as a task (kind `import`), waited for with `wait_task`.
    /// Memories: planned again and — when `plan` (a preview's fingerprint) is given and the
    /// plan differs (the source or the workspace changed) — refused with `conflict`; then
    /// written all or nothing. Conversations: `model_not_configured` without a model (nothing
    /// queued); else learnt from one by one, resumably.
    pub fn import_start(
        &self,
        source: String,
        workspace: Option<String>,
        options: Option<wire::ImportOptions>,
        plan: Option<String>,
    ) -> Result<wire::TaskInfo> {
        let path = source_path(&source)?;
        let format = import::detect(&path)?;
        let options: ImportOptions = options.map(Into::into).unwrap_or_default();
        if format.is_conversations() {
            return self
                .start_conversations(&path, format, workspace.as_deref(), &options)
                .map(Into::into);
        }
        let planned = self.plan_memories(&path, format, workspace.as_deref(), &options)?;
        if let Some(expected) = plan.as_deref().filter(|p| !p.is_empty())
            && expected != planned.preview.plan
        {
            return Err(Error::new(
                ErrorCode::Conflict,
                "the source or the workspace changed since the preview: preview the import again",
            ));
        }
        if !planned.preview.restore.is_empty() {
            if !planned.preview.restore.iter().any(|c| c.chosen) {
                return Err(Error::new(
                    ErrorCode::SeveralWorkspaces,
                    format!(
                        "this export holds {} workspaces ({}): restore Mnemo's own with \
                     --all-workspaces and another tool's or an added folder with --restore ID \
                     (each goes where the preview shows), or import one with --workspace ID (in \
                     the app, tick them)",
                        planned.preview.restore.len(),
                        planned
                            .preview
                            .restore
                            .iter()
                            .map(|c| mnemo_store::fsutil::printable(&c.workspace))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            // The workspaces the person chose and this home lacks: made now, each where the
            // preview said (Mnemo's own under the home; another tool's project folder or an
            // added folder where it lived — the person confirmed that target by choosing it).
            for c in planned
                .preview
                .restore
                .iter()
                .filter(|c| c.chosen && !c.exists)
            {
                self.make_restore_target(c)?;
            }
        }
        let target = planned.preview.workspace.clone();
        let (mut task, token) = self.tasks.create(TaskKind::Import, &target, None);
        let started = task.clone();
        let (api, label) = (
            self.clone(),
            format!("import of {} ({})", format.label(), file_name(&path)),
        );
        std::thread::Builder::new()
            .name("mnemo-import".into())
            .spawn(move || {
                task.set_status(TaskStatus::Running);
                let total = planned.files.len() as u64;
                task.set_progress(format!("Writing 0 / {} files", thousands(total)), 0, total);
                api.tasks.save(&task);
                let probe = task.clone();
                let stop = || api.tasks.cancelled(&probe, &token);
                let mut last = std::time::Instant::now();
                let mut t2 = task.clone();
                let progress = |done: usize, n: usize| {
                    if last.elapsed() >= std::time::Duration::from_millis(200) || done == n {
                        last = std::time::Instant::now();
                        t2.set_progress(
                            format!(
                                "Writing {} / {} files",
                                thousands(done as u64),
                                thousands(n as u64)
                            ),
                            done as u64,
                            n as u64,
                        );
                        api.tasks.save(&t2);
                    }
                };
                let out = api.vault.apply_import(
                    &target,
                    &planned.files,
                    mnemo_store::vault::ImportBy {
                        source: api.person,
                        label: &label,
                        task: Some(&task.id),
                    },
                    progress,
                    stop,
                );
                // A workspace this restore made gets back its MEMORY.md as exported (the
                // files are all there: the index is theirs, byte for byte).
                let out = out.and_then(|written| {
                    api.restore_indexes(&planned, &written)?;
                    Ok(written)
                });
                match out {
                    Ok(written) => {
                        let memories: u32 = written.iter().map(|w| w.memories).sum();
                        let files: Vec<String> =
                            written.iter().flat_map(|w| w.files.clone()).collect();
                        let p = &planned.preview;
                        let mut summary = if memories == 0 {
                            "nothing written: everything in the source was already here or left out"
                                .to_owned()
                        } else {
                            format!(
                                "imported {} {} into {} {}",
                                thousands(u64::from(memories)),
                                if memories == 1 { "memory" } else { "memories" },
                                thousands(files.len() as u64),
                                if files.len() == 1 { "file" } else { "files" }
                            )
                        };
                        let left: Vec<String> = [
                            (p.duplicates, "already here", "already here"),
                            (p.secrets, "holding a secret", "holding secrets"),
                            (
                                p.skipped,
                                "left out for another reason",
                                "left out for other reasons",
                            ),
                        ]
                        .iter()
                        .filter(|(n, _, _)| *n > 0)
                        .map(|(n, one, many)| format!("{n} {}", if *n == 1 { one } else { many }))
                        .collect();
                        if !left.is_empty() {
                            summary.push_str(&format!("; skipped: {}", left.join(", ")));
                        }
                        if written.len() > 1 {
                            let groups: Vec<String> = written
                                .iter()
                                .map(|w| format!("{} in {}", w.group, w.workspace))
                                .collect();
                            summary.push_str(&format!(
                                "; one change group per workspace: {}",
                                groups.join(", ")
                            ));
                        }
                        task.result = Some(TaskResult {
                            summary,
                            files,
                            group: written.first().map(|w| w.group),
                            touched_types: p.by_type.iter().map(|t| t.memory_type).collect(),
                            dream: None,
                            undone_by: None,
                            proposal: None,
                        });
                        api.tasks.finish(&mut task, TaskStatus::Completed, None);
                    }
                    Err(e) => {
                        let reason = TaskReason::from_error(e.code);
                        task.error = Some(e.message);
                        api.tasks
                            .finish(&mut task, TaskStatus::Failed, Some(reason));
                    }
                }
            })
            .map_err(|e| Error::io("starting the import", &e))?;
        Ok(started.into())
    }

    /// Export `workspace` (every workspace when `None`) to a new zip at `dest` (an absolute
    /// path that does not exist yet, ending in `.zip`).
    pub fn export_memories(
        &self,
        workspace: Option<String>,
        dest: String,
    ) -> Result<wire::ExportResult> {
        let p = Path::new(dest.trim());
        if !p.is_absolute() {
            return Err(Error::usage(format!(
                "give the full path of the zip to write (`{}` is relative)",
                dest.trim()
            )));
        }
        if !p.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip")) {
            return Err(Error::usage("the export is a zip: end its name in .zip"));
        }
        let ids: Vec<String> = workspace.into_iter().collect();
        self.vault.export(&ids, p).map(Into::into)
    }

    /// Copy a memory to another workspace, or move it (`remove_source`).
    pub fn copy_memory(
        &self,
        workspace: String,
        path: String,
        to_workspace: String,
        remove_source: Option<bool>,
    ) -> Result<wire::Copied> {
        self.vault
            .copy_memory(
                &workspace,
                &path,
                &to_workspace,
                remove_source.unwrap_or(false),
                self.person,
            )
            .map(Into::into)
    }

    /// The plan of a memory import (mem0, claude-mem, JSON, notes, a Mnemo export).
    fn plan_memories(
        &self,
        path: &Path,
        format: ImportFormat,
        workspace: Option<&str>,
        options: &ImportOptions,
    ) -> Result<ImportPlan> {
        let target = self.vault.workspace(workspace.unwrap_or(PERSONAL))?.id;
        let plan = match format {
            ImportFormat::MnemoExport => {
                let (mut files, mut preview) = export::read_zip(path)?;
                let ids: std::collections::BTreeSet<String> =
                    files.iter().map(|f| f.line.workspace.clone()).collect();
                // Workspaces chosen one by one (the app's ticks, `--all-workspaces`) decide
                // where a whole-home export goes; else a named workspace takes just its files.
                let choosing =
                    ids.len() > 1 && (options.all_workspaces || !options.workspaces.is_empty());
                let workspace = if choosing { None } else { workspace };
                // Offered from every file of the export (before a named workspace narrows it).
                let mut choices = if ids.len() > 1 {
                    self.restore_choices(&files, &export::read_workspaces(path)?, options)
                } else {
                    Vec::new()
                };
                if let Some(named) = workspace
                    && ids.len() > 1
                {
                    // Naming a workspace of a whole-home export restores just its files, into
                    // it — another tool's memory included, since the person named it.
                    if !ids.contains(&target) {
                        return Err(Error::new(
                            ErrorCode::SeveralWorkspaces,
                            format!(
                                "this export holds {} workspaces ({}) and not {}: import it without \
                             --workspace, and each of Mnemo's own goes back to the workspace of \
                             the same id, or name one of them",
                                ids.len(),
                                ids.iter()
                                    .map(|i| mnemo_store::fsutil::printable(i))
                                    .collect::<Vec<_>>()
                                    .join(", "),
                                mnemo_store::fsutil::printable(named)
                            ),
                        ));
                    }
                    let before = files.len();
                    files.retain(|f| f.line.workspace == target);
                    preview.items = preview
                        .items
                        .saturating_sub(u32::try_from(before - files.len()).unwrap_or(u32::MAX));
                }
                let single = workspace.is_some() || ids.len() <= 1;
                if single && let Some(named) = workspace {
                    // The list still shows what else the export holds, with the named one
                    // ticked: the app starts from it.
                    for c in &mut choices {
                        c.chosen = c.workspace == target;
                        c.why_not = (!c.chosen).then(|| {
                            format!(
                                "not chosen: the import goes into {} only",
                                mnemo_store::fsutil::printable(named)
                            )
                        });
                    }
                }
                let vault = Arc::clone(&self.vault);
                let mut plan = export::plan_restore(
                    files,
                    preview,
                    |w| {
                        if single {
                            return Ok(target.clone());
                        }
                        // A manifest is anyone's words: a file goes only where the person
                        // chose (`--all-workspaces` covers Mnemo's own workspaces; another
                        // tool's memory — loaded into every session — or an added folder only
                        // when ticked or named with --workspace).
                        match choices.iter().find(|c| c.workspace == w) {
                            Some(c) if c.chosen => Ok(c.workspace.clone()),
                            Some(c) => Err(c.why_not.clone().unwrap_or_default()),
                            None => Err(format!("workspace {w} is not offered")),
                        }
                    },
                    |w| vault.import_existing(w).ok(),
                );
                if !single {
                    // The preview names every workspace the apply writes into.
                    let into: std::collections::BTreeSet<&str> = plan
                        .files
                        .iter()
                        .filter_map(|f| f.workspace.as_deref())
                        .collect();
                    plan.preview.workspace = if into.is_empty() {
                        "no workspace yet: choose which to restore".to_owned()
                    } else {
                        into.into_iter().collect::<Vec<_>>().join(", ")
                    };
                }
                plan.preview.restore = choices;
                return Ok(finish(plan, path, single.then(|| target.clone())));
            }
            ImportFormat::Markdown => {
                let notes = memories::notes(path)?;
                import::notes::check_folder_types(&notes, options)?;
                let existing = self.vault.import_existing(&target)?;
                let folder = file_name(path);
                import::notes::plan_notes(notes, &folder, options, &existing)
            }
            _ => {
                let existing = self.vault.import_existing(&target)?;
                let mut planner = FactPlanner::new(format, options, &existing, chrono::Utc::now());
                memories::for_each(path, format, |c| planner.add(&c))?;
                planner.finish()
            }
        };
        Ok(finish(plan, path, Some(target)))
    }
}

/// Where a workspace of an export that this home lacks would be made again.
enum Place {
    /// Mnemo's own: `workspaces/<id>/memory` under the home.
    Mnemo,
    /// Claude Code's or Qwen Code's memory of a project: `<tool>/projects/<encoded>/memory`.
    Project(PathBuf),
    /// An added folder, where it lived.
    Folder(PathBuf),
}

impl Api {
    /// Where workspace `id` of an export would be made again on this computer (`None`: nowhere
    /// it can be told — an export written before it listed its workspaces, a Qwen layer, an
    /// id that is not one of the forms Mnemo makes).
    fn restore_place(&self, id: &str, listed: Option<&export::ExportedWorkspace>) -> Option<Place> {
        let encoded = |rest: &str| {
            (!rest.is_empty()
                && rest.len() <= 255
                && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
            .then(|| rest.to_owned())
        };
        let home = self.vault.home();
        if let Some(rest) = id.strip_prefix("claude:") {
            return encoded(rest)
                .map(|e| Place::Project(home.claude_dir.join("projects").join(e).join("memory")));
        }
        if let Some(rest) = id.strip_prefix("qwen:") {
            return encoded(rest)
                .map(|e| Place::Project(home.qwen_dir.join("projects").join(e).join("memory")));
        }
        if id.starts_with("folder:") {
            // Only where the export says it lived, and only a path that makes this very id
            // (a manifest cannot point one folder's files at another place).
            let root = PathBuf::from(listed?.root.as_deref()?);
            let same = root.is_absolute()
                && format!(
                    "folder:{}",
                    mnemo_store::workspace::sanitize(&root.to_string_lossy())
                ) == id;
            return same.then_some(Place::Folder(root));
        }
        mnemo_workspace_id(id).then_some(Place::Mnemo)
    }

    /// Each workspace of a whole-home export, and whether this import restores it: chosen by
    /// name (the app's ticks, `--restore`), or — Mnemo's own only — by `all_workspaces`.
    /// Another tool's memory and an added folder are restored only when named, into the
    /// target the preview shows.
    fn restore_choices(
        &self,
        files: &[export::ExportedFile],
        listed: &[export::ExportedWorkspace],
        options: &ImportOptions,
    ) -> Vec<mnemo_store::import::RestoreChoice> {
        let mut counts: std::collections::BTreeMap<&str, u32> = std::collections::BTreeMap::new();
        for f in files.iter().filter(|f| f.line.kind != "index") {
            *counts.entry(f.line.workspace.as_str()).or_default() += 1;
        }
        counts
            .into_iter()
            .map(|(w, n)| {
                let here = self.vault.workspace(w).ok();
                let about = listed.iter().find(|l| l.id == w);
                let place = if here.is_some() {
                    None
                } else {
                    self.restore_place(w, about)
                };
                let mnemo = here.as_ref().map_or_else(
                    || matches!(place, Some(Place::Mnemo)),
                    |ws| ws.kind == WorkspaceKind::Mnemo,
                );
                let target = here.as_ref().map_or_else(
                    || match &place {
                        Some(Place::Mnemo) => Some(
                            self.vault
                                .home()
                                .root
                                .join("workspaces")
                                .join(w)
                                .join("memory"),
                        ),
                        Some(Place::Project(p) | Place::Folder(p)) => Some(p.clone()),
                        None => None,
                    },
                    |ws| Some(ws.memory_root.clone()),
                );
                let named = options.workspaces.iter().any(|c| c == w);
                let shown = mnemo_store::fsutil::printable(w);
                let label = here.as_ref().map_or_else(
                    || {
                        about.map_or_else(
                            || shown.clone(),
                            |a| mnemo_store::fsutil::printable(&a.label),
                        )
                    },
                    |ws| ws.label.clone(),
                );
                let why_not = if here.is_none() && place.is_none() {
                    Some(format!(
                        "{shown} is not in this home and the export does not say where it lived \
                         (another tool's memory or an added folder): add it here first, then \
                         import it with --workspace {shown}"
                    ))
                } else if named || (options.all_workspaces && mnemo) {
                    None
                } else if mnemo {
                    Some(format!(
                        "not chosen: restore it with --all-workspaces (or tick {shown} in the dialog)"
                    ))
                } else if here.is_none() {
                    let at = target
                        .as_ref()
                        .map(|t| mnemo_store::fsutil::printable(&t.display().to_string()))
                        .unwrap_or_default();
                    let exists = target.as_ref().is_some_and(|t| t.is_dir());
                    Some(if exists {
                        format!(
                            "{label} is another tool's memory or an added folder: its folder {at} \
                             exists on this computer but is not part of this home — restoring \
                             adds it and writes the export's files there; confirm with --restore \
                             {shown} (or tick it in the dialog)"
                        )
                    } else {
                        format!(
                            "{label} is another tool's memory or an added folder, not on this \
                             computer yet: restoring it makes {at} (it will be made) — confirm \
                             with --restore {shown} (or tick it in the dialog)"
                        )
                    })
                } else {
                    Some(format!(
                        "{label} is another tool's memory: an export never writes there by itself — \
                         confirm with --restore {shown}, import only its files with --workspace \
                         {shown}, or tick it in the dialog"
                    ))
                };
                mnemo_store::import::RestoreChoice {
                    workspace: w.to_owned(),
                    files: n,
                    chosen: why_not.is_none(),
                    exists: here.is_some(),
                    other_tool: !mnemo,
                    why_not,
                    target: target.map(|t| t.display().to_string()),
                }
            })
            .collect()
    }

    /// After a whole-home restore: each workspace it made (chosen, not here before) and wrote
    /// into gets the export's MEMORY.md, in that workspace's change group.
    fn restore_indexes(
        &self,
        planned: &ImportPlan,
        written: &[mnemo_store::vault::ImportWritten],
    ) -> Result<()> {
        let made = |w: &str| {
            planned
                .preview
                .restore
                .iter()
                .any(|c| c.chosen && !c.exists && c.workspace == w)
        };
        for (ws, bytes) in &planned.indexes {
            if let Some(w) = written.iter().find(|w| &w.workspace == ws && made(ws)) {
                self.vault
                    .restore_index(&w.workspace, bytes, w.group, self.person)?;
            }
        }
        Ok(())
    }

    /// Make a chosen workspace this home lacks, where its preview said, and check it is then
    /// the workspace of that id (a folder that resolves elsewhere, a link on the way, is
    /// refused by discovery and so here).
    fn make_restore_target(&self, c: &mnemo_store::import::RestoreChoice) -> Result<()> {
        let home = self.vault.home();
        let shown = mnemo_store::fsutil::printable(&c.workspace);
        let (dir, folder) = match self.restore_place(&c.workspace, None) {
            Some(Place::Mnemo) => return home.create_workspace(&c.workspace).map(|_| ()),
            Some(Place::Project(p)) => (p, false),
            _ => {
                let root = PathBuf::from(c.target.as_deref().unwrap_or_default());
                if !c.workspace.starts_with("folder:") || !root.is_absolute() {
                    return Err(Error::usage(format!(
                        "{shown} cannot be made on this computer: preview the import again"
                    )));
                }
                (root, true)
            }
        };
        // Checked before anything is written: a link on the way or a `..` refuses the restore
        // with nothing made and nothing listed in the settings.
        let made = make_dirs_checked(&dir, &shown)?;
        let listed = folder && !home.workspaces()?.iter().any(|w| w.memory_root == dir);
        let done = if folder {
            home.add_folder(&dir).map(|_| ())
        } else {
            Ok(())
        };
        let found = done.and_then(|()| {
            self.vault.workspace(&c.workspace).map(|_| ()).map_err(|_| {
                Error::new(
                    ErrorCode::Conflict,
                    format!(
                        "{shown} was made at {} but this home does not find it there (a link on \
                         the way, or the folder resolves elsewhere): nothing was imported, and \
                         nothing it made is left",
                        mnemo_store::fsutil::printable(&dir.display().to_string())
                    ),
                )
            })
        });
        if found.is_err() {
            // Put everything back as it was: the settings' list, then the folders it made.
            if listed {
                let _ = mnemo_store::settings::remove_folder(&home.root, &dir);
            }
            for d in made.iter().rev() {
                let _ = std::fs::remove_dir(d);
            }
        }
        found
    }
}

/// Make `dir` and its missing parents after checking that the deepest folder already there is
/// where its path says (no link, no `..` on the way); the folders made, outermost first.
fn make_dirs_checked(dir: &Path, shown: &str) -> Result<Vec<PathBuf>> {
    let refuse = |why: &str| {
        Error::new(
            ErrorCode::PathEscape,
            format!(
                "{shown} cannot be restored at {}: {why}. Nothing was imported or written; \
                 preview the import again, or import its files into a workspace with --workspace",
                mnemo_store::fsutil::printable(&dir.display().to_string())
            ),
        )
    };
    if !dir.is_absolute()
        || dir
            .components()
            .any(|c| !matches!(c, Component::RootDir | Component::Normal(_)))
    {
        return Err(refuse("its path is not a plain absolute path"));
    }
    let mut missing = Vec::new();
    let mut at = dir.to_path_buf();
    while std::fs::symlink_metadata(&at).is_err() {
        missing.push(at.clone());
        if !at.pop() {
            break;
        }
    }
    match std::fs::canonicalize(&at) {
        Ok(real) if real == at => {}
        _ => return Err(refuse("a symbolic link is on the way")),
    }
    if !std::fs::metadata(&at).is_ok_and(|m| m.is_dir()) {
        return Err(refuse("something that is not a folder is on the way"));
    }
    missing.reverse();
    for d in &missing {
        if let Err(e) = std::fs::create_dir(d)
            && e.kind() != std::io::ErrorKind::AlreadyExists
        {
            return Err(Error::io(format!("creating {}", d.display()), &e));
        }
    }
    Ok(missing)
}

/// Whether `id` can be one of Mnemo's own workspaces (`personal`, or a repository's key:
/// letters, digits and `-`, as `workspace::sanitize` makes them), so a restore may create it.
fn mnemo_workspace_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 200 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// The preview's target and source (a whole-home restore names its targets itself).
fn finish(mut plan: ImportPlan, path: &Path, target: Option<String>) -> ImportPlan {
    if let Some(t) = target {
        plan.preview.workspace = t;
    }
    plan.preview.source = path.display().to_string();
    plan
}

/// A new export's default file name: `mnemo-export-YYYY-MM-DD-HHMMSS.zip` (local time).
#[must_use]
pub fn default_export_name() -> String {
    format!(
        "mnemo-export-{}.zip",
        chrono::Local::now().format("%Y-%m-%d-%H%M%S")
    )
}

/// The last part of a path, for labels (through the secret gate: a file may be named by one).
pub(crate) fn file_name(path: &Path) -> String {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    mnemo_store::secrets::redact(&name).0
}
