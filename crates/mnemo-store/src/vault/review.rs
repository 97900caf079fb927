//! Review: a change group can be **staged** — its writes go to a change set held in
//! memory beside the files instead of into them (the job reads its own staged writes back), and
//! when the job ends the set is saved as a proposal in the journal. Accepting applies a proposal
//! through the one write path as one change group; rejecting may mark its entries forgotten.

use std::collections::{BTreeMap, HashSet};

use mnemo_core::{ChangeSource, Error, ErrorCode, Result};
use serde::Serialize;

use super::accept::{Write, rebase_all, targets};
use super::{Vault, WriteHold, WriteOutcome, guard};
use crate::fsutil;
use crate::journal::{
    AcceptChoice, NewProposal, Origin, Proposal, ProposalOrigin, ProposalPage, ProposalStatus,
    ProposalSummary,
};
use crate::review::EntryOp;
use crate::workspace::Workspace;
use crate::{doc, format, settings};

/// Days a proposal waits for a decision before it expires (`review_expire_days` in settings).
pub const DEFAULT_EXPIRE_DAYS: u32 = 30;

/// A file's bytes before a staged group first wrote it, and as the group left it.
type Versions = (Option<Vec<u8>>, Option<Vec<u8>>);

/// A staged group's writes: per path, the bytes before its first write and the bytes now.
pub(super) struct Stage {
    workspace: String,
    files: BTreeMap<String, Versions>,
}

/// What accepting did.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Accepted`.
#[derive(Debug, Clone, Serialize)]
pub struct Accepted {
    pub proposal: ProposalSummary,
    pub group: i64,
    pub paths: Vec<String>,
}

pub(super) fn text(b: Option<&[u8]>) -> Option<String> {
    b.map(|b| String::from_utf8_lossy(b).into_owned())
}

impl Vault {
    /// Hold group `group`'s writes to `ws` as a proposal instead of writing them.
    pub fn stage_group(&self, group: i64, ws: &str) {
        guard(&self.stages).insert(
            group,
            Stage {
                workspace: ws.to_owned(),
                files: BTreeMap::new(),
            },
        );
    }

    /// Whether review mode is on for `workspace`.
    #[must_use]
    pub fn review_on(&self, workspace: &str) -> bool {
        settings::switch(&self.home().root, settings::REVIEW, workspace) == Some(true)
    }

    /// The one write gate of review mode, under every write to a memory: with review mode on, an
    /// automatic writer ([`ChangeSource::is_automatic`]) writes only into a staged group (its
    /// job opened one, and it becomes a proposal). A writer that did not is refused, never
    /// let through, so a new writer cannot bypass review by forgetting to ask.
    pub(super) fn refuse_unreviewed(&self, ws: &str, origin: Origin, rel: &str) -> Result<()> {
        if !origin.source.is_automatic()
            || doc::doc_kind(rel) != Some(doc::DocKind::Topic)
            || self.is_staged(origin)
            || !self.review_on(ws)
        {
            return Ok(());
        }
        // A proposal a person accepted is written in a `review` group, with its writer's source.
        if let Some(g) = origin.group
            && guard(&self.journal)
                .group(g)
                .is_ok_and(|info| info.kind == "review")
        {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "review mode is on for {ws}: the {} write to `{rel}` must be proposed for review, not written (nothing was changed)",
                origin.source.as_str()
            ),
        ))
    }

    /// Whether `origin`'s group is staged (its writes become a proposal).
    #[must_use]
    pub fn is_staged(&self, origin: Origin) -> bool {
        origin
            .group
            .is_some_and(|g| guard(&self.stages).contains_key(&g))
    }

    /// A staged file as the job sees it: `Some(None)` deleted, `None` not staged.
    #[must_use]
    pub fn staged(&self, origin: Origin, rel: &str) -> Option<Option<Vec<u8>>> {
        let g = origin.group?;
        guard(&self.stages)
            .get(&g)
            .and_then(|s| s.files.get(rel).map(|(_, now)| now.clone()))
    }

    /// Every staged file of `origin`'s group: `(path, bytes now)`.
    #[must_use]
    pub fn staged_files(&self, origin: Origin) -> Vec<(String, Option<Vec<u8>>)> {
        origin
            .group
            .and_then(|g| {
                guard(&self.stages).get(&g).map(|s| {
                    s.files
                        .iter()
                        .map(|(p, (_, now))| (p.clone(), now.clone()))
                        .collect()
                })
            })
            .unwrap_or_default()
    }

    /// Lay `origin`'s staged writes over a snapshot of files read from disk.
    pub fn overlay(&self, origin: Origin, files: &mut BTreeMap<String, Vec<u8>>) {
        for (p, now) in self.staged_files(origin) {
            match now {
                Some(b) => files.insert(p, b),
                None => files.remove(&p),
            };
        }
    }

    /// A staged group's write: `f` sees the staged bytes (else `disk`), the result is staged.
    pub(super) fn stage_write(
        &self,
        ws: &Workspace,
        group: i64,
        rel: &str,
        disk: Option<Vec<u8>>,
        f: impl FnOnce(Option<&[u8]>, &str) -> Result<Option<Vec<u8>>>,
    ) -> Result<WriteOutcome> {
        let cur = {
            let stages = guard(&self.stages);
            let stage = stages.get(&group).ok_or_else(|| {
                Error::new(ErrorCode::Conflict, format!("group {group} is not staged"))
            })?;
            if stage.workspace != ws.id {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!(
                        "group {group} stages writes to {}, not {}",
                        stage.workspace, ws.id
                    ),
                ));
            }
            stage
                .files
                .get(rel)
                .map_or_else(|| disk.clone(), |(_, now)| now.clone())
        };
        let new = f(cur.as_deref(), rel)?;
        if let Some(b) = &new
            && b.len() as u64 > fsutil::MAX_FILE_BYTES
        {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!(
                    "a memory file may hold at most {} bytes; this one would hold {}",
                    fsutil::MAX_FILE_BYTES,
                    b.len()
                ),
            ));
        }
        super::gate::refuse_added_secrets(rel, cur.as_deref(), new.as_deref())?;
        let hash = new.as_deref().map(fsutil::hash);
        let mut stages = guard(&self.stages);
        if let Some(stage) = stages.get_mut(&group) {
            let entry = stage
                .files
                .entry(rel.to_owned())
                .or_insert_with(|| (disk, None));
            entry.1 = new;
            if entry.0 == entry.1 {
                stage.files.remove(rel);
            }
        }
        Ok(WriteOutcome {
            workspace: ws.id.clone(),
            path: rel.to_owned(),
            change_id: None,
            hash,
            shared: None,
        })
    }

    /// End a staged group: its writes become a proposal (`None` when it wrote nothing).
    pub fn finish_stage(
        &self,
        group: i64,
        source: ChangeSource,
        kind: &str,
        label: &str,
        origin: &ProposalOrigin,
    ) -> Result<Option<i64>> {
        let Some(stage) = guard(&self.stages).remove(&group) else {
            return Ok(None);
        };
        if stage.files.is_empty() {
            return Ok(None);
        }
        for (p, (before, now)) in &stage.files {
            super::gate::refuse_added_secrets(p, before.as_deref(), now.as_deref())?;
        }
        let id = guard(&self.journal).add_proposal(&NewProposal {
            workspace: &stage.workspace,
            source,
            kind,
            label,
            origin,
            files: stage
                .files
                .into_iter()
                .map(|(p, (before, after))| (p, before, after))
                .collect(),
        })?;
        tracing::info!(workspace = %stage.workspace, proposal = id, "{label}: proposed for review");
        Ok(Some(id))
    }

    /// Drop a staged group's writes (a job that failed or was refused).
    pub fn drop_stage(&self, group: i64) {
        guard(&self.stages).remove(&group);
    }

    /// Days before a pending proposal expires.
    #[must_use]
    pub fn review_expire_days(&self) -> u32 {
        settings::read_section(&self.home.root, "review_expire_days")
            .ok()
            .flatten()
            .and_then(|v| v.as_integer())
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_EXPIRE_DAYS)
    }

    /// Expire `workspace`'s pending proposals older than the setting; how many.
    pub fn expire_proposals(&self, workspace: &str) -> Result<usize> {
        let days = self.review_expire_days();
        let before = (chrono::Utc::now() - chrono::Duration::days(i64::from(days)))
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        guard(&self.journal).expire_proposals(
            workspace,
            &before,
            &format!("expired: nobody decided within {days} days, so nothing was written"),
        )
    }

    /// One page of a workspace's proposals, newest first (expired ones settled first).
    pub fn proposals(
        &self,
        workspace: &str,
        status: Option<ProposalStatus>,
        offset: u32,
        limit: u32,
    ) -> Result<ProposalPage> {
        self.workspace(workspace)?;
        self.expire_proposals(workspace)?;
        guard(&self.journal).proposals(workspace, status, offset, limit.clamp(1, 500))
    }

    /// A proposal with each file's diff.
    pub fn proposal(&self, id: i64) -> Result<Proposal> {
        let p = guard(&self.journal).proposal(id)?;
        // Read again only when this very read let expiry settle something.
        if p.summary.status == ProposalStatus::Pending
            && self.expire_proposals(&p.summary.workspace)? > 0
        {
            return guard(&self.journal).proposal(id);
        }
        Ok(p)
    }

    /// Reject a proposal. `dont_learn`: every entry it adds or rewrites is marked forgotten, so
    /// no memory job proposes or writes it again (a person adding it by hand lifts the mark).
    pub fn reject_proposal(&self, id: i64, dont_learn: bool) -> Result<ProposalSummary> {
        let p = self.proposal(id)?;
        if p.summary.status != ProposalStatus::Pending {
            return Err(already(&p.summary));
        }
        let journal = guard(&self.journal);
        let mut note = None;
        if dont_learn {
            // Only what the proposal brings that was not there: a fact it merely moves or
            // rewrites in place of itself (a dream's de-duplication) stays learnable.
            let had: HashSet<String> = p
                .files
                .iter()
                .filter_map(|f| f.before.as_deref())
                .flat_map(|t| format::TopicFile::parse(t).entries())
                .map(|e| format::summary_key(&e.summary))
                .collect();
            let mut summaries: Vec<String> = p
                .files
                .iter()
                .flat_map(|f| &f.entries)
                .filter(|e| matches!(e.op, EntryOp::Add | EntryOp::Edit))
                .filter_map(|e| e.after.as_deref())
                .flat_map(|t| format::entries(t).into_iter().map(|e| e.summary))
                .filter(|s| !s.trim().is_empty() && !had.contains(&format::summary_key(s)))
                .collect();
            summaries.dedup();
            journal.add_forgotten(&p.summary.workspace, &summaries)?;
            note = Some(match summaries.len() {
                0 => "rejected; it brought no new entry to keep out".to_owned(),
                1 => "rejected, and its 1 new entry will not be learnt again".to_owned(),
                n => format!("rejected, and its {n} new entries will not be learnt again"),
            });
        }
        journal.resolve_proposal(id, ProposalStatus::Rejected, note.as_deref(), None)?;
        journal.proposal(id).map(|p| p.summary)
    }

    /// Accept a proposal, all of it or the changes `choice` names (with files a person edited):
    /// rebased onto the files as they are now at entry level — a change that collides with one
    /// made since is a `conflict` and nothing is written —, then applied through the one write
    /// path as one change group (journaled, undoable), under the workspace's write lock.
    pub fn accept_proposal(&self, id: i64, choice: &AcceptChoice) -> Result<Accepted> {
        let p = self.proposal(id)?;
        let resume = match p.summary.status {
            ProposalStatus::Pending => None,
            ProposalStatus::Accepting => guard(&self.journal).accepting(id)?,
            _ => return Err(already(&p.summary)),
        };
        let choice = resume.as_ref().map_or(choice, |(_, c)| c);
        let ws = self.workspace(&p.summary.workspace)?;
        let targets = targets(&p, choice)?;
        let origin = Origin {
            source: p.summary.source,
            group: resume.as_ref().map(|(g, _)| *g),
        };
        let batch = self.begin_batch(&ws, origin);
        let hold = self.hold_writes(&ws)?;
        let (writes, conflicts) = rebase_all(&ws, &targets)?;
        if !conflicts.is_empty() && resume.is_none() {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "proposal {id} cannot be applied as it is: {}. Nothing was written; reject it, or edit the files and accept again",
                    conflicts.join("; ")
                ),
            ));
        }
        let group = match resume {
            Some((g, _)) => g,
            None => {
                let j = guard(&self.journal);
                let g = j.begin_group(
                    &ws.id,
                    "review",
                    None,
                    &format!("accepted proposal {id}: {}", p.summary.label),
                    None,
                )?;
                j.start_accepting(id, g, choice)?;
                g
            }
        };
        let paths = self.apply_writes(&hold, &ws, p.summary.source, group, writes)?;
        drop(hold);
        drop(batch);
        let taken = targets.iter().map(|t| t.changes).sum::<usize>();
        let mut note =
            (taken < p.summary.changes as usize || !choice.edits.is_empty()).then(|| {
                format!(
                    "accepted {taken} of {} changes{}",
                    p.summary.changes,
                    if choice.edits.is_empty() {
                        ""
                    } else {
                        ", edited first"
                    }
                )
            });
        if !conflicts.is_empty() {
            note = Some(format!(
                "finished after an interruption; not applied: {}",
                conflicts.join("; ")
            ));
        }
        let j = guard(&self.journal);
        j.resolve_proposal(id, ProposalStatus::Accepted, note.as_deref(), Some(group))?;
        Ok(Accepted {
            proposal: j.proposal(id)?.summary,
            group,
            paths,
        })
    }

    fn apply_writes(
        &self,
        hold: &WriteHold,
        ws: &Workspace,
        source: ChangeSource,
        group: i64,
        writes: Vec<Write>,
    ) -> Result<Vec<String>> {
        let mut paths = Vec::new();
        for (path, new) in writes {
            let origin = Origin {
                source,
                group: Some(group),
            };
            let out = self.mutate_held(hold, ws, &path, origin, None, |_, _| {
                Ok(new.map(String::into_bytes))
            })?;
            if out.change_id.is_some() {
                paths.push(out.path);
            }
        }
        Ok(paths)
    }

    /// Finish proposals a stopped process left half accepted (at open).
    pub(super) fn recover_proposals(&self) {
        let left = match guard(&self.journal).proposals_accepting() {
            Ok(l) => l,
            Err(e) => {
                self.warn(format!("could not read proposals being accepted: {e}"));
                return;
            }
        };
        for (id, ws) in left {
            if self.workspace(&ws).is_err() {
                continue;
            }
            match self.accept_proposal(id, &AcceptChoice::default()) {
                Ok(_) => {
                    tracing::info!(proposal = id, "finished accepting an interrupted proposal");
                }
                Err(e) => self.warn(format!("could not finish accepting proposal {id}: {e}")),
            }
        }
    }
}

fn already(p: &ProposalSummary) -> Error {
    Error::new(
        ErrorCode::Conflict,
        format!(
            "proposal {} is already {}{}",
            p.id,
            p.status.as_str(),
            p.note
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        ),
    )
}
