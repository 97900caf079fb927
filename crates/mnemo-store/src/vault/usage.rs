//! Usage per memory through the vault: what recall records, what the app reads.

use mnemo_core::Result;

use super::{Vault, guard};

impl Vault {
    /// Record one recall's injected memories (`path`, tokens, carried from an earlier turn).
    pub fn record_recall(
        &self,
        workspace: &str,
        session: Option<&str>,
        recall: &str,
        items: &[(String, u32, bool)],
    ) -> Result<()> {
        let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        guard(&self.journal).record_recall(workspace, session, recall, &at, items)
    }

    /// Usage of the memories of `workspace` ever recalled (`path`: only that one).
    pub fn usage(
        &self,
        workspace: &str,
        path: Option<&str>,
    ) -> Result<Vec<crate::journal::MemoryUsage>> {
        guard(&self.journal).usage(workspace, path)
    }
}
