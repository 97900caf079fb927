//! The one driver of the agent machine ([`crate::agent`]), for the memory agent (plain calls,
//! temperature 0) and the chat (streamed calls). It carries out the machine's effects and
//! bounds every model call: an output cap fitted to the step and the window
//! ([`crate::budget::step_cap`]), the time left of the run's wall time, the conversation fitted
//! to the context window ([`crate::budget::fit`]) and the run's token budget. A server that
//! refuses tools, or a model that writes its calls as text, moves the memory agent to the text
//! protocol ([`mnemo_llm::text_tools`]); the chat then answers without tools. An overflow error that
//! names the server's real window is retried once, fitted to it.

use std::collections::VecDeque;
use std::time::Instant;

use mnemo_llm::{
    CancellationToken, ChatRequest, Client, Delta, LlmError, Message, Role, refuses_tools,
};

use crate::agent::{AgentEvent, AgentMachine, AgentOutcome, Effect};
use crate::budget;
use crate::chat::compact::{estimate_tokens, message_tokens};
use crate::tools::MemoryTools;
use mnemo_llm::ToolMode;
use mnemo_llm::text_tools::{self as protocol, Action};

/// Run the machine to its end. Also returns the model error that ended the run, if one did, so
/// chat can tell "not configured" from other failures.
pub async fn drive(
    client: &Client,
    tools: &mut MemoryTools<'_>,
    mut machine: AgentMachine,
    cancel: &CancellationToken,
    mut stream: Option<&mut (dyn FnMut(&Delta) + Send)>,
    mut on_event: impl FnMut(&AgentEvent),
) -> (AgentOutcome, Option<LlmError>) {
    let started = Instant::now();
    let limits = machine.limits();
    let conversation = stream.is_some();
    let tool_defs = tools.definitions();
    let native_tools_tokens = serde_json::to_string(&tool_defs).map_or(0, |t| estimate_tokens(&t));
    let profile = client.profile(&client.settings().model);
    let mut mode = profile.tool_mode();
    let mut window = client.context_window(cancel).await;
    let mut spent: u64 = 0;
    let mut overflow_retried = false;
    let mut text_calls = 0u32;
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
                let remaining = limits.wall_time.saturating_sub(started.elapsed());
                if remaining.is_zero() {
                    queue.extend(machine.on_timeout());
                    continue;
                }
                // Chat on a server without native tools answers without them.
                let offers = machine.offers_tools();
                let native = offers && mode == ToolMode::Native;
                let text = offers && mode == ToolMode::Text && !conversation;
                let cap = budget::step_cap(limits.step_tokens, window);
                let messages = if text {
                    protocol::render(machine.messages(), &tool_defs)
                } else {
                    machine.messages().to_vec()
                };
                let fixed = if native { native_tools_tokens } else { 0 };
                let window_tokens = usize::try_from(window).unwrap_or(usize::MAX);
                let cap_tokens = usize::try_from(cap).unwrap_or(usize::MAX);
                let fitted = if conversation {
                    // Compaction fitted the chat before the turn; only its tool results are cut.
                    let mut messages = messages;
                    let mut notes = Vec::new();
                    let room = window_tokens.saturating_sub(cap_tokens + fixed);
                    budget::cut_tool_results(&mut messages, room, &mut notes);
                    Some(budget::Fitted { messages, notes })
                } else {
                    budget::fit(&messages, fixed, window_tokens, cap_tokens)
                };
                let Some(fitted) = fitted else {
                    queue.extend(machine.on_model_error(format!(
                        "the request does not fit the model's context window ({window} tokens) even when cut: \
                         raise the context window in Settings (and on the model server)"
                    )));
                    continue;
                };
                if !fitted.notes.is_empty() {
                    tracing::info!(
                        window,
                        "fitted to the context window: {}",
                        fitted.notes.join("; ")
                    );
                }
                let prompt = budget::conversation_tokens(&fitted.messages) + fixed;
                spent += u64::try_from(prompt).unwrap_or(u64::MAX);
                if spent > u64::from(limits.total_tokens) {
                    queue.extend(machine.on_budget_spent(spent));
                    continue;
                }
                let req = ChatRequest {
                    messages: fitted.messages,
                    tools: if native {
                        tool_defs.clone()
                    } else {
                        Vec::new()
                    },
                    temperature: if conversation {
                        machine.reply_temperature()
                    } else {
                        Some(0.0)
                    },
                    max_tokens: Some(cap),
                    // The run's wall time (below) ends a call first, as a timeout of the run.
                    timeout: Some(remaining + std::time::Duration::from_secs(1)),
                    ..ChatRequest::default()
                };
                let call = async {
                    match stream.as_deref_mut() {
                        Some(s) => client.chat_stream(&req, cancel, |d| s(d)).await,
                        None => client.chat(&req, cancel).await,
                    }
                };
                let answer = tokio::time::timeout(remaining, call).await;
                match answer {
                    Ok(Ok(r)) => {
                        spent += u64::try_from(message_tokens(&r.message)).unwrap_or(u64::MAX);
                        let cut = r.cut_at_limit();
                        let reply = r.message;
                        let body = reply.content.clone().unwrap_or_default();
                        // A chat reply in words that hit its cap is shown as it is.
                        if cut && !(conversation && reply.tool_calls.is_empty()) {
                            queue.extend(machine.on_cut_reply(cap));
                        } else if text {
                            match protocol::parse(&body, &tool_defs) {
                                Ok(Action::Call { name, arguments }) => {
                                    text_calls += 1;
                                    let msg = protocol::as_call(
                                        format!("text_{text_calls}"),
                                        name,
                                        arguments,
                                    );
                                    queue.extend(machine.on_model_reply(msg, started.elapsed()));
                                }
                                Ok(Action::Done(summary)) => queue.extend(machine.on_model_reply(
                                    Message::new(Role::Assistant, summary),
                                    started.elapsed(),
                                )),
                                Err(problem) => {
                                    queue.extend(machine.on_unusable_reply(body, &problem));
                                }
                            }
                        } else if native
                            && !conversation
                            && reply.tool_calls.is_empty()
                            && let Some((name, arguments)) =
                                protocol::call_in_text(&body, &tool_defs)
                        {
                            // The model wrote its call out as text: take it, and speak the text
                            // protocol with this server from now on.
                            profile.use_text_tools();
                            mode = ToolMode::Text;
                            text_calls += 1;
                            let msg =
                                protocol::as_call(format!("text_{text_calls}"), name, arguments);
                            queue.extend(machine.on_model_reply(msg, started.elapsed()));
                        } else {
                            queue.extend(machine.on_model_reply(reply, started.elapsed()));
                        }
                    }
                    Ok(Err(LlmError::Cancelled)) => queue.extend(machine.on_cancel()),
                    Ok(Err(e)) if native && refuses_tools(&e) => {
                        tracing::warn!("the model server refused tool calls ({e})");
                        profile.use_text_tools();
                        mode = ToolMode::Text;
                        queue.push_front(Effect::CallModel);
                    }
                    Ok(Err(LlmError::ContextTooLong(m)))
                        if !overflow_retried && client.known_context_window() < window =>
                    {
                        // The server named its real window: fit to it and try once more.
                        overflow_retried = true;
                        window = client.known_context_window();
                        tracing::warn!(
                            "the server's context window is {window} tokens ({m}); fitting to it"
                        );
                        queue.push_front(Effect::CallModel);
                    }
                    Ok(Err(e)) => {
                        queue.extend(machine.on_model_error(e.to_string()));
                        last_error = Some(e);
                    }
                    Err(_) => queue.extend(machine.on_timeout()),
                }
            }
            Effect::SkipTool { id, note } => {
                for e in machine
                    .on_tool_result(&id, false, note, started.elapsed())
                    .into_iter()
                    .rev()
                {
                    queue.push_front(e);
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
