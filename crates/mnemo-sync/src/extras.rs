//! Files a sync may carry that the store does not own: chat sessions (`[sync] sessions`, off
//! unless asked — they hold whole conversations). Their owner (the engine's session store)
//! lists and replaces them; the sync merges them line by line (a session is appended to) and
//! never deletes one.

use mnemo_core::Result;

use mnemo_store::workspace::Workspace;

/// A session file's name: `<id>.jsonl`, the id letters, digits and `-`.
#[must_use]
pub fn valid_name(name: &str) -> bool {
    name.strip_suffix(".jsonl").is_some_and(|id| {
        !id.is_empty()
            && id.len() <= 64
            && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

/// The owner of extra files, as a sync needs it.
pub trait Extras: Sync {
    /// Every file of the workspace: name and bytes.
    fn list(&self, ws: &Workspace) -> Result<Vec<(String, Vec<u8>)>>;
    /// Replace (or create) `name` with `new` if it still holds `expected` (`None`: absent);
    /// `Ok(false)` when it changed meanwhile (the sync merges again).
    fn replace(
        &self,
        ws: &Workspace,
        name: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool>;
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_session_files() {
        assert!(super::valid_name("20260101-abc.jsonl"));
        assert!(!super::valid_name("../x.jsonl"));
        assert!(!super::valid_name("x.md"));
        assert!(!super::valid_name(".jsonl"));
    }
}
