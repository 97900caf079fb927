//! Mnemo's memory loop. For now: **recall** (SPEC §3) — pick at most five memories for a chat
//! turn and build the memory block of the system prompt. Model-driven selection (§3.2) and
//! hybrid vectors (§3.4) plug in here later; this crate already provides the lexical path they
//! fall back to.
//!
//! Decision logic is pure (`age_text`, `build_prompt`, `rank_lexical`, …) and tested without IO;
//! [`recall`] wires it to the vault's index.

pub mod recall;

pub use recall::{RecallRequest, RecallResult, Recalled, Strategy, recall};
