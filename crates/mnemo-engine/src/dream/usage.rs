//! Usage in a dream (issue 23): the agent's task shows which memories recall uses and which it
//! never does; the mechanical dream's report says it in a sentence.

use std::collections::BTreeSet;

use mnemo_store::{Vault, Workspace};

/// Usage of the workspace's memories in a few lines (issue 23): the most recalled and the
/// never recalled, at most `n` of each — for the dream agent's task and the dream's report.
#[must_use]
pub fn usage_text(vault: &Vault, ws: &Workspace, n: usize) -> String {
    let used = vault.usage(&ws.id, None).unwrap_or_default();
    let docs = vault.list_indexed(Some(&ws.id), None).unwrap_or_default();
    let recalled: std::collections::HashMap<&str, &mnemo_store::journal::MemoryUsage> = used
        .iter()
        .filter(|u| u.recalls > 0)
        .map(|u| (u.path.as_str(), u))
        .collect();
    let mut most: Vec<&&mnemo_store::journal::MemoryUsage> = recalled.values().collect();
    most.sort_by(|a, b| b.recalls.cmp(&a.recalls).then(a.path.cmp(&b.path)));
    let never: Vec<&str> = docs
        .iter()
        .filter(|d| !d.archived && !recalled.contains_key(d.path.as_str()))
        .map(|d| d.path.as_str())
        .collect();
    let mut lines: Vec<String> = most
        .iter()
        .take(n)
        .map(|u| {
            format!(
                "{}: recalled {} times, ~{} tokens in all",
                u.path, u.recalls, u.tokens
            )
        })
        .collect();
    if !never.is_empty() {
        let shown: Vec<&str> = never.iter().take(n).copied().collect();
        lines.push(format!(
            "never recalled ({} of {}): {}{}",
            never.len(),
            docs.len(),
            shown.join(", "),
            if never.len() > n { ", …" } else { "" }
        ));
    }
    if lines.is_empty() {
        "(no memories yet)".to_owned()
    } else {
        lines.join("\n")
    }
}

/// One sentence on usage for the mechanical dream's report: memories never recalled, the most
/// recalled one.
pub(super) fn usage_note(vault: &Vault, ws: &Workspace) -> Option<String> {
    let used = vault.usage(&ws.id, None).ok()?;
    let docs = vault.list_indexed(Some(&ws.id), None).ok()?;
    if docs.is_empty() {
        return None;
    }
    let recalled: BTreeSet<&str> = used
        .iter()
        .filter(|u| u.recalls > 0)
        .map(|u| u.path.as_str())
        .collect();
    let never = docs
        .iter()
        .filter(|d| !d.archived && !recalled.contains(d.path.as_str()))
        .count();
    let top = used
        .iter()
        .filter(|u| u.recalls > 0)
        .max_by(|a, b| a.recalls.cmp(&b.recalls).then(b.path.cmp(&a.path)));
    Some(match top {
        Some(t) => format!(
            "usage: {never} of {} memories never recalled; most recalled: {} ({} times, ~{} tokens)",
            docs.len(),
            t.path,
            t.recalls,
            t.tokens
        ),
        None => format!(
            "usage: none of the {} memories has been recalled yet",
            docs.len()
        ),
    })
}
