//! Moving memories between scopes: a memory copied or moved from one workspace to
//! another (a Claude Code project's memory into the personal workspace, a personal memory into
//! a team layer), and whole workspaces exported as a zip. A copy is one change group in the
//! target, labelled with where it came from; a move adds one in the source (the delete), so its
//! history stays in the journal and each side undoes on its own.

use mnemo_core::{ChangeSource, Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

use super::{Vault, scan};
use crate::doc::{self, DocKind};
use crate::export::{self, ExportResult};
use crate::fsutil::{self, ReadOutcome};
use crate::journal::Origin;
use crate::memory_md;

/// What a copy or move did.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Copied`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Copied {
    pub from_workspace: String,
    pub from_path: String,
    pub workspace: String,
    pub path: String,
    pub group: Option<i64>,
    pub removed_group: Option<i64>,
}

impl Vault {
    /// Copy (or, with `remove`, move) the topic memory `path` of `from` into `to`, byte for
    /// byte. `usage` for the same workspace or a daily log; `invalid_content` for a file
    /// holding a secret; `conflict` when the source changes before it is removed (the copy is
    /// then taken back).
    pub fn copy_memory(
        &self,
        from: &str,
        path: &str,
        to: &str,
        remove: bool,
        source: ChangeSource,
    ) -> Result<Copied> {
        let (src, dst) = (self.workspace(from)?, self.workspace(to)?);
        if src.id == dst.id {
            return Err(Error::usage(format!(
                "`{path}` is already in {to}: choose another workspace"
            )));
        }
        let same_folder = std::fs::canonicalize(&src.memory_root)
            .ok()
            .zip(std::fs::canonicalize(&dst.memory_root).ok())
            .is_some_and(|(a, b)| a == b);
        if same_folder {
            return Err(Error::usage(format!(
                "{from} and {to} are the same folder on disk: the memory is already in both"
            )));
        }
        let rel = fsutil::normalise(path)?;
        if doc::doc_kind(&rel) != Some(DocKind::Topic) {
            return Err(Error::usage(format!(
                "only topic memories move between workspaces; `{rel}` is not one"
            )));
        }
        let bytes = match crate::rootdir::read_in(&src.memory_root, &rel)? {
            ReadOutcome::Bytes(b) => b,
            ReadOutcome::Missing => {
                return Err(Error::not_found(format!(
                    "no memory `{rel}` in workspace `{from}`"
                )));
            }
            ReadOutcome::TooLarge(n) => {
                return Err(Error::new(
                    ErrorCode::TooLarge,
                    format!("`{rel}` is {n} bytes: trim it first"),
                ));
            }
        };
        if let Some(what) = crate::secrets::held(&String::from_utf8_lossy(&bytes)) {
            return Err(Error::new(
                ErrorCode::InvalidContent,
                format!(
                    "`{rel}` holds a secret ({what}): remove it before copying the memory anywhere"
                ),
            ));
        }
        // The same path, else the first free `-N` name (or the same bytes already there).
        let stem = rel.trim_end_matches(".md");
        let mut n = 1;
        let (target, same) = loop {
            let p = if n == 1 {
                rel.clone()
            } else {
                format!("{stem}-{n}.md")
            };
            match crate::rootdir::read_in(&dst.memory_root, &fsutil::normalise(&p)?)? {
                ReadOutcome::Missing => break (p, false),
                ReadOutcome::Bytes(b) if b == bytes => break (p, true),
                _ => n += 1,
            }
        };
        let verb = if remove { "moved" } else { "copied" };
        let mut out = Copied {
            from_workspace: src.id.clone(),
            from_path: rel.clone(),
            workspace: dst.id.clone(),
            path: target.clone(),
            group: None,
            removed_group: None,
        };
        if !same {
            let g = self.begin_group(
                &dst.id,
                if remove { "move" } else { "copy" },
                None,
                &format!("{verb} from {}/{rel}", src.id),
            )?;
            let origin = Origin {
                source,
                group: Some(g),
            };
            self.mutate(&dst, &target, origin, None, |cur, p| match cur {
                None => Ok(Some(bytes.clone())),
                Some(_) => Err(Error::new(
                    ErrorCode::Conflict,
                    format!("`{p}` appeared meanwhile: try again"),
                )),
            })?;
            out.group = Some(g);
        }
        if remove {
            let g = self.begin_group(
                &src.id,
                "move",
                None,
                &format!("moved to {}/{target}", dst.id),
            )?;
            let origin = Origin {
                source,
                group: Some(g),
            };
            let removed = self.mutate(&src, &rel, origin, None, |cur, p| match cur {
                Some(b) if b == bytes.as_slice() => Ok(None),
                _ => Err(Error::new(
                    ErrorCode::Conflict,
                    format!(
                        "`{p}` changed while it was being moved: the copy was taken back; try again"
                    ),
                )),
            });
            if let Err(e) = removed {
                let _ = self.discard_group_if_empty(g);
                if let Some(cg) = out.group {
                    self.undo_group(cg, source)?;
                }
                return Err(e);
            }
            out.removed_group = Some(g);
        }
        Ok(out)
    }

    /// The files an export of `workspace` holds: every document and MEMORY.md, by path.
    pub fn export_paths(&self, workspace: &str) -> Result<Vec<String>> {
        let ws = self.workspace(workspace)?;
        let Ok(root) = crate::rootdir::RootDir::open(&ws.memory_root) else {
            return Ok(Vec::new());
        };
        let mut paths: Vec<String> = scan::walk(&root)
            .into_iter()
            .map(|(rel, _)| rel)
            .filter(|rel| rel != memory_md::FILE_NAME)
            .collect();
        if root
            .folder()
            .metadata(memory_md::FILE_NAME)
            .ok()
            .flatten()
            .is_some_and(|m| m.is_file())
        {
            paths.push(memory_md::FILE_NAME.to_owned());
        }
        paths.sort();
        Ok(paths)
    }

    /// Export workspaces (all of them when `workspaces` is empty) to a new zip at `dest`.
    pub fn export(&self, workspaces: &[String], dest: &std::path::Path) -> Result<ExportResult> {
        let ids: Vec<String> = if workspaces.is_empty() {
            self.workspaces()?.into_iter().map(|w| w.id).collect()
        } else {
            workspaces.to_vec()
        };
        let mut all = Vec::new();
        for id in ids {
            // Brought up to date first, so what is exported is what the index lists.
            let ws = self.workspace(&id)?;
            self.sync(&ws)?;
            let paths = self.export_paths(&id)?;
            all.push((ws, paths));
        }
        export::write_zip(&all, dest)
    }
}
