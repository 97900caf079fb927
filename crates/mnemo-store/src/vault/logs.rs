//! Daily logs (SPEC §1.5): `logs/YYYY/MM/YYYY-MM-DD.md`, append-only notes of the day
//! (compaction summaries among them). Appends go through `mutate` like every write: atomic,
//! journaled, indexed, announced.

use chrono::NaiveDate;
use mnemo_core::Result;

use super::{Vault, WriteOutcome, guard};
use crate::index::DocSummary;
use crate::journal::Origin;
use crate::workspace::Workspace;

/// The path of a day's log, relative to the memory root.
#[must_use]
pub fn log_path(day: NaiveDate) -> String {
    format!("logs/{}", day.format("%Y/%m/%Y-%m-%d.md"))
}

impl Vault {
    /// Append `section` to the day's log (created with a `# YYYY-MM-DD` heading when new),
    /// separated from what is there by a blank line.
    pub fn append_log(
        &self,
        ws: &Workspace,
        day: NaiveDate,
        section: &str,
        origin: impl Into<Origin>,
    ) -> Result<WriteOutcome> {
        let path = log_path(day);
        self.mutate(ws, &path, origin, None, |old, _| {
            let mut text = match old {
                Some(b) => String::from_utf8_lossy(b).into_owned(),
                None => format!("# {}\n", day.format("%Y-%m-%d")),
            };
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push('\n');
            text.push_str(section.trim_end());
            text.push('\n');
            Ok(Some(text.into_bytes()))
        })
    }

    /// The daily logs of a workspace, newest day first (index brought up to date first).
    pub fn logs(&self, workspace: &str) -> Result<Vec<DocSummary>> {
        let ws = self.workspace(workspace)?;
        self.sync(&ws)?;
        let mut logs = guard(&self.index).list_logs(&ws.id)?;
        logs.sort_by(|a, b| b.path.cmp(&a.path));
        Ok(logs)
    }
}
