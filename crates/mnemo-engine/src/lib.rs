//! Mnemo's memory loop. So far: **recall** (SPEC §3, lexical path), the **memory agent** (§4.5:
//! a pure state machine in [`agent`], its confined tools in [`tools`], the async driver
//! [`run_agent`]) and **secret scanning** (§4.6). Extract, remember, dream and forget build on
//! these.
//!
//! Decision logic is pure and tested without IO; only [`recall()`] and [`run_agent`] touch the
//! vault and the model.

pub mod agent;
pub mod budget;
pub mod chat;
pub mod dream;
mod driver;
pub mod embed;
pub mod extract;
pub mod forget;
pub mod planner;
pub mod protocol;
pub mod recall;
pub mod remember;
pub use mnemo_store::secrets;
pub mod stats;
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
