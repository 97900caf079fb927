//! Learning from past conversations: ChatGPT / Claude.ai exports and Claude Code /
//! Qwen Code transcripts, each conversation run through extraction as one `import` task with
//! progress ("Conversation 312 / 1,840"). Resumable: the source's cursor
//! (`mnemo_store::import_cursor`) records each finished conversation, the one change group
//! every run writes into, the budget and the tokens spent — saved after each conversation, so
//! a run killed anywhere goes on after the last finished one. Bounded: the estimate is shown
//! before it starts and the run stops before a conversation would pass the budget.
//! Cancellable between and during conversations.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mnemo_core::{ChangeSource, Error, ErrorCode, Result, TaskKind, TaskReason, TaskStatus};
use mnemo_engine::AgentEvent;
use mnemo_engine::chat::compact::estimate_tokens;
use mnemo_engine::extract::{ExtractRequest, ExtractStatus, run_extract};
use mnemo_llm::{CancellationToken, Message};
use mnemo_store::Vault;
use mnemo_store::import::stream::Next;
use mnemo_store::import::{
    Conversation, ConversationEstimate, ImportFormat, ImportOptions, ImportPreview, SkipKind,
    conversations,
};
use mnemo_store::import_cursor as cursor;
use mnemo_store::journal::Origin;
use mnemo_store::tasks::{TaskInfo, TaskResult};
use mnemo_store::workspace::{PERSONAL, Workspace};

use crate::Api;
use crate::embed::thousands;
use crate::import::file_name;
use crate::tasks::Tasks;

/// Tokens each model call spends besides the conversation: the system prompt, the memory
/// manifest, the tool definitions (estimated).
pub const CALL_OVERHEAD: u64 = 1_500;
/// Tokens each call's answer spends, on average (the cap is 768).
pub const CALL_OUTPUT: u64 = 300;
/// Model calls per piece of a conversation: a write, then the closing answer.
pub const CALLS_PER_PIECE: u64 = 2;

/// How long a piece of a conversation may be: a third of the window (the rest is the prompt,
/// the manifest and the answer), at least 512 tokens.
#[must_use]
pub fn piece_tokens(window: u32) -> usize {
    (window as usize / 3).max(512)
}

/// A conversation cut into pieces of at most `max` tokens (a message longer than that is cut
/// itself), each a transcript for one extraction run.
#[must_use]
pub fn pieces(c: &Conversation, max: usize) -> Vec<Vec<Message>> {
    let mut out: Vec<Vec<Message>> = Vec::new();
    let mut cur: Vec<Message> = Vec::new();
    let mut size = 0;
    for (user, text) in &c.turns {
        // Every byte bound for a model passes the secret gate (chat redacts at intake; an
        // imported conversation is redacted here, whole, before it is cut in parts).
        let text = mnemo_store::secrets::redact(text).0;
        let mut parts: Vec<String> = Vec::new();
        let mut buf = String::new();
        for ch in text.chars() {
            buf.push(ch);
            if buf.len() >= max * 3 {
                parts.push(std::mem::take(&mut buf));
            }
        }
        if !buf.is_empty() {
            parts.push(buf);
        }
        for part in parts {
            let t = estimate_tokens(&part);
            if size + t > max && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
                size = 0;
            }
            size += t;
            cur.push(if *user {
                Message::user(part)
            } else {
                Message::new(mnemo_llm::Role::Assistant, part)
            });
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Estimated tokens of one extraction run over a piece of `tokens` tokens.
#[must_use]
pub fn piece_cost(tokens: usize) -> u64 {
    CALLS_PER_PIECE * (CALL_OVERHEAD + tokens as u64 + CALL_OUTPUT)
}

fn piece_size(p: &[Message]) -> usize {
    p.iter()
        .map(|m| estimate_tokens(m.content.as_deref().unwrap_or_default()))
        .sum()
}

/// An import whose change group a person undid starts over: its conversations are learnt
/// from again (the cursor on disk is rewritten when the next run saves it).
fn reset_if_undone(vault: &Vault, cur: &mut cursor::ImportCursor) -> Result<()> {
    if let Some(g) = cur.group
        && vault.group(g).is_ok()
        && vault.group_undone_by(g)?.is_some()
    {
        cur.done.clear();
        cur.spent_tokens = 0;
        cur.group = None;
    }
    Ok(())
}

impl Api {
    fn import_workspace(&self, workspace: Option<&str>) -> Result<Workspace> {
        self.vault.workspace(workspace.unwrap_or(PERSONAL))
    }

    /// The estimate of importing conversations: read through once (streamed), nothing written.
    pub(crate) fn conversations_preview(
        &self,
        path: &Path,
        format: ImportFormat,
        workspace: Option<&str>,
        options: &ImportOptions,
    ) -> Result<ImportPreview> {
        let ws = self.import_workspace(workspace)?;
        let mut cur = cursor::load(&ws, path)?;
        reset_if_undone(&self.vault, &mut cur)?;
        let done: HashSet<&str> = cur.done.iter().map(String::as_str).collect();
        let client = self.model.client();
        // The window the run will use: the server's own where it says (asked once per process).
        let window = if client.settings().is_configured() {
            let c = Arc::clone(&client);
            self.model
                .runtime
                .block_on(async move { c.context_window(&CancellationToken::new()).await })
                .unwrap_or(client.settings().context_window)
        } else {
            client.settings().context_window
        };
        let max = piece_tokens(window);
        let mut p = ImportPreview {
            format: Some(format),
            format_label: format.label().to_owned(),
            workspace: ws.id,
            ..ImportPreview::default()
        };
        let mut est = ConversationEstimate {
            model_ready: client.settings().is_configured(),
            spent_tokens: cur.spent_tokens,
            ..ConversationEstimate::default()
        };
        conversations::for_each(path, format, |c| {
            p.items += 1;
            est.conversations += 1;
            if done.contains(c.id.as_str()) {
                est.done_before += 1;
            } else if c.turns.is_empty() {
                p.skip(
                    SkipKind::Other,
                    format!("conversation \"{}\"", c.name()),
                    "it has no messages with text",
                );
            } else {
                est.messages += u32::try_from(c.turns.len()).unwrap_or(u32::MAX);
                for piece in pieces(&c, max) {
                    est.model_calls += u32::try_from(CALLS_PER_PIECE).unwrap_or(2);
                    est.tokens += piece_cost(piece_size(&piece));
                }
            }
            Ok(Next::More)
        })?;
        est.budget_tokens = options
            .budget_tokens
            .or((cur.budget_tokens > 0).then_some(cur.budget_tokens))
            .unwrap_or_else(|| (est.spent_tokens + est.tokens).saturating_mul(5) / 4);
        p.conversations = Some(est);
        p.source = path.display().to_string();
        Ok(p)
    }

    /// Start learning from a source's conversations (see the module).
    pub(crate) fn start_conversations(
        &self,
        path: &Path,
        format: ImportFormat,
        workspace: Option<&str>,
        options: &ImportOptions,
    ) -> Result<TaskInfo> {
        let client = self.model.client();
        if !client.settings().is_configured() {
            return Err(Error::new(
                ErrorCode::ModelNotConfigured,
                "learning from past conversations needs a model: set one in Settings → Model (or MNEMO_LLM_BASE_URL and MNEMO_LLM_MODEL); nothing was queued",
            ));
        }
        // Read through first: a damaged source fails here, before anything is queued.
        let preview = self.conversations_preview(path, format, workspace, options)?;
        let est = preview.conversations.unwrap_or_default();
        let ws = self.import_workspace(workspace)?;
        let rt = self.model.runtime.get()?;
        let (mut task, token) = self.tasks.create(TaskKind::Import, &ws.id, None);
        task.set_progress(
            format!(
                "Conversation 0 / {}",
                thousands(u64::from(est.conversations))
            ),
            0,
            u64::from(est.conversations),
        );
        self.tasks.save(&task);
        let started = task.clone();
        let job = Job {
            vault: Arc::clone(&self.vault),
            tasks: Arc::clone(&self.tasks),
            client,
            ws,
            path: path.to_path_buf(),
            format,
            total: est.conversations,
            budget: est.budget_tokens,
        };
        rt.spawn(async move { job.run(task, token).await });
        Ok(started)
    }
}

struct Job {
    vault: Arc<Vault>,
    tasks: Arc<Tasks>,
    client: Arc<mnemo_llm::Client>,
    ws: Workspace,
    path: PathBuf,
    format: ImportFormat,
    total: u32,
    budget: u64,
}

/// What a run did.
struct Outcome {
    end: End,
    learnt: u32,
    files: Vec<String>,
    group: Option<i64>,
    /// The proposal it became (review mode).
    proposal: Option<i64>,
    /// Conversations the model could not finish (name, why): not marked done, so the next
    /// run tries them again.
    failed: Vec<(String, String)>,
}

/// Conversations failing one after another before the run stops (the model is down, or cannot
/// do the job).
const FAILURES_IN_A_ROW: usize = 3;

/// "1 conversation", "3 conversations".
fn conversations(n: impl Into<u64>) -> String {
    let n = n.into();
    if n == 1 {
        "1 conversation".to_owned()
    } else {
        format!("{} conversations", thousands(n))
    }
}

/// How a run ended.
enum End {
    Finished,
    Budget(u64),
    Cancelled,
    Failed(String),
}

impl Job {
    async fn run(self, mut task: TaskInfo, token: CancellationToken) {
        task.set_status(TaskStatus::Running);
        self.tasks.save(&task);
        let Outcome {
            end,
            learnt,
            files,
            group,
            proposal,
            failed,
        } = match self.learn(&mut task, &token).await {
            Ok(r) => r,
            Err(e) => Outcome {
                end: End::Failed(e.message),
                learnt: 0,
                files: Vec::new(),
                group: None,
                proposal: None,
                failed: Vec::new(),
            },
        };
        let total = thousands(u64::from(self.total));
        // What is on disk, or waiting in the Inbox: never "wrote" for a proposal.
        let wrote = match proposal {
            Some(id) => format!(
                "proposed changes to {} memory files for review (proposal {id}, in the Inbox)",
                files.len()
            ),
            None if files.is_empty() => "nothing written".to_owned(),
            None => format!("wrote {} memory files", files.len()),
        };
        let files = if proposal.is_some() {
            Vec::new()
        } else {
            files
        };
        let (status, reason, summary) = match &end {
            End::Finished if failed.is_empty() => (
                TaskStatus::Completed,
                None,
                format!("learnt from {learnt} of {total} conversations: {wrote}"),
            ),
            End::Finished => {
                let (name, why) = &failed[failed.len() - 1];
                (
                    TaskStatus::Failed,
                    Some(TaskReason::Error),
                    format!(
                        "learnt from {learnt} of {total} conversations; {} could not be learnt from (\"{name}\": {why}): {wrote}; run the import again to try them again",
                        failed.len()
                    ),
                )
            }
            // The budget was spent on conversations the model failed on: that is the cause,
            // said first (it used to be only a log line).
            End::Budget(spent) if !failed.is_empty() => {
                let (name, why) = &failed[failed.len() - 1];
                (
                    TaskStatus::Failed,
                    Some(TaskReason::Budget),
                    format!(
                        "stopped at the budget after {} (about {} tokens spent): the model failed on {} of them (last \"{name}\": {why}), and those tried used the budget too: {wrote}; check the model, then run the import again (with a bigger budget) to go on",
                        conversations(learnt),
                        thousands(*spent),
                        failed.len()
                    ),
                )
            }
            End::Budget(spent) => (
                TaskStatus::Failed,
                Some(TaskReason::Budget),
                format!(
                    "stopped at the budget after {} (about {} tokens spent): {wrote}; run the import again with a bigger budget to go on",
                    conversations(learnt),
                    thousands(*spent)
                ),
            ),
            End::Cancelled => (
                TaskStatus::Failed,
                Some(TaskReason::Cancelled),
                format!(
                    "cancelled after {learnt} conversations: {wrote}; run the import again to go on"
                ),
            ),
            End::Failed(why) => (
                TaskStatus::Failed,
                Some(TaskReason::Error),
                format!(
                    "stopped after {learnt} conversations ({why}): {wrote}; run the import again to go on"
                ),
            ),
        };
        if status == TaskStatus::Failed {
            task.error = Some(summary.clone());
        }
        task.result = Some(TaskResult {
            summary,
            files,
            group,
            touched_types: Vec::new(),
            dream: None,
            undone_by: None,
            proposal,
        });
        self.tasks.finish(&mut task, status, reason);
    }

    /// The one change group of this import: the cursor's (when it is still there and not
    /// undone), else a new one.
    fn group(&self, cur: &mut cursor::ImportCursor, task: &TaskInfo) -> Result<i64> {
        if let Some(g) = cur.group
            && self.vault.group(g).is_ok()
            && self.vault.group_undone_by(g)?.is_none()
        {
            return Ok(g);
        }
        let label = format!(
            "import of {} ({})",
            self.format.label(),
            file_name(&self.path)
        );
        let g = self
            .vault
            .begin_group(&self.ws.id, "import", Some(&task.id), &label)?;
        cur.group = Some(g);
        cursor::save(&self.ws, &self.path, cur)?;
        Ok(g)
    }

    async fn learn(&self, task: &mut TaskInfo, token: &CancellationToken) -> Result<Outcome> {
        // One run of a source at a time (another process's waits, then skips what it did).
        let lock_path = cursor::path(&self.ws, &self.path).with_extension("lock");
        if let Some(dir) = lock_path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io("creating the import state", &e))?;
        }
        let _lock = tokio::task::spawn_blocking(move || mnemo_store::fsutil::lock_file(&lock_path))
            .await
            .map_err(|e| Error::new(ErrorCode::Io, e.to_string()))??;
        let mut cur = cursor::load(&self.ws, &self.path)?;
        reset_if_undone(&self.vault, &mut cur)?;
        cur.budget_tokens = self.budget;
        // Review mode: what this run learns is staged and becomes one proposal, like
        // every automatic writer's; else it lands in the import's one change group.
        let label = format!(
            "Learnt from an import of {} ({})",
            self.format.label(),
            file_name(&self.path)
        );
        let job = if crate::review::review_on(&self.vault, &self.ws.id) {
            crate::review::open_group(
                &self.vault,
                &self.ws.id,
                "import",
                Some(&task.id),
                &label,
                ChangeSource::Extract,
            )
        } else {
            crate::review::JobGroup {
                id: Some(self.group(&mut cur, task)?),
                staged: false,
            }
        };
        let group = job
            .id
            .ok_or_else(|| Error::new(ErrorCode::Io, "could not open the import's change group"))?;
        let done: HashSet<String> = cur.done.iter().cloned().collect();
        let max = piece_tokens(self.client.context_window(token).await);
        // Conversations are read on their own thread, two ahead: never the whole file.
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<Conversation>>(2);
        let (path, format) = (self.path.clone(), self.format);
        std::thread::Builder::new()
            .name("mnemo-import-read".into())
            .spawn(move || {
                let out = conversations::for_each(&path, format, |c| {
                    Ok(if tx.blocking_send(Ok(c)).is_ok() {
                        Next::More
                    } else {
                        Next::Stop
                    })
                });
                if let Err(e) = out {
                    let _ = tx.blocking_send(Err(e));
                }
            })
            .map_err(|e| Error::io("starting the import", &e))?;
        let (mut index, mut learnt) = (0u32, 0u32);
        let mut files: Vec<String> = Vec::new();
        let mut failures: Vec<(String, String)> = Vec::new();
        let mut in_a_row = 0usize;
        let end = loop {
            let Some(next) = rx.recv().await else {
                break End::Finished;
            };
            let c = match next {
                Ok(c) => c,
                Err(e) => break End::Failed(e.message),
            };
            index += 1;
            if done.contains(&c.id) {
                continue;
            }
            task.set_progress(
                format!(
                    "Conversation {} / {}",
                    thousands(u64::from(index)),
                    thousands(u64::from(self.total))
                ),
                u64::from(index),
                u64::from(self.total),
            );
            self.tasks.save(task);
            if self.tasks.cancelled(task, token) {
                break End::Cancelled;
            }
            let c_empty = c.turns.is_empty();
            let parts = pieces(&c, max);
            let cost: u64 = parts.iter().map(|p| piece_cost(piece_size(p))).sum();
            if cur.spent_tokens + cost > cur.budget_tokens {
                break End::Budget(cur.spent_tokens);
            }
            let mut failed = None;
            for part in &parts {
                let session = format!("import:{}", c.id);
                let req = ExtractRequest {
                    workspace: &self.ws.id,
                    session_id: &session,
                    messages: part,
                    from: 0,
                    chat_wrote_memory: false,
                    origin: Origin {
                        source: ChangeSource::Extract,
                        group: Some(group),
                    },
                    imported: true,
                };
                let mut turns = 0u64;
                let out = run_extract(&self.vault, &self.client, &req, token, |e| {
                    if matches!(e, AgentEvent::Turn(_)) {
                        turns += 1;
                    }
                })
                .await;
                cur.spent_tokens +=
                    turns.max(1) * (CALL_OVERHEAD + piece_size(part) as u64 + CALL_OUTPUT);
                match out {
                    Ok(r) if r.status != ExtractStatus::Failed => {
                        for f in r.files_written {
                            if !files.contains(&f) {
                                files.push(f);
                            }
                        }
                    }
                    Ok(r) => {
                        failed = Some(r.detail.unwrap_or_else(|| "extraction failed".into()));
                        break;
                    }
                    Err(e) => {
                        failed = Some(e.message);
                        break;
                    }
                }
            }
            if let Some(why) = failed {
                if let Err(e) = cursor::save(&self.ws, &self.path, &cur) {
                    break End::Failed(e.message);
                }
                if token.is_cancelled() {
                    break End::Cancelled;
                }
                // Not marked done: the next run tries it again. This run goes on, unless the
                // model keeps failing.
                tracing::warn!(conversation = %c.id, "import: a conversation could not be learnt from: {why}");
                failures.push((c.name(), why.clone()));
                in_a_row += 1;
                if in_a_row >= FAILURES_IN_A_ROW {
                    break End::Failed(format!(
                        "the model failed on {FAILURES_IN_A_ROW} conversations in a row: {why}"
                    ));
                }
                continue;
            }
            in_a_row = 0;
            // Finished: never read again, by this run or the next.
            cur.done.push(c.id);
            if let Err(e) = cursor::save(&self.ws, &self.path, &cur) {
                break End::Failed(e.message);
            }
            if !c_empty {
                learnt += 1;
            }
        };
        drop(rx);
        if job.staged {
            let ended = crate::review::close_group(
                &self.vault,
                job,
                ChangeSource::Extract,
                "import",
                &label,
                &mnemo_store::journal::ProposalOrigin {
                    task: Some(task.id.clone()),
                    ..Default::default()
                },
                true,
            )?;
            return Ok(Outcome {
                end,
                learnt,
                files,
                group: None,
                proposal: ended.proposal,
                failed: failures,
            });
        }
        let kept = if self.vault.discard_group_if_empty(group)? {
            cur.group = None;
            cursor::save(&self.ws, &self.path, &cur)?;
            None
        } else {
            Some(group)
        };
        Ok(Outcome {
            end,
            learnt,
            files,
            group: kept,
            proposal: None,
            failed: failures,
        })
    }
}
