//! What a sync reports: per workspace what was sent and received, which folders share a key,
//! conflicts and flags; and the commit's title, from the same counts.

use std::collections::BTreeMap;

use serde::Serialize;

use super::git::{Content, Tree};
use super::layout;
use super::meta::SyncConflict;
use super::state::{SyncFlag, SyncRun};
use mnemo_store::workspace::Workspace;

/// A workspace's sync, as a sync left it or as `sync status` sees it.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::WorkspaceSync`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkspaceSync {
    pub workspace: String,
    pub label: String,
    pub key: Option<String>,
    pub remote: Option<String>,
    pub shared: bool,
    pub not_synced: Option<String>,
    pub last_synced: Option<String>,
    pub pending: u32,
    pub incoming: u32,
    pub changed: Vec<String>,
    pub group: Option<i64>,
    pub conflicts: Vec<SyncConflict>,
    pub flagged: Vec<SyncFlag>,
    pub shares_with: Vec<String>,
    pub sent: FileCounts,
    pub received: FileCounts,
}

/// What a sync did to one workspace, by workspace id.
pub(super) type Groups = BTreeMap<String, Done>;

/// What a sync did to one workspace.
#[derive(Debug, Default)]
pub(super) struct Done {
    /// The change group holding what it wrote here.
    pub(super) group: Option<i64>,
    /// The files it wrote here.
    pub(super) changed: Vec<String>,
    /// What it wrote here, counted.
    pub(super) received: FileCounts,
    /// What it changed on the remote (on the first workspace of each key).
    pub(super) sent: FileCounts,
}

/// Memory files added, removed and changed.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::FileCounts`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct FileCounts {
    pub added: u32,
    pub removed: u32,
    pub changed: u32,
}

impl FileCounts {
    /// Nothing at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.added == 0 && self.removed == 0 && self.changed == 0
    }
}

/// The home's sync: a run's report, or the status.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::RemoteSync`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoteSync {
    pub remote: Option<String>,
    pub auto: bool,
    pub commit: Option<String>,
    pub ahead: u32,
    pub behind: u32,
    pub last_run: Option<SyncRun>,
    pub workspaces: Vec<WorkspaceSync>,
    pub elsewhere: Vec<RemoteKey>,
}

/// Memory the remote carries that this home does not take (yet).
///
/// Its fields are documented where clients read them: `mnemo_api::wire::RemoteKey`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoteKey {
    pub key: String,
    pub files: u32,
    pub why: String,
}

/// Per key: the memory files `to` adds, removes and changes against `from`.
pub(super) fn sent_counts(from: &Tree, to: &Tree) -> BTreeMap<String, FileCounts> {
    let mut out: BTreeMap<String, FileCounts> = BTreeMap::new();
    let memory = |p: &str| match layout::split(p) {
        Some((k, layout::Part::Memory(_))) => Some(k),
        _ => None,
    };
    for (p, i) in to {
        let Some(k) = memory(p) else { continue };
        match from.get(p) {
            None => out.entry(k).or_default().added += 1,
            Some(f) if f.id != i.id => out.entry(k).or_default().changed += 1,
            Some(_) => {}
        }
    }
    for p in from.keys() {
        if let Some(k) = memory(p)
            && !to.contains_key(p)
        {
            out.entry(k).or_default().removed += 1;
        }
    }
    out
}

pub(super) fn groups_summary(groups: &Groups) -> String {
    let n: usize = groups.values().map(|d| d.changed.len()).sum();
    if n == 0 {
        String::new()
    } else {
        format!("{n} file(s) merged here from the remote")
    }
}

/// What a commit carries, per workspace: "personal: +2 −1 ~3 from ana".
pub(super) fn commit_title(
    from: &Tree,
    changes: &[(String, Content)],
    mapped: &BTreeMap<String, Workspace>,
    by: &str,
) -> String {
    let mut per: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    for (p, c) in changes {
        let Some((key, layout::Part::Memory(_))) = layout::split(p) else {
            continue;
        };
        let name = mapped.get(&key).map_or(key, |w| w.id.clone());
        let n = per.entry(name).or_default();
        match c {
            Content::Removed => n[1] += 1,
            _ if from.contains_key(p) => n[2] += 1,
            _ => n[0] += 1,
        }
    }
    let by = mnemo_store::fsutil::printable(by);
    if per.is_empty() {
        return format!("Mnemo sync from {by} (bookkeeping only)");
    }
    let parts: Vec<String> = per
        .iter()
        .map(|(ws, [a, r, m])| {
            let mut s = format!("{}:", mnemo_store::fsutil::printable(ws));
            for (n, sign) in [(a, '+'), (r, '−'), (m, '~')] {
                if *n > 0 {
                    s.push_str(&format!(" {sign}{n}"));
                }
            }
            s
        })
        .collect();
    format!("{} from {by}", parts.join("; "))
}

pub(super) fn commit_message(title: &str, summary: &str) -> String {
    if summary.is_empty() {
        format!("{title}\n")
    } else {
        format!("{title}\n\n{summary}\n")
    }
}
