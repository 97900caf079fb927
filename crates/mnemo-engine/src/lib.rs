//! Mnemo's memory loop:
//!
//! - **Recall** ([`recall()`]): lexical, hybrid (words and meaning) or picked by the
//!   fast model, plus conversation records; the prompt block; search; the calibrated gate
//!   (fit and judged in the `recall_eval` bench; recall does not read it).
//! - The **memory agent**: a pure state machine in [`agent`], its confined tools in [`tools`],
//!   the async driver [`run_agent`] (context budgets in `budget`; for servers without tool
//!   calls, `mnemo_llm::text_tools`), and the `planner` for models that do not call tools well.
//! - The writers built on it: **extraction** after chat turns (`extract`), **remember**,
//!   **dream** (consolidation: the agent or the mechanical path) and **forget**.
//! - **Chat** (`chat`): sessions, one turn (recall, a streamed reply, extraction after) and
//!   context compaction.
//! - Filling the index's vectors (`embed`), the status panel's figures (`stats`), and
//!   **secret scanning** (`secrets`, from `mnemo-store`).
//!
//! Decision logic is pure and tested without IO (the agent machine, budgets, scheduling, the
//! mechanical dream, compaction); the runs around it touch the vault and the model.

pub mod agent;
pub mod budget;
pub mod chat;
pub mod dream;
mod driver;
pub mod embed;
pub mod extract;
pub mod forget;
pub mod planner;
pub mod recall;
pub mod remember;
pub use mnemo_store::secrets;
pub mod stats;
pub mod telemetry;
pub mod tools;

pub use agent::{AgentEvent, AgentLimits, AgentMachine, AgentOutcome, Effect};
pub use driver::drive;
use mnemo_llm::{CancellationToken, Client};
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
