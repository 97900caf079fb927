//! Usage in a dream: the agent's task shows which memories recall uses and which it
//! never does; the mechanical dream's report says it in a sentence.

use mnemo_store::journal::MemoryUsage;
use mnemo_store::{Vault, Workspace};

/// The workspace's memories by use: recalled ones most first, the never recalled (archived ones
/// left out), and how many memories there are. One read of usage and one of the index.
struct ByUse {
    most: Vec<MemoryUsage>,
    never: Vec<String>,
    total: usize,
}

fn by_use(vault: &Vault, ws: &Workspace) -> ByUse {
    let docs = vault.list_indexed(Some(&ws.id), None).unwrap_or_default();
    let mut most: Vec<MemoryUsage> = vault
        .usage(&ws.id, None)
        .unwrap_or_default()
        .into_iter()
        .filter(|u| u.recalls > 0)
        .collect();
    most.sort_by(|a, b| b.recalls.cmp(&a.recalls).then(a.path.cmp(&b.path)));
    let never = docs
        .iter()
        .filter(|d| !d.archived && !most.iter().any(|u| u.path == d.path))
        .map(|d| d.path.clone())
        .collect();
    ByUse {
        most,
        never,
        total: docs.len(),
    }
}

/// Usage of the workspace's memories in a few lines: the most recalled and the never recalled,
/// at most `n` of each — for the dream agent's task.
#[must_use]
pub fn usage_text(vault: &Vault, ws: &Workspace, n: usize) -> String {
    let u = by_use(vault, ws);
    let mut lines: Vec<String> = u
        .most
        .iter()
        .take(n)
        .map(|m| {
            format!(
                "{}: recalled {} times, ~{} tokens in all",
                m.path, m.recalls, m.tokens
            )
        })
        .collect();
    if !u.never.is_empty() {
        lines.push(format!(
            "never recalled ({} of {}): {}{}",
            u.never.len(),
            u.total,
            u.never[..u.never.len().min(n)].join(", "),
            if u.never.len() > n { ", …" } else { "" }
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
    let u = by_use(vault, ws);
    if u.total == 0 {
        return None;
    }
    Some(match u.most.first() {
        Some(t) => format!(
            "usage: {} of {} memories never recalled; most recalled: {} ({} times, ~{} tokens)",
            u.never.len(),
            u.total,
            t.path,
            t.recalls,
            t.tokens
        ),
        None => format!(
            "usage: none of the {} memories has been recalled yet",
            u.total
        ),
    })
}
