//! The apply step of extraction: the model's road (the tool agent, the planner, or `auto`'s
//! agent-then-planner), the writes it makes through [`MemoryTools`] (every guard of a write
//! applies), the post-filter of what it wrote, and the run's record (meta.json, telemetry).

use std::collections::HashSet;
use std::time::Instant;

use chrono::{SecondsFormat, Utc};
use mnemo_core::Result;
use mnemo_llm::{CancellationToken, Client, Message};
use mnemo_store::format::TopicFile;
use mnemo_store::{Vault, doc};

use super::plan::{nothing_written, system_prompt, task_text};
use super::{ExtractRequest, ExtractResult, ExtractStatus, LIMITS, Plan, Refine, plan, refine};
use crate::agent::{AgentLimits, AgentMachine, AgentOutcome};
use crate::planner::{self, choice::Road};
use crate::tools::MemoryTools;

/// Run one extraction for a session's transcript: [`plan`](super::plan) it, let the model's
/// road write, [`refine`](super::refine) what it wrote, record the run. Every agent event (each
/// tool call) is passed to `on_event`, for the task's progress. The caller keeps the session's
/// mark: it moves to `upto` when the run did not fail.
pub async fn run_extract(
    vault: &Vault,
    client: &Client,
    req: &ExtractRequest<'_>,
    cancel: &CancellationToken,
    mut on_event: impl FnMut(&crate::AgentEvent),
) -> Result<ExtractResult> {
    let ExtractRequest {
        workspace,
        session_id,
        origin,
        imported,
        ..
    } = *req;
    let started = Instant::now();
    let ws = vault.workspace(workspace)?;
    let (slice, upto) = match plan(req) {
        Plan::Skip { why, upto } => return Ok(ExtractResult::skipped(why, upto)),
        Plan::Read { slice, upto } => (slice, upto),
    };
    let choice = planner::choice::decide(&vault.home().root, client, cancel).await;
    let mut tools = MemoryTools::new(vault, ws.clone(), origin);
    let said = planner::said_of(slice);
    let mut planned: Option<planner::Applied> = None;
    let mut road = choice.road;
    let (status, mut detail) = if choice.road == Road::Planner {
        match planner::run(
            vault,
            client,
            &mut tools,
            &ws.id,
            &said,
            false,
            LIMITS.wall_time,
            cancel,
        )
        .await
        {
            Ok(a) => {
                planned = Some(a);
                (ExtractStatus::Completed, None)
            }
            Err(e) => (
                ExtractStatus::Failed,
                Some(format!("the model failed: {e}")),
            ),
        }
    } else {
        // `auto` still learning: the agent gets half the run's time, the planner the rest.
        let limits = if choice.then_planner {
            AgentLimits {
                wall_time: LIMITS.wall_time / 2,
                ..LIMITS
            }
        } else {
            LIMITS
        };
        let (mut status, mut detail, cancelled) = run_agent_path(
            vault,
            client,
            &ws,
            &mut tools,
            imported,
            slice,
            limits,
            cancel,
            &mut on_event,
        )
        .await?;
        // What is left of the run's wall time (the planner gets no more than that).
        let left = LIMITS.wall_time.saturating_sub(started.elapsed());
        if choice.then_planner && !cancelled && tools.touched.is_empty() && left.as_secs() >= 10 {
            // `auto`: the agent wrote nothing; the planner reads the same messages.
            match planner::run(
                vault, client, &mut tools, &ws.id, &said, false, left, cancel,
            )
            .await
            {
                Ok(a) => {
                    if a.written > 0 {
                        planner::choice::learn(
                            &vault.home().root,
                            client,
                            Road::Planner,
                            &format!(
                                "the tool agent wrote nothing where the planner found {} fact(s)",
                                a.written
                            ),
                        );
                        road = Road::Planner;
                    }
                    status = ExtractStatus::Completed;
                    detail = None;
                    planned = Some(a);
                }
                Err(e) => tracing::info!("extract: the planner after the agent failed too: {e}"),
            }
        } else if !tools.touched.is_empty() {
            planner::choice::learn(
                &vault.home().root,
                client,
                Road::Tools,
                "the tool agent wrote memories",
            );
        }
        (status, detail)
    };
    // Post-filter what this run wrote: weak entries and repeats go; what was there stays.
    let mut seen = HashSet::new();
    let mut written = Vec::new();
    let mut types = Vec::new();
    for path in &tools.touched {
        let Ok(detail) = vault.get_as(origin, &ws.id, path) else {
            continue;
        };
        if detail.summary.kind != doc::DocKind::Topic {
            continue;
        }
        let original = tools.originals.get(path).cloned().flatten();
        let memory_type = detail.summary.memory_type;
        match refine(&detail.body, memory_type, original.as_deref(), &mut seen) {
            Refine::Keep => {}
            Refine::Remove => {
                vault.mutate(&ws, path, origin, None, |_, _| Ok(None))?;
                continue;
            }
            Refine::Rewrite(body) => {
                vault.mutate(&ws, path, origin, None, |cur, _| {
                    let text = cur
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .unwrap_or_default();
                    let mut file = TopicFile::parse(&text);
                    file.set_body(&body);
                    Ok(Some(file.render().into_bytes()))
                })?;
            }
        }
        written.push(path.clone());
        if let Some(t) = memory_type.filter(|t| !types.contains(t)) {
            types.push(t);
        }
    }
    let dropped = planned
        .as_ref()
        .map(|a| a.dropped.clone())
        .unwrap_or_default();
    if written.is_empty() {
        // Said plainly: a run that saved nothing is not dressed up as work done.
        detail = Some(nothing_written(detail, planned.as_ref()));
    }
    let now = Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true);
    if !imported {
        let mut meta = vault.meta(&ws)?.value;
        meta.last_extract_at = Some(now);
        meta.last_extract_session_id = Some(session_id.to_owned());
        meta.last_extract_status = Some(status.as_str().to_owned());
        vault.save_meta(&ws, &meta)?;
    }
    crate::telemetry::Event::Extract(crate::telemetry::Extract {
        trigger: if imported { "import" } else { "auto" },
        status: status.as_str(),
        entries_written: written.len(),
        road: road.as_str(),
        dropped: dropped.len(),
        touched_types: types.clone(),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
    .record(vault, &ws.id)?;
    Ok(ExtractResult {
        status,
        files_written: written,
        touched_types: types,
        detail,
        upto,
        road: Some(road),
        dropped,
    })
}

/// The tool agent's run over the slice: (status, why not completed, cancelled).
#[allow(clippy::too_many_arguments)]
async fn run_agent_path(
    vault: &Vault,
    client: &Client,
    ws: &mnemo_store::Workspace,
    tools: &mut MemoryTools<'_>,
    imported: bool,
    slice: &[Message],
    limits: AgentLimits,
    cancel: &CancellationToken,
    on_event: &mut impl FnMut(&crate::AgentEvent),
) -> Result<(ExtractStatus, Option<String>, bool)> {
    let docs = vault.list_indexed(Some(&ws.id), None)?;
    let manifest = crate::recall::agent_manifest(client, &docs, cancel).await;
    let task = task_text(imported, slice);
    let machine = AgentMachine::new(limits, system_prompt(&manifest), task);
    let outcome = crate::run_agent(client, tools, machine, cancel, |e| {
        // Names only: tool arguments may hold text the secret scan refused.
        match e {
            crate::AgentEvent::ToolCall { name, .. } => tracing::debug!("extract: tool {name}"),
            other => tracing::debug!("extract: {other:?}"),
        }
        on_event(e);
    })
    .await;
    let (status, detail) = match &outcome {
        // Hitting the turn limit means the slice may not be fully processed: not a success.
        AgentOutcome::Completed { .. } => (ExtractStatus::Completed, None),
        other => (ExtractStatus::Failed, Some(outcome_text(other, limits))),
    };
    Ok((status, detail, matches!(outcome, AgentOutcome::Cancelled)))
}

/// How a run that did not complete ended, in words.
fn outcome_text(o: &AgentOutcome, limits: AgentLimits) -> String {
    match o {
        AgentOutcome::Completed { .. } => "completed".to_owned(),
        AgentOutcome::MaxTurns(n) => format!("the agent used all {n} turns without finishing"),
        AgentOutcome::TimedOut => format!(
            "the agent did not finish within {} s",
            limits.wall_time.as_secs()
        ),
        AgentOutcome::Cancelled => "cancelled".to_owned(),
        AgentOutcome::Failed(e) => format!("the model failed: {e}"),
    }
}
