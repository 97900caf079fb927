//! Review mode and the inbox. In a workspace with review mode on, the writes of
//! extraction, dream, remember and MCP are staged (`Vault::stage_group`) and saved as one
//! proposal per job instead of landing; people's own edits always land. The inbox lists,
//! shows, accepts (all, some changes, or edited first) and rejects proposals.

use mnemo_core::{ChangeSource, Error, ErrorCode, Result, WorkspaceKind};
use mnemo_store::journal::{MemoryUsage, ProposalOrigin, ProposalStatus};
use mnemo_store::{Vault, settings};
use serde::{Deserialize, Serialize};

use crate::Api;
use crate::wire::{self, AcceptChoice, Accepted, Proposal, ProposalPage, ProposalSummary};

/// The settings table holding each workspace's review switch.
pub use mnemo_store::settings::REVIEW;

/// A workspace's review mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ReviewMode {
    /// Automatic writes become proposals.
    pub on: bool,
    /// Someone chose (on or off); `false`: the default is in effect.
    pub decided: bool,
    /// The app should offer it (another tool's folder, or a shared team layer, not yet decided).
    pub offer: bool,
}

/// A job's change group: its id, and whether its writes are staged as a proposal.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JobGroup {
    pub id: Option<i64>,
    pub staged: bool,
}

/// What a job's group became when it ended.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct JobEnd {
    /// The group kept (its changes landed).
    pub group: Option<i64>,
    /// The proposal its staged writes became.
    pub proposal: Option<i64>,
}

/// Whether review mode is on for `workspace`.
pub(crate) fn review_on(vault: &Vault, workspace: &str) -> bool {
    vault.review_on(workspace)
}

/// Ids of staged groups: negative, so they never meet a journal group (a staged job journals
/// nothing: its writes become a proposal).
static NEXT_STAGE: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(-1);

/// Open a job's change group — or, when review mode is on for a job's kind (a person's writes
/// never are), a staged group whose writes become one proposal.
pub(crate) fn open_group(
    vault: &Vault,
    workspace: &str,
    kind: &str,
    task: Option<&str>,
    label: &str,
    source: ChangeSource,
) -> JobGroup {
    if source.is_automatic() && review_on(vault, workspace) {
        let id = NEXT_STAGE.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        vault.stage_group(id, workspace);
        return JobGroup {
            id: Some(id),
            staged: true,
        };
    }
    let id = vault
        .begin_group(workspace, kind, task, label)
        .map_err(|e| tracing::warn!("could not open a change group: {e}"))
        .ok();
    JobGroup { id, staged: false }
}

/// End a job's group: staged writes become a proposal (`keep: false` drops them — the job
/// failed or was refused); an empty group is discarded.
pub(crate) fn close_group(
    vault: &Vault,
    g: JobGroup,
    source: ChangeSource,
    kind: &str,
    label: &str,
    origin: &ProposalOrigin,
    keep: bool,
) -> Result<JobEnd> {
    let Some(id) = g.id else {
        return Ok(JobEnd::default());
    };
    if g.staged {
        let proposal = if keep {
            let p = vault.finish_stage(id, source, kind, label, origin);
            if p.is_err() {
                vault.drop_stage(id);
            }
            p?
        } else {
            vault.drop_stage(id);
            None
        };
        return Ok(JobEnd {
            group: None,
            proposal,
        });
    }
    let group = match vault.discard_group_if_empty(id) {
        Ok(removed) => (!removed).then_some(id),
        Err(e) => {
            tracing::warn!("could not tidy change group {id}: {e}");
            Some(id)
        }
    };
    Ok(JobEnd {
        group,
        proposal: None,
    })
}

/// The task summary of a job whose writes became a proposal.
pub(crate) fn proposed_summary(id: i64, files: usize) -> String {
    format!(
        "proposed changes to {files} {} for review (proposal {id}): nothing was written until you accept",
        if files == 1 { "file" } else { "files" }
    )
}

const PAGE: u32 = 50;

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// A workspace's review mode.
    pub fn review_mode(&self, workspace: String) -> Result<ReviewMode> {
        let ws = self.vault.workspace(&workspace)?;
        let set = settings::switch(&self.vault.home().root, REVIEW, &ws.id);
        let foreign =
            matches!(ws.kind, WorkspaceKind::Claude | WorkspaceKind::Qwen) || ws.shared.is_some();
        Ok(ReviewMode {
            on: set == Some(true),
            decided: set.is_some(),
            offer: set.is_none() && foreign,
        })
    }

    /// Switch review mode for a workspace.
    pub fn set_review_mode(&self, workspace: String, on: bool) -> Result<ReviewMode> {
        let ws = self.vault.workspace(&workspace)?;
        settings::set_switch(&self.vault.home().root, REVIEW, &ws.id, on)?;
        self.review_mode(ws.id)
    }

    /// One page of a workspace's proposals, newest first (`status`: only those; default all).
    pub fn inbox(
        &self,
        workspace: String,
        status: Option<ProposalStatus>,
        offset: Option<u32>,
        limit: Option<u32>,
    ) -> Result<ProposalPage> {
        let ws = self.vault.workspace(&workspace)?;
        self.vault
            .proposals(
                &ws.id,
                status,
                offset.unwrap_or(0),
                limit.unwrap_or(PAGE).clamp(1, 500),
            )
            .map(Into::into)
    }

    /// A proposal with each file's diff, entry by entry.
    pub fn proposal(&self, id: i64) -> Result<Proposal> {
        self.vault.proposal(id).map(Into::into)
    }

    /// Accept a proposal: all of it, the changes `entries` names, and/or files as a person
    /// edited them. One change group; `conflict` (nothing written) when a change collides with
    /// an edit made since.
    pub fn inbox_accept(&self, id: i64, choice: Option<AcceptChoice>) -> Result<Accepted> {
        let choice = choice.unwrap_or_default();
        if choice.entries.as_ref().is_some_and(Vec::is_empty) && choice.edits.is_empty() {
            return Err(Error::usage(format!(
                "choose at least one change of proposal {id} to accept, or reject it"
            )));
        }
        self.vault
            .accept_proposal(id, &choice.into())
            .map(Into::into)
    }

    /// Reject a proposal; `dont_learn` also marks its entries forgotten, so no memory job
    /// proposes them again.
    pub fn inbox_reject(&self, id: i64, dont_learn: Option<bool>) -> Result<ProposalSummary> {
        self.vault
            .reject_proposal(id, dont_learn.unwrap_or(false))
            .map(Into::into)
    }

    /// Usage per memory: every memory of the workspace (never recalled ones with zeros), or one.
    pub fn memory_usage(
        &self,
        workspace: String,
        path: Option<String>,
    ) -> Result<Vec<wire::MemoryUsage>> {
        let ws = self.vault.workspace(&workspace)?;
        if !self.watching() {
            self.vault.sync(&ws)?;
        }
        let used = self.vault.usage(&ws.id, path.as_deref())?;
        if path.is_some() {
            return Ok(wire::all(if used.is_empty() {
                vec![MemoryUsage {
                    path: path.unwrap_or_default(),
                    ..MemoryUsage::default()
                }]
            } else {
                used
            }));
        }
        let mut by_path: std::collections::BTreeMap<String, MemoryUsage> =
            used.into_iter().map(|u| (u.path.clone(), u)).collect();
        let docs = self.vault.list_indexed(Some(&ws.id), None)?;
        let mut out: Vec<MemoryUsage> = docs
            .iter()
            .filter(|d| d.kind == mnemo_store::doc::DocKind::Topic)
            .map(|d| {
                by_path.remove(&d.path).unwrap_or_else(|| MemoryUsage {
                    path: d.path.clone(),
                    ..MemoryUsage::default()
                })
            })
            .collect();
        // Memories recalled once and deleted since keep their figures at the end.
        out.extend(by_path.into_values());
        Ok(wire::all(out))
    }
}

/// `invalid_arguments` for a status name no proposal has.
pub fn parse_status(s: &str) -> Result<ProposalStatus> {
    match s {
        "pending" => Ok(ProposalStatus::Pending),
        "accepting" => Ok(ProposalStatus::Accepting),
        "accepted" => Ok(ProposalStatus::Accepted),
        "rejected" => Ok(ProposalStatus::Rejected),
        "expired" => Ok(ProposalStatus::Expired),
        other => Err(Error::new(
            ErrorCode::InvalidArguments,
            format!("no proposal status `{other}`: pending, accepted, rejected or expired"),
        )),
    }
}
