//! Remember: a fact from a script, the chat or the app, written by the memory agent
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
use crate::planner::{self, choice::Road};
use crate::tools::MemoryTools;

/// Content accepted at most (UTF-8 bytes).
pub const MAX_CONTENT_BYTES: usize = 64 * 1024;
/// The agent's limits.
pub const LIMITS: AgentLimits = AgentLimits {
    max_turns: 6,
    wall_time: Duration::from_secs(300),
    step_tokens: 1_024,
    total_tokens: 60_000,
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

/// Check content: non-empty UTF-8 text of at most 64 KiB, holding no secret (refused with the
/// rule's name before any model sees it).
pub fn check_content(content: &str) -> Result<()> {
    let hits = crate::secrets::scan(content);
    if !hits.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidContent,
            crate::secrets::describe(&hits),
        ));
    }
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
    mut on_event: impl FnMut(&crate::AgentEvent) + Send,
) -> Result<Remembered> {
    let RememberRequest {
        workspace,
        content,
        mode,
        origin,
    } = req;
    check_content(content)?;
    let ws = vault.workspace(workspace)?;
    let choice = planner::choice::decide(&vault.home().root, client, cancel).await;
    let said = [planner::Said {
        user: true,
        text: content.to_owned(),
    }];
    let started = std::time::Instant::now();
    if choice.road == Road::Planner {
        let mut tools = MemoryTools::new(vault, ws.clone(), origin);
        return planned(
            vault,
            client,
            &mut tools,
            &ws,
            &said,
            origin,
            INNER_TIMEOUT,
            cancel,
        )
        .await;
    }
    let manifest = match mode {
        ContextMode::Workspace => {
            let docs = vault.list_indexed(Some(&ws.id), None)?;
            Some(crate::recall::agent_manifest(client, &docs, cancel).await)
        }
        ContextMode::Clean => None,
    };
    let mut tools = MemoryTools::new(vault, ws.clone(), origin);
    let mut calls = 0u32;
    let system = system_prompt(manifest.as_deref());
    let task = format!("Remember this:\n\n{content}");
    let mut outcome = run_bounded(client, &mut tools, &system, &task, cancel, &mut |e| {
        if matches!(e, crate::AgentEvent::ToolCall { .. }) {
            calls += 1;
        }
        on_event(e);
    })
    .await;
    // A model that answered in words without calling a tool, on a server spoken to natively:
    // the model may have no tool template. Once more, with the text protocol (remembered).
    let profile = client.profile(&client.settings().model);
    if matches!(outcome, Ok(AgentOutcome::Completed { .. }))
        && calls == 0
        && profile.tool_mode() == mnemo_llm::ToolMode::Native
    {
        tracing::info!(
            "{} ({}): no tool call; using Mnemo's text protocol",
            client.settings().base_url,
            client.settings().model
        );
        profile.use_text_tools();
        outcome = run_bounded(client, &mut tools, &system, &task, cancel, &mut |e| {
            on_event(e);
        })
        .await;
    }
    if tools.escaped {
        return Err(Error::new(
            ErrorCode::RememberPathEscape,
            "the remember agent named a path outside the memory folder; nothing was written there",
        ));
    }
    // `auto`: an agent run that wrote nothing (and was not stopped by the person) hands the
    // fact to the planner, which learns for this model when it writes.
    let stopped = cancel.is_cancelled();
    let left = INNER_TIMEOUT.saturating_sub(started.elapsed());
    if choice.then_planner
        && !stopped
        && tools.touched.is_empty()
        && !tools.escaped
        && left.as_secs() >= 10
    {
        let mut fresh = MemoryTools::new(vault, ws.clone(), origin);
        match planned(vault, client, &mut fresh, &ws, &said, origin, left, cancel).await {
            Ok(done) => {
                planner::choice::learn(
                    &vault.home().root,
                    client,
                    Road::Planner,
                    &format!(
                        "the tool agent wrote nothing where the planner saved {} file(s)",
                        done.files.len()
                    ),
                );
                return Ok(done);
            }
            // The planner's own checks refused what it proposed: that is the clearer reason.
            Err(e) if e.code == ErrorCode::RememberNothingWritten => return Err(e),
            // The planner could not be asked either: the agent's outcome says what happened.
            Err(e) => tracing::info!(
                "remember: the planner after the agent failed too: {}",
                e.message
            ),
        }
    }
    let claim = match outcome {
        Ok(AgentOutcome::Completed { summary, .. }) => summary,
        Ok(AgentOutcome::Cancelled) if cancel.is_cancelled() => {
            return Err(Error::new(ErrorCode::RememberFailed, "cancelled"));
        }
        Ok(AgentOutcome::Cancelled | AgentOutcome::TimedOut) | Err(_) => {
            return Err(Error::new(
                ErrorCode::RememberFailed,
                format!(
                    "the remember agent did not finish within {} s; nothing it wrote was kept",
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
    // The task's result is what is on disk, never the model's claim.
    let written: Vec<(String, String)> = tools
        .touched
        .iter()
        .filter_map(|f| {
            let d = vault.get_as(origin, &ws.id, f).ok()?;
            Some((
                f.clone(),
                format!("{}\n{}\n{}", d.summary.name, d.summary.description, d.body),
            ))
        })
        .collect();
    if written.is_empty() {
        return Err(Error::new(
            ErrorCode::RememberNothingWritten,
            format!(
                "the model finished without writing any memory file{}; nothing was saved — try again, \
                 or save it yourself with `mnemo add`",
                quoted_claim(&claim)
            ),
        ));
    }
    let texts: Vec<&str> = written.iter().map(|(_, t)| t.as_str()).collect();
    if !holds_fact(content, &texts) {
        let names: Vec<&str> = written.iter().map(|(p, _)| p.as_str()).collect();
        return Err(Error::new(
            ErrorCode::RememberNothingWritten,
            format!(
                "the model wrote {} but not the fact, so that was taken back; nothing was saved — \
                 try again, or save it yourself with `mnemo add`",
                names.join(", ")
            ),
        ));
    }
    planner::choice::learn(
        &vault.home().root,
        client,
        Road::Tools,
        "the tool agent wrote the fact",
    );
    Ok(remembered(vault, origin, &ws.id, &tools))
}

/// The planner's remember: one side query; the fact must come back held by what was given.
#[allow(clippy::too_many_arguments)]
async fn planned(
    vault: &Vault,
    client: &Client,
    tools: &mut MemoryTools<'_>,
    ws: &mnemo_store::Workspace,
    said: &[planner::Said],
    origin: Origin,
    within: Duration,
    cancel: &CancellationToken,
) -> Result<Remembered> {
    let applied = planner::run(vault, client, tools, &ws.id, said, true, within, cancel)
        .await
        .map_err(|e| {
            Error::new(
                ErrorCode::RememberFailed,
                format!("the model failed: {e}; nothing was saved"),
            )
        })?;
    if tools.touched.is_empty() {
        let why = applied.dropped.first().map_or_else(
            || "the model proposed no fact".to_owned(),
            |d| format!("\"{}\" was dropped: {}", d.fact, d.reason),
        );
        return Err(Error::new(
            ErrorCode::RememberNothingWritten,
            format!(
                "nothing was saved ({why}) — try again in other words, or save it yourself with `mnemo add`"
            ),
        ));
    }
    Ok(remembered(vault, origin, &ws.id, tools))
}

/// What a run wrote, read from the disk (as the run's origin sees it): files, their types and
/// the summary.
fn remembered(vault: &Vault, origin: Origin, ws: &str, tools: &MemoryTools<'_>) -> Remembered {
    let files: Vec<String> = tools.touched.iter().cloned().collect();
    let mut types = Vec::new();
    for f in &files {
        if let Ok(d) = vault.get_as(origin, ws, f)
            && let Some(t) = d.summary.memory_type.filter(|t| !types.contains(t))
        {
            types.push(t);
        }
    }
    Remembered {
        summary: written_summary(vault, origin, ws, &files, &tools.originals),
        files,
        types,
    }
}

/// One run of the agent under the inner abort and the outer limit.
async fn run_bounded(
    client: &Client,
    tools: &mut MemoryTools<'_>,
    system: &str,
    task: &str,
    cancel: &CancellationToken,
    on_event: &mut (dyn FnMut(&crate::AgentEvent) + Send),
) -> std::result::Result<AgentOutcome, tokio::time::error::Elapsed> {
    let machine = AgentMachine::new(LIMITS, system, task);
    // The inner abort comes first, so the outer limit only ever backs it up.
    let inner = cancel.child_token();
    let timer = {
        let inner = inner.clone();
        tokio::spawn(async move {
            tokio::time::sleep(INNER_TIMEOUT).await;
            inner.cancel();
        })
    };
    let run = crate::run_agent(client, tools, machine, &inner, |e| on_event(e));
    let outcome = tokio::time::timeout(OUTER_TIMEOUT, run).await;
    timer.abort();
    outcome
}

fn quoted_claim(claim: &str) -> String {
    let c: String = claim.split_whitespace().collect::<Vec<_>>().join(" ");
    if c.is_empty() {
        String::new()
    } else {
        let short: String = c.chars().take(120).collect();
        format!(
            " (it said: \"{short}{}\")",
            if short.len() < c.len() { "…" } else { "" }
        )
    }
}

/// The words that carry a fact: folded, at least three characters (CJK bigrams as the index
/// makes them), without the words every sentence has.
fn fact_words(text: &str) -> HashSet<String> {
    const COMMON: &[&str] = &[
        "the", "and", "for", "are", "was", "were", "has", "have", "had", "that", "this", "with",
        "from", "they", "their", "them", "user", "users", "remember", "not", "but", "you", "your",
        "his", "her", "its", "our", "all", "any", "can", "will", "should", "would",
    ];
    mnemo_store::tokenize::query_terms(text)
        .into_iter()
        .filter(|w| w.chars().count() >= 3 || w.chars().any(mnemo_store::tokenize::is_cjk))
        .filter(|w| !COMMON.contains(&w.as_str()))
        .collect()
}

/// Whether what was written holds the fact: at least half of the fact's words (and at least
/// one) appear in the written files. A paraphrase keeps most of them; a file about something
/// else does not.
#[must_use]
pub fn holds_fact(fact: &str, written: &[&str]) -> bool {
    let want = fact_words(fact);
    if want.is_empty() {
        return !written.is_empty();
    }
    let have: HashSet<String> = written.iter().flat_map(|t| fact_words(t)).collect();
    let found = want.iter().filter(|w| have.contains(*w)).count();
    found * 2 >= want.len() && found > 0
}

/// What was written, as the summary says it: each file, created or updated, with its name.
fn written_summary(
    vault: &Vault,
    origin: Origin,
    ws: &str,
    files: &[String],
    originals: &std::collections::BTreeMap<String, Option<String>>,
) -> String {
    let parts: Vec<String> = files
        .iter()
        .map(|f| {
            let verb = match originals.get(f) {
                Some(None) => "created",
                _ => "updated",
            };
            match vault.get_as(origin, ws, f) {
                Ok(d) if !d.summary.name.trim().is_empty() => {
                    format!("{verb} {f} (\"{}\")", d.summary.name.trim())
                }
                _ => format!("{verb} {f}"),
            }
        })
        .collect();
    format!("Saved: {}.", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_holds_the_fact_only_when_it_carries_its_words() {
        let fact = "The user is allergic to peanuts.";
        assert!(holds_fact(
            fact,
            &["Peanut allergy\nFood allergy\nThe user is allergic to peanuts; avoid them."]
        ));
        assert!(!holds_fact(fact, &["Favourite colour\nBlue\nLikes blue."]));
        assert!(!holds_fact(fact, &[]));
        assert!(holds_fact(
            "用户对花生过敏",
            &["用户对花生过敏，不吃花生。"]
        ));
        assert!(!holds_fact("用户对花生过敏", &["喜欢蓝色"]));
        assert!(
            holds_fact("a b", &["anything"]),
            "no content words: any write"
        );
    }

    #[test]
    fn the_models_claim_is_quoted_short() {
        assert_eq!(quoted_claim("  "), "");
        assert_eq!(quoted_claim("Saved  it."), " (it said: \"Saved it.\")");
        assert!(quoted_claim(&"x ".repeat(200)).ends_with("…\")"));
    }
}
