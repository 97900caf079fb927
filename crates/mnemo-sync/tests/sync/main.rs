//! Integration tests of sync with the real `git`: bare remotes in temp folders, two and three
//! homes, hostile trees, a model-based random test against an oracle.

// Test support code: panicking on unexpected failure is the point; children are waited on by callers.
#![allow(
    clippy::unwrap_used,
    clippy::new_without_default,
    clippy::zombie_processes
)]

mod gitsync;
mod gitsync_bad;
mod gitsync_edges;
mod gitsync_identity;
mod gitsync_losses;
mod gitsync_model;
mod gitsync_props;
mod gitsync_quiet;
mod undo;

pub fn topic(name: &str, description: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\ntype: {ty}\n---\n{body}\n")
}
