//! Forget on request: `forget_preview` shows exactly which entries would go (the
//! main model picks when one is configured, else the heuristic); `forget` removes exactly the
//! previewed entries as one memory task and one change group — or nothing, with `conflict`, when
//! a file changed since the preview.

use mnemo_core::{ChangeSource, Result, TaskKind, TaskReason, TaskStatus};
use mnemo_engine::forget;
use mnemo_llm::CancellationToken;
use mnemo_store::journal::Origin;
use mnemo_store::tasks::TaskResult;

use crate::Api;
use crate::wire::{self, ForgetPick, ForgetPreview};

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// Which entries `query` would forget (nothing is written).
    pub fn forget_preview(&self, workspace: String, query: String) -> Result<ForgetPreview> {
        if query.trim().is_empty() {
            return Err(mnemo_core::Error::usage(
                "say what to forget: the query is empty",
            ));
        }
        let ws = self.vault.workspace(&workspace)?;
        if !self.watching() {
            self.vault.sync(&ws)?;
        }
        // Files are read here, on the caller's thread; only the model's choice runs on the
        // model runtime.
        let cands = forget::candidates(&self.vault, &ws, &query)?;
        let client = self.model.ready_blocking(&self.vault.home().root)?;
        let client = client.settings().is_configured().then_some(client);
        self.model
            .runtime
            .block_on(async move {
                forget::preview(
                    client.as_deref(),
                    &ws.id,
                    &query,
                    cands,
                    &CancellationToken::new(),
                )
                .await
            })
            .map(Into::into)
    }

    /// Forget exactly these previewed entries (ids and file hashes from `forget_preview`): one
    /// task, one change group (undo it to bring them back). `conflict` — nothing written — when
    /// a file changed since the preview.
    pub fn forget(&self, workspace: String, entries: Vec<ForgetPick>) -> Result<wire::TaskInfo> {
        let entries: Vec<forget::ForgetPick> = wire::all(entries);
        let ws = self.vault.workspace(&workspace)?;
        let (mut task, _token) = self.tasks.create(TaskKind::Forget, &ws.id, None);
        task.set_status(TaskStatus::Running);
        self.tasks.save(&task);
        let group = self
            .vault
            .begin_group(
                &ws.id,
                "forget",
                Some(&task.id),
                &format!("forget {} entries", entries.len()),
            )
            .ok();
        let origin = Origin {
            source: self.acting_for.unwrap_or(ChangeSource::Forget),
            group,
        };
        let done = forget::apply(&self.vault, &ws, origin, &entries);
        let group = group.filter(|g| !self.vault.discard_group_if_empty(*g).unwrap_or(false));
        match done {
            Ok(f) => {
                let mut files = f.rewritten.clone();
                files.extend(f.deleted.iter().cloned());
                task.result = Some(TaskResult {
                    summary: match f.removed.len() {
                        0 => "nothing to forget".to_owned(),
                        1 => "forgot 1 entry".to_owned(),
                        n => format!("forgot {n} entries"),
                    },
                    files,
                    group,
                    touched_types: f.types,
                    dream: None,
                    undone_by: None,
                    proposal: None,
                });
                self.tasks.finish(&mut task, TaskStatus::Completed, None);
                Ok(task.into())
            }
            Err(e) => {
                task.error = Some(e.message.clone());
                self.tasks.finish(
                    &mut task,
                    TaskStatus::Failed,
                    Some(TaskReason::from_error(e.code)),
                );
                Err(e)
            }
        }
    }
}
