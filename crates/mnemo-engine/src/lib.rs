//! Mnemo's memory loop. So far: **recall** (SPEC §3, lexical path), the **memory agent** (§4.5:
//! a pure state machine in [`agent`], its confined tools in [`tools`], the async driver
//! [`run_agent`]) and **secret scanning** (§4.6). Extract, remember, dream and forget build on
//! these.
//!
//! Decision logic is pure and tested without IO; only [`recall()`] and [`run_agent`] touch the
//! vault and the model.

pub mod agent;
pub mod chat;
pub mod dream;
pub mod embed;
pub mod extract;
pub mod forget;
pub mod recall;
pub mod remember;
pub mod secrets;
pub mod stats;
pub mod tools;

use std::collections::VecDeque;
use std::time::Instant;

pub use agent::{AgentEvent, AgentLimits, AgentMachine, AgentOutcome, Effect};
use mnemo_llm::{CancellationToken, ChatRequest, Client, Delta, LlmError};
pub use recall::{RecallRequest, RecallResult, Recalled, Strategy, recall, recall_with_model};
pub use tools::{MemoryTools, ToolOutput};

/// Carry out an agent run: call the model, run its tool calls, until the machine finishes.
/// Every tool call and result is passed to `on_event`. Never blocks on a permission prompt:
/// the tools are the only permissions, and they are confined to the memory root.
pub async fn run_agent(
    client: &Client,
    tools: &mut MemoryTools<'_>,
    machine: AgentMachine,
    cancel: &CancellationToken,
    on_event: impl FnMut(&AgentEvent),
) -> AgentOutcome {
    drive(client, tools, machine, cancel, None, on_event)
        .await
        .0
}

/// The one driver of the agent machine, for the memory agent (plain calls, temperature 0) and
/// the chat (streamed calls: each delta goes to `stream`). Also returns the model error that
/// ended the run, if one did, so chat can tell "not configured" from other failures.
pub async fn drive(
    client: &Client,
    tools: &mut MemoryTools<'_>,
    mut machine: AgentMachine,
    cancel: &CancellationToken,
    mut stream: Option<&mut (dyn FnMut(&Delta) + Send)>,
    mut on_event: impl FnMut(&AgentEvent),
) -> (AgentOutcome, Option<LlmError>) {
    let started = Instant::now();
    let wall = machine.limits().wall_time;
    let tool_defs = tools.definitions();
    let mut last_error = None;
    let mut queue: VecDeque<Effect> = machine.start().into();
    while let Some(effect) = queue.pop_front() {
        match effect {
            Effect::Emit(e) => on_event(&e),
            Effect::Finish(outcome) => return (outcome, last_error),
            Effect::CallModel => {
                if cancel.is_cancelled() {
                    queue.extend(machine.on_cancel());
                    continue;
                }
                let req = ChatRequest {
                    messages: machine.messages().to_vec(),
                    tools: if machine.offers_tools() {
                        tool_defs.clone()
                    } else {
                        Vec::new()
                    },
                    temperature: if stream.is_some() { None } else { Some(0.0) },
                    ..ChatRequest::default()
                };
                let remaining = wall.saturating_sub(started.elapsed());
                let call = async {
                    match stream.as_deref_mut() {
                        Some(s) => client.chat_stream(&req, cancel, |d| s(d)).await,
                        None => client.chat(&req, cancel).await,
                    }
                };
                match tokio::time::timeout(remaining, call).await {
                    Ok(Ok(r)) => queue.extend(machine.on_model_reply(r.message, started.elapsed())),
                    Ok(Err(LlmError::Cancelled)) => queue.extend(machine.on_cancel()),
                    Ok(Err(e)) => {
                        queue.extend(machine.on_model_error(e.to_string()));
                        last_error = Some(e);
                    }
                    Err(_) => queue.extend(machine.on_timeout()),
                }
            }
            Effect::RunTool {
                id,
                name,
                arguments,
            } => {
                let out = tools.run(&name, &arguments);
                // Its result event comes next, before the following call's: each progress step
                // gets its own outcome.
                for e in machine
                    .on_tool_result(&id, out.ok, out.text, started.elapsed())
                    .into_iter()
                    .rev()
                {
                    queue.push_front(e);
                }
            }
        }
    }
    (
        AgentOutcome::Failed("the agent stopped without an outcome".to_owned()),
        last_error,
    )
}
