//! Remember (SPEC §4.2): a fact from a script, the chat or the app, written by the memory agent
//! without a chat session — 6 turns, a 295 s abort inside the 300 s outer limit. `workspace`
//! mode preloads the manifest so the agent updates what exists; `clean` shows it nothing. A path
//! outside the memory root fails the task with `remember_path_escape` (nothing is written there:
//! the tools confine every path).

use std::collections::HashSet;
use std::time::Duration;

use mnemo_core::{Error, ErrorCode, MemoryType, Result};
use mnemo_llm::{CancellationToken, Client};
use mnemo_store::Vault;
use mnemo_store::journal::Origin;

use crate::agent::{AgentLimits, AgentMachine, AgentOutcome};
use crate::tools::MemoryTools;

/// Content accepted at most (UTF-8 bytes).
pub const MAX_CONTENT_BYTES: usize = 64 * 1024;
/// The agent's limits.
pub const LIMITS: AgentLimits = AgentLimits {
    max_turns: 6,
    wall_time: Duration::from_secs(300),
};
/// The inner abort: the agent stops before the outer limit, so a clean error comes back.
pub const INNER_TIMEOUT: Duration = Duration::from_secs(295);
/// The outer limit on the whole task.
pub const OUTER_TIMEOUT: Duration = Duration::from_secs(300);

/// `workspace` (the agent sees existing memories and may update them) or `clean`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextMode {
    /// Existing memories preloaded.
    Workspace,
    /// Nothing preloaded.
    Clean,
}

impl ContextMode {
    /// Parse the wire value (absent → `workspace`).
    pub fn parse(s: Option<&str>) -> Result<Self> {
        match s {
            None | Some("workspace") => Ok(Self::Workspace),
            Some("clean") => Ok(Self::Clean),
            Some(other) => Err(Error::new(
                ErrorCode::InvalidContextMode,
                format!("contextMode `{other}` is not `workspace` or `clean`"),
            )),
        }
    }

    /// The wire value.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Workspace => "workspace",
            Self::Clean => "clean",
        }
    }
}

/// Check content: non-empty UTF-8 text of at most 64 KiB.
pub fn check_content(content: &str) -> Result<()> {
    if content.trim().is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidContent,
            "content is empty: say what to remember",
        ));
    }
    if content.len() > MAX_CONTENT_BYTES {
        return Err(Error::new(
            ErrorCode::InvalidContent,
            format!(
                "content is {} bytes; at most {MAX_CONTENT_BYTES} bytes (64 KiB) can be remembered at once",
                content.len()
            ),
        ));
    }
    Ok(())
}

/// What a remember run wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remembered {
    /// The agent's one-line summary.
    pub summary: String,
    /// Files written, relative to the memory root.
    pub files: Vec<String>,
    /// Their types.
    pub types: Vec<MemoryType>,
}

fn system_prompt(manifest: Option<&str>) -> String {
    let existing = match manifest {
        Some(m) if !m.trim().is_empty() => format!(
            "Existing memories (update one when the fact belongs there, rather than duplicating it):\n{m}"
        ),
        Some(_) => "There are no memories yet.".to_owned(),
        None => "Write a new memory file; do not look at or change existing ones.".to_owned(),
    };
    format!(
        "You save a fact the user asked you to remember into their long-term memory: markdown files in a \
         memory folder, written only with your tools. Each topic file has frontmatter\n---\nname: <short title>\n\
         description: <one specific line>\ntype: <user|feedback|project|reference>\n---\nfollowed by entries \
         separated by blank lines: a summary line, then optional `Why:` and `How to apply:` lines. Pick the type \
         that fits (who the user is: user; how to work: feedback; goals and decisions: project; pointers to \
         external systems: reference). Finish with one short sentence saying what you saved.\n\n{existing}"
    )
}

/// One remember's inputs.
#[derive(Debug, Clone, Copy)]
pub struct RememberRequest<'a> {
    /// Workspace id.
    pub workspace: &'a str,
    /// The fact.
    pub content: &'a str,
    /// What the agent sees.
    pub mode: ContextMode,
    /// Source `remember`, in the task's change group.
    pub origin: Origin,
}

/// Run one remember (the caller opened the group `req.origin` names).
pub async fn run_remember(
    vault: &Vault,
    client: &Client,
    req: RememberRequest<'_>,
    cancel: &CancellationToken,
    mut on_event: impl FnMut(&crate::AgentEvent),
) -> Result<Remembered> {
    let RememberRequest {
        workspace,
        content,
        mode,
        origin,
    } = req;
    check_content(content)?;
    let ws = vault.workspace(workspace)?;
    let manifest = match mode {
        ContextMode::Workspace => {
            let docs = vault.list_indexed(Some(&ws.id), None)?;
            Some(crate::recall::manifest(&docs, &HashSet::new(), &[]).0)
        }
        ContextMode::Clean => None,
    };
    let machine = AgentMachine::new(
        LIMITS,
        system_prompt(manifest.as_deref()),
        format!("Remember this:\n\n{content}"),
    );
    let mut tools = MemoryTools::new(vault, ws.clone(), origin);
    // The inner abort comes first, so the outer limit only ever backs it up.
    let inner = cancel.child_token();
    let timer = {
        let inner = inner.clone();
        tokio::spawn(async move {
            tokio::time::sleep(INNER_TIMEOUT).await;
            inner.cancel();
        })
    };
    let run = crate::run_agent(client, &mut tools, machine, &inner, |e| on_event(e));
    let outcome = tokio::time::timeout(OUTER_TIMEOUT, run).await;
    timer.abort();
    if tools.escaped {
        return Err(Error::new(
            ErrorCode::RememberPathEscape,
            "the remember agent named a path outside the memory folder; nothing was written there",
        ));
    }
    let summary = match outcome {
        Ok(AgentOutcome::Completed { summary, .. }) => summary,
        Ok(AgentOutcome::Cancelled) if cancel.is_cancelled() => {
            return Err(Error::new(ErrorCode::RememberFailed, "cancelled"));
        }
        Ok(AgentOutcome::Cancelled | AgentOutcome::TimedOut) | Err(_) => {
            return Err(Error::new(
                ErrorCode::RememberFailed,
                format!(
                    "the remember agent did not finish within {} s",
                    INNER_TIMEOUT.as_secs()
                ),
            ));
        }
        Ok(AgentOutcome::MaxTurns(n)) => {
            return Err(Error::new(
                ErrorCode::RememberFailed,
                format!("the remember agent used all {n} turns without finishing"),
            ));
        }
        Ok(AgentOutcome::Failed(e)) => {
            return Err(Error::new(
                ErrorCode::RememberFailed,
                format!("the model failed: {e}"),
            ));
        }
    };
    let files: Vec<String> = tools.touched.iter().cloned().collect();
    let mut types = Vec::new();
    for f in &files {
        if let Ok(d) = vault.get(&ws.id, f)
            && let Some(t) = d.summary.memory_type.filter(|t| !types.contains(t))
        {
            types.push(t);
        }
    }
    Ok(Remembered {
        summary: if summary.trim().is_empty() {
            format!("wrote {}", files.join(", "))
        } else {
            summary
        },
        files,
        types,
    })
}
