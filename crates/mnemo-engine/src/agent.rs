//! The memory agent's decision logic as a pure state machine: it never performs IO;
//! it takes what happened (a model reply, a tool result, elapsed time, a cancel) and returns the
//! effects to perform. The async driver ([`crate::run_agent`]) carries them out, so the rules —
//! max turns, wall time, cancellation, one event per tool call — are tested without a network.
//! Besides the limits on turns and time: an answer cut at its output cap is asked for again once,
//! shorter, then the run stops saying so; an identical tool call is answered "you already did
//! that" the second time and stops the run the third; an unusable answer (text protocol) is
//! fed back once per turn with the problem named.

use std::collections::HashMap;
use std::time::Duration;

use mnemo_llm::Message;

/// Limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentLimits {
    /// Model turns at most (extract: 5, remember: 6).
    pub max_turns: u32,
    /// Wall time at most (extract: 2 min, remember: 5 min).
    pub wall_time: Duration,
    /// Output tokens one model call may produce (`max_tokens`; lowered for small windows).
    pub step_tokens: u32,
    /// Tokens (estimated prompt + output) the whole run may spend.
    pub total_tokens: u32,
}

/// Something the UI can show while the agent works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentEvent {
    /// A model turn starts.
    Turn(u32),
    /// The model called a tool.
    ToolCall {
        /// Tool name.
        name: String,
        /// JSON arguments.
        arguments: String,
    },
    /// A tool answered.
    ToolResult {
        /// Tool name.
        name: String,
        /// Whether it succeeded.
        ok: bool,
    },
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentOutcome {
    /// The model stopped calling tools; its last text is the summary.
    Completed {
        /// Final text.
        summary: String,
        /// Turns used.
        turns: u32,
    },
    /// The turn limit was reached.
    MaxTurns(u32),
    /// The wall-time limit was reached.
    TimedOut,
    /// The caller cancelled.
    Cancelled,
    /// The model call failed.
    Failed(String),
}

/// What the driver must do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Call the model with [`AgentMachine::messages`].
    CallModel,
    /// Do not run this call (a repeat): report `note` with [`AgentMachine::on_tool_result`].
    SkipTool {
        /// Call id.
        id: String,
        /// What the model is told instead.
        note: String,
    },
    /// Run a tool and report with [`AgentMachine::on_tool_result`].
    RunTool {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// JSON arguments.
        arguments: String,
    },
    /// Show an event.
    Emit(AgentEvent),
    /// Stop.
    Finish(AgentOutcome),
}

/// The state of one run.
#[derive(Debug, Clone)]
pub struct AgentMachine {
    limits: AgentLimits,
    messages: Vec<Message>,
    turn: u32,
    pending: Vec<(String, String)>,
    finished: bool,
    /// Whether the memory tools are offered at all.
    tools: bool,
    /// The last turn offers no tools, so the model has to answer in words (chat).
    answer_on_last_turn: bool,
    /// Each exact call (name + arguments) of the last round, and in how many consecutive rounds
    /// it was made.
    calls_seen: HashMap<(String, String), u32>,
    /// The current step was already asked again after an answer cut at its output cap.
    cut_retried: bool,
    /// The sampling temperature of a conversation's replies (`None`: the server's default).
    reply_temperature: Option<f32>,
}

/// Third time the same call is made, the run stops.
const MAX_SAME_CALL: u32 = 3;

impl AgentMachine {
    /// A run with a system prompt and a task.
    #[must_use]
    pub fn new(limits: AgentLimits, system: impl Into<String>, task: impl Into<String>) -> Self {
        Self {
            limits,
            messages: vec![Message::system(system), Message::user(task)],
            turn: 0,
            pending: Vec::new(),
            finished: false,
            tools: true,
            answer_on_last_turn: false,
            calls_seen: HashMap::new(),
            cut_retried: false,
            reply_temperature: None,
        }
    }

    /// A chat conversation (system prompt, history, the new user message): the tools are offered
    /// when `tools` is set, except on the last turn, which must answer in words.
    #[must_use]
    pub fn conversation(limits: AgentLimits, messages: Vec<Message>, tools: bool) -> Self {
        Self {
            limits,
            messages,
            turn: 0,
            pending: Vec::new(),
            finished: false,
            tools,
            answer_on_last_turn: true,
            calls_seen: HashMap::new(),
            cut_retried: false,
            reply_temperature: None,
        }
    }

    /// Sample a conversation's replies at `t` (a small model answers more to the point cooler).
    #[must_use]
    pub fn with_reply_temperature(mut self, t: f32) -> Self {
        self.reply_temperature = Some(t);
        self
    }

    /// The sampling temperature of a conversation's replies (`None`: the server's default).
    #[must_use]
    pub fn reply_temperature(&self) -> Option<f32> {
        self.reply_temperature
    }

    /// Whether the next model call offers the tools. Tool calls in a reply to a call that
    /// offered none are ignored.
    #[must_use]
    pub fn offers_tools(&self) -> bool {
        self.tools && !(self.answer_on_last_turn && self.turn >= self.limits.max_turns)
    }

    /// The conversation so far (what the model sees).
    #[must_use]
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Whether the run is over.
    #[must_use]
    pub fn finished(&self) -> bool {
        self.finished
    }

    fn finish(&mut self, outcome: AgentOutcome) -> Vec<Effect> {
        self.finished = true;
        vec![Effect::Finish(outcome)]
    }

    fn next_turn(&mut self) -> Vec<Effect> {
        self.turn += 1;
        vec![Effect::Emit(AgentEvent::Turn(self.turn)), Effect::CallModel]
    }

    /// Begin.
    pub fn start(&mut self) -> Vec<Effect> {
        if self.finished {
            return Vec::new();
        }
        self.next_turn()
    }

    /// The model answered.
    pub fn on_model_reply(&mut self, mut reply: Message, elapsed: Duration) -> Vec<Effect> {
        if self.finished {
            return Vec::new();
        }
        if !self.offers_tools() {
            reply.tool_calls.clear();
        }
        self.cut_retried = false;
        let calls = reply.tool_calls.clone();
        let text = reply.content.clone().unwrap_or_default();
        self.messages.push(reply);
        if calls.is_empty() {
            let turns = self.turn;
            return self.finish(AgentOutcome::Completed {
                summary: text.trim().to_owned(),
                turns,
            });
        }
        if elapsed >= self.limits.wall_time {
            return self.finish(AgentOutcome::TimedOut);
        }
        let mut effects = Vec::with_capacity(calls.len() * 2);
        // A call repeats when the round before made it too: the model is going round in circles.
        // (The same call after other work in between is a new attempt.)
        let previous = std::mem::take(&mut self.calls_seen);
        for c in calls {
            let key = (
                c.function.name.clone(),
                c.function.arguments.trim().to_owned(),
            );
            let streak = previous.get(&key).copied().unwrap_or(0) + 1;
            let seen = self.calls_seen.entry(key).or_insert(streak);
            if *seen >= MAX_SAME_CALL {
                let name = c.function.name;
                return self.finish(AgentOutcome::Failed(format!(
                    "the model made the same {name} call {MAX_SAME_CALL} times; stopped"
                )));
            }
            self.pending.push((c.id.clone(), c.function.name.clone()));
            effects.push(Effect::Emit(AgentEvent::ToolCall {
                name: c.function.name.clone(),
                arguments: c.function.arguments.clone(),
            }));
            if *seen > 1 {
                effects.push(Effect::SkipTool {
                    id: c.id,
                    note: "You already made this exact call; its result is above. Do not repeat it: take the next step, or finish.".to_owned(),
                });
            } else {
                effects.push(Effect::RunTool {
                    id: c.id,
                    name: c.function.name,
                    arguments: c.function.arguments,
                });
            }
        }
        effects
    }

    /// The answer stopped at the output cap (`finish_reason: "length"`) and cannot be used as it
    /// is: the first time in a step the model is asked again, shorter; the second time the run
    /// stops with that reason.
    pub fn on_cut_reply(&mut self, cap: u32) -> Vec<Effect> {
        if self.finished {
            return Vec::new();
        }
        if self.cut_retried {
            return self.finish(AgentOutcome::Failed(format!(
                "the model's answer ran past its {cap}-token output limit twice; stopped"
            )));
        }
        self.cut_retried = true;
        self.messages.push(Message::user(format!(
            "Your last answer was cut off at the {cap}-token limit and was discarded. Answer again, much shorter: \
             one tool call with brief arguments, or one short sentence if you are done."
        )));
        vec![Effect::CallModel]
    }

    /// An answer that could not be used (the text protocol could not parse an action): the
    /// problem is fed back and the next turn starts, while turns remain.
    pub fn on_unusable_reply(&mut self, text: String, problem: &str) -> Vec<Effect> {
        if self.finished {
            return Vec::new();
        }
        self.messages
            .push(Message::new(mnemo_llm::Role::Assistant, text));
        if self.turn >= self.limits.max_turns {
            let turns = self.turn;
            return self.finish(AgentOutcome::Failed(format!(
                "the model's answers could not be used ({problem}) in {turns} turns; stopped"
            )));
        }
        self.messages.push(Message::user(format!(
            "That answer could not be used: {problem}. Reply with exactly one JSON object as described."
        )));
        self.next_turn()
    }

    /// The run's token budget is spent: stop, saying so.
    pub fn on_budget_spent(&mut self, spent: u64) -> Vec<Effect> {
        if self.finished {
            return Vec::new();
        }
        let budget = self.limits.total_tokens;
        self.finish(AgentOutcome::Failed(format!(
            "the run used its token budget ({spent} of {budget} tokens); stopped"
        )))
    }

    /// A tool answered.
    pub fn on_tool_result(
        &mut self,
        id: &str,
        ok: bool,
        output: String,
        elapsed: Duration,
    ) -> Vec<Effect> {
        if self.finished {
            return Vec::new();
        }
        let Some(pos) = self.pending.iter().position(|(pid, _)| pid == id) else {
            return Vec::new();
        };
        let (_, name) = self.pending.remove(pos);
        self.messages.push(Message::tool_result(id, output));
        let mut effects = vec![Effect::Emit(AgentEvent::ToolResult { name, ok })];
        if !self.pending.is_empty() {
            return effects;
        }
        if elapsed >= self.limits.wall_time {
            effects.extend(self.finish(AgentOutcome::TimedOut));
        } else if self.turn >= self.limits.max_turns {
            let turns = self.turn;
            effects.extend(self.finish(AgentOutcome::MaxTurns(turns)));
        } else {
            effects.extend(self.next_turn());
        }
        effects
    }

    /// The model call failed.
    pub fn on_model_error(&mut self, error: String) -> Vec<Effect> {
        if self.finished {
            return Vec::new();
        }
        self.finish(AgentOutcome::Failed(error))
    }

    /// The limits of this run.
    #[must_use]
    pub fn limits(&self) -> AgentLimits {
        self.limits
    }

    /// The wall time ran out while waiting for the model.
    pub fn on_timeout(&mut self) -> Vec<Effect> {
        if self.finished {
            return Vec::new();
        }
        self.finish(AgentOutcome::TimedOut)
    }

    /// The caller cancelled.
    pub fn on_cancel(&mut self) -> Vec<Effect> {
        if self.finished {
            return Vec::new();
        }
        self.finish(AgentOutcome::Cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mnemo_llm::{FunctionCall, Role, ToolCall};

    const LIMITS: AgentLimits = AgentLimits {
        max_turns: 2,
        wall_time: Duration::from_secs(60),
        step_tokens: 512,
        total_tokens: 100_000,
    };
    const T: Duration = Duration::from_secs(1);

    fn calls(names: &[&str]) -> Message {
        Message {
            role: Role::Assistant,
            content: None,
            tool_calls: names
                .iter()
                .enumerate()
                .map(|(i, n)| ToolCall {
                    id: format!("c{i}"),
                    kind: "function".into(),
                    function: FunctionCall {
                        name: (*n).into(),
                        arguments: "{}".into(),
                    },
                })
                .collect(),
            tool_call_id: None,
        }
    }

    #[test]
    fn a_text_reply_completes() {
        let mut m = AgentMachine::new(LIMITS, "sys", "task");
        assert_eq!(
            m.start(),
            vec![Effect::Emit(AgentEvent::Turn(1)), Effect::CallModel]
        );
        let fx = m.on_model_reply(Message::new(Role::Assistant, " Saved 1 memory. "), T);
        assert_eq!(
            fx,
            vec![Effect::Finish(AgentOutcome::Completed {
                summary: "Saved 1 memory.".into(),
                turns: 1
            })]
        );
        assert!(m.finished());
        assert!(
            m.on_model_reply(Message::user("late"), T).is_empty(),
            "nothing after the end"
        );
    }

    #[test]
    fn tool_calls_run_then_the_model_is_called_again_with_results() {
        let mut m = AgentMachine::new(LIMITS, "sys", "task");
        m.start();
        let fx = m.on_model_reply(calls(&["read_file", "glob"]), T);
        assert_eq!(
            fx.iter()
                .filter(|e| matches!(e, Effect::RunTool { .. }))
                .count(),
            2
        );
        assert_eq!(
            fx.iter()
                .filter(|e| matches!(e, Effect::Emit(AgentEvent::ToolCall { .. })))
                .count(),
            2
        );
        let fx = m.on_tool_result("c0", true, "content".into(), T);
        assert_eq!(
            fx,
            vec![Effect::Emit(AgentEvent::ToolResult {
                name: "read_file".into(),
                ok: true
            })],
            "waits for all"
        );
        assert!(
            m.on_tool_result("unknown", true, String::new(), T)
                .is_empty()
        );
        let fx = m.on_tool_result("c1", false, "error".into(), T);
        assert_eq!(fx.last(), Some(&Effect::CallModel));
        assert!(fx.contains(&Effect::Emit(AgentEvent::Turn(2))));
        let roles: Vec<Role> = m.messages().iter().map(|x| x.role).collect();
        assert_eq!(
            roles,
            [
                Role::System,
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::Tool
            ]
        );
        assert_eq!(m.messages()[3].tool_call_id.as_deref(), Some("c0"));
    }

    #[test]
    fn a_conversation_answers_in_words_on_its_last_turn_and_without_tools() {
        let mut m = AgentMachine::conversation(LIMITS, vec![Message::user("hi")], true);
        m.start();
        assert!(m.offers_tools());
        m.on_model_reply(calls(&["read_file"]), T);
        let fx = m.on_tool_result("c0", true, String::new(), T);
        assert_eq!(fx.last(), Some(&Effect::CallModel));
        assert!(!m.offers_tools(), "the last turn offers no tools");
        let fx = m.on_model_reply(calls(&["write_file"]), T);
        assert!(
            matches!(
                fx.as_slice(),
                [Effect::Finish(AgentOutcome::Completed { turns: 2, .. })]
            ),
            "calls to tools not offered are ignored: {fx:?}"
        );
        let mut m = AgentMachine::conversation(LIMITS, vec![Message::user("hi")], false);
        m.start();
        assert!(!m.offers_tools());
        let fx = m.on_model_reply(calls(&["write_file"]), T);
        assert!(matches!(
            fx.as_slice(),
            [Effect::Finish(AgentOutcome::Completed { .. })]
        ));
    }

    #[test]
    fn a_cut_answer_is_asked_again_once_then_the_run_stops() {
        let mut m = AgentMachine::new(LIMITS, "sys", "task");
        m.start();
        assert_eq!(m.on_cut_reply(512), vec![Effect::CallModel]);
        assert!(
            m.messages()
                .last()
                .and_then(|x| x.content.as_deref())
                .is_some_and(|c| c.contains("512-token limit"))
        );
        let fx = m.on_cut_reply(512);
        assert!(
            matches!(fx.as_slice(), [Effect::Finish(AgentOutcome::Failed(r))] if r.contains("output limit twice")),
            "{fx:?}"
        );
        // A usable answer in between resets the retry.
        let mut m = AgentMachine::new(LIMITS, "sys", "task");
        m.start();
        m.on_cut_reply(512);
        m.on_model_reply(calls(&["glob"]), T);
        m.on_tool_result("c0", true, String::new(), T);
        assert_eq!(m.on_cut_reply(512), vec![Effect::CallModel]);
    }

    #[test]
    fn the_same_call_is_answered_from_memory_then_stops_the_run() {
        let limits = AgentLimits {
            max_turns: 6,
            ..LIMITS
        };
        let mut m = AgentMachine::new(limits, "sys", "task");
        m.start();
        m.on_model_reply(calls(&["glob"]), T);
        m.on_tool_result("c0", true, String::new(), T);
        // Other work in between: the same call again is a new attempt.
        m.on_model_reply(calls(&["read_file"]), T);
        m.on_tool_result("c0", true, String::new(), T);
        let fx = m.on_model_reply(calls(&["glob"]), T);
        assert!(
            fx.iter().any(|e| matches!(e, Effect::RunTool { .. })),
            "{fx:?}"
        );
        m.on_tool_result("c0", true, String::new(), T);
        let fx = m.on_model_reply(calls(&["glob"]), T);
        assert!(
            fx.iter().any(|e| matches!(e, Effect::SkipTool { .. })),
            "the repeat is not run: {fx:?}"
        );
        m.on_tool_result("c0", false, "already".into(), T);
        let fx = m.on_model_reply(calls(&["glob"]), T);
        assert!(
            matches!(fx.as_slice(), [Effect::Finish(AgentOutcome::Failed(r))] if r.contains("same glob call 3 times")),
            "{fx:?}"
        );
    }

    #[test]
    fn unusable_answers_are_fed_back_while_turns_remain() {
        let mut m = AgentMachine::new(LIMITS, "sys", "task");
        m.start();
        let fx = m.on_unusable_reply("blah".into(), "no JSON object");
        assert_eq!(fx.last(), Some(&Effect::CallModel));
        assert!(
            m.messages()
                .last()
                .and_then(|x| x.content.as_deref())
                .is_some_and(|c| c.contains("no JSON object"))
        );
        let fx = m.on_unusable_reply("blah".into(), "no JSON object");
        assert!(matches!(
            fx.as_slice(),
            [Effect::Finish(AgentOutcome::Failed(_))]
        ));
        let mut m = AgentMachine::new(LIMITS, "sys", "task");
        m.start();
        assert!(matches!(
            m.on_budget_spent(10).as_slice(),
            [Effect::Finish(AgentOutcome::Failed(r))] if r.contains("token budget")
        ));
    }

    #[test]
    fn max_turns_stop_the_run() {
        let mut m = AgentMachine::new(LIMITS, "sys", "task");
        m.start();
        m.on_model_reply(calls(&["glob"]), T);
        m.on_tool_result("c0", true, String::new(), T);
        m.on_model_reply(calls(&["glob"]), T);
        let fx = m.on_tool_result("c0", true, String::new(), T);
        assert_eq!(fx.last(), Some(&Effect::Finish(AgentOutcome::MaxTurns(2))));
    }

    #[test]
    fn wall_time_cancel_and_model_errors_stop_the_run() {
        let mut m = AgentMachine::new(LIMITS, "s", "t");
        m.start();
        assert_eq!(
            m.on_model_reply(calls(&["glob"]), Duration::from_secs(61)),
            vec![Effect::Finish(AgentOutcome::TimedOut)]
        );
        let mut m = AgentMachine::new(LIMITS, "s", "t");
        m.start();
        m.on_model_reply(calls(&["glob"]), T);
        assert_eq!(
            m.on_tool_result("c0", true, String::new(), Duration::from_secs(61))
                .last(),
            Some(&Effect::Finish(AgentOutcome::TimedOut))
        );
        let mut m = AgentMachine::new(LIMITS, "s", "t");
        m.start();
        assert_eq!(m.on_cancel(), vec![Effect::Finish(AgentOutcome::Cancelled)]);
        assert!(m.on_cancel().is_empty());
        let mut m = AgentMachine::new(LIMITS, "s", "t");
        m.start();
        assert_eq!(
            m.on_model_error("unreachable".into()),
            vec![Effect::Finish(AgentOutcome::Failed("unreachable".into()))]
        );
    }
}
