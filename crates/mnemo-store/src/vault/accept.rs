//! Accepting a proposal, the checks and the rebase: which files a person's choice
//! writes, that part of a proposal never loses a fact, and each file rebased onto the disk.

use std::collections::HashSet;

use mnemo_core::{Error, ErrorCode, Result};

use super::review::text;
use crate::format;
use crate::fsutil::{self, ReadOutcome};
use crate::journal::{AcceptChoice, Proposal};
use crate::review::{self, EntryOp};
use crate::workspace::Workspace;

/// What one file of a proposal becomes.
pub(super) struct Target {
    pub(super) path: String,
    pub(super) base: Option<String>,
    pub(super) theirs: Option<String>,
    pub(super) changes: usize,
}

/// The files a choice writes, checked: change ids of this proposal, edits of its files, no
/// secret, valid frontmatter.
pub(super) fn targets(p: &Proposal, choice: &AcceptChoice) -> Result<Vec<Target>> {
    let ids: HashSet<&str> = p
        .files
        .iter()
        .flat_map(|f| f.entries.iter().map(|e| e.id.as_str()))
        .collect();
    let chosen: HashSet<String> = match &choice.entries {
        Some(list) => {
            if let Some(bad) = list.iter().find(|e| !ids.contains(e.as_str())) {
                return Err(Error::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "proposal {} has no change `{bad}`: see `mnemo inbox show {}`",
                        p.summary.id, p.summary.id
                    ),
                ));
            }
            list.iter().cloned().collect()
        }
        None => ids.iter().map(|s| (*s).to_owned()).collect(),
    };
    for e in &choice.edits {
        if !p.files.iter().any(|f| f.path == e.path) {
            return Err(Error::new(
                ErrorCode::InvalidArguments,
                format!("proposal {} does not change `{}`", p.summary.id, e.path),
            ));
        }
    }
    let mut out = Vec::new();
    for f in &p.files {
        let edit = choice.edits.iter().find(|e| e.path == f.path);
        let changes = f.entries.iter().filter(|e| chosen.contains(&e.id)).count();
        let theirs = match edit {
            Some(e) => Some(Some(e.content.clone())),
            None => review::select(f, &chosen),
        };
        let Some(theirs) = theirs else { continue };
        super::gate::refuse_added_secrets(
            &f.path,
            f.before.as_deref().map(str::as_bytes),
            theirs.as_deref().map(str::as_bytes),
        )?;
        if let Some(t) = &theirs
            && crate::doc::doc_kind(&f.path) == Some(crate::doc::DocKind::Topic)
        {
            format::TopicFile::parse(t).check()?;
        }
        out.push(Target {
            path: f.path.clone(),
            base: f.before.clone(),
            theirs,
            changes: if edit.is_some() {
                changes.max(1)
            } else {
                changes
            },
        });
    }
    if out.is_empty() {
        return Err(Error::usage(format!(
            "choose at least one change of proposal {} to accept, or reject it",
            p.summary.id
        )));
    }
    if choice.entries.is_some() {
        no_fact_left_behind(p, &chosen, &out)?;
    }
    Ok(out)
}

/// The summaries (case-folded) of the entries a change's text holds.
fn keys_of(path: &str, whole_file: bool, text: Option<&str>) -> Vec<String> {
    let Some(t) = text else { return Vec::new() };
    let list = if whole_file && crate::doc::doc_kind(path) == Some(crate::doc::DocKind::Topic) {
        format::TopicFile::parse(t).entries()
    } else {
        format::entries(t)
    };
    list.iter()
        .map(|e| format::summary_key(&e.summary))
        .collect()
}

/// Part of a proposal may not lose a fact: a removal taken whose entry lives on only through a
/// change left out (a dream merging a file into another, split in two) is refused.
fn no_fact_left_behind(p: &Proposal, chosen: &HashSet<String>, out: &[Target]) -> Result<()> {
    let mut kept: HashSet<String> = HashSet::new();
    for f in &p.files {
        let text = match out.iter().find(|t| t.path == f.path) {
            Some(t) => t.theirs.as_deref(),
            None => f.before.as_deref(),
        };
        kept.extend(keys_of(&f.path, true, text));
    }
    for f in &p.files {
        for e in f.entries.iter().filter(|e| chosen.contains(&e.id)) {
            if !matches!(e.op, EntryOp::Remove | EntryOp::File) || e.after.is_some() {
                continue;
            }
            for k in keys_of(&f.path, e.op == EntryOp::File, e.before.as_deref()) {
                if kept.contains(&k) {
                    continue;
                }
                let keeper = p.files.iter().find_map(|g| {
                    g.entries.iter().find(|u| {
                        !chosen.contains(&u.id)
                            && keys_of(&g.path, u.op == EntryOp::File, u.after.as_deref())
                                .contains(&k)
                    })
                });
                if let Some(u) = keeper {
                    return Err(Error::usage(format!(
                        "change {} removes \"{k}\", which lives on only through change {}: accept both, or neither",
                        e.id, u.id
                    )));
                }
            }
        }
    }
    Ok(())
}

/// A file and what to write to it (`None`: delete it).
pub(super) type Write = (String, Option<String>);

/// Each target rebased onto the file as it is now (read under the write lock the caller holds).
pub(super) fn rebase_all(ws: &Workspace, targets: &[Target]) -> Result<(Vec<Write>, Vec<String>)> {
    let mut writes = Vec::new();
    let mut conflicts = Vec::new();
    for t in targets {
        let rel = fsutil::normalise(&t.path)?;
        let current = match crate::rootdir::read_in(&ws.memory_root, &rel)? {
            ReadOutcome::Bytes(b) => text(Some(&b)),
            ReadOutcome::Missing => None,
            ReadOutcome::TooLarge(n) => {
                conflicts.push(format!("{} is now {n} bytes, too large", t.path));
                continue;
            }
        };
        match review::rebase(
            &t.path,
            t.base.as_deref(),
            current.as_deref(),
            t.theirs.as_deref(),
        ) {
            Ok(new) => writes.push((t.path.clone(), new)),
            Err(c) => conflicts.push(format!("{}: {}", c.path, c.why)),
        }
    }
    Ok((writes, conflicts))
}
