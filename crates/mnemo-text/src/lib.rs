//! Memory text, pure: what a memory file says and what it may not say. Nothing here touches the
//! disk — the vault (`mnemo-store`) reads and writes, this crate parses, renders and judges.
//!
//! - [`format`]: topic files (frontmatter + entries), parsed without failing and rendered back
//!   byte for byte; entry summaries and their keys.
//! - [`memory_md`]: the `MEMORY.md` index — its lines, its size caps, Mnemo's block inside
//!   another tool's file.
//! - [`kind`]: what a path is — a topic, a daily log, a conversation record, pinned.
//! - [`files`]: the size cap, the content hash and printable names every reader shares.
//! - [`secrets`]: the one secret gate — spans found by rule, redacted by span, streamed.
//! - [`tokenize`]: the index's tokens (CJK-aware, NFKC-folded, stemmed).
//! - [`merge`], [`supersede`]: the three-way entry merge sync and the inbox share; a replaced
//!   fact kept as superseded.
//! - [`prose`]: a first meaningful sentence, shortened at a word.
//! - [`par`]: a bounded parallel map for CPU-bound passes.

pub mod files;
pub mod format;
pub mod kind;
pub mod memory_md;
pub mod merge;
pub mod par;
pub mod prose;
pub mod secrets;
pub mod supersede;
pub mod tokenize;
