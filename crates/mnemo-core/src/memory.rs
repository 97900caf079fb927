//! A memory as a client writes it: a new one, or changes to one. The one shape every layer
//! passes — the wire (`create`, `update`), the CLI and the vault.

use serde::{Deserialize, Serialize};

use crate::MemoryType;

/// A new memory.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct NewMemory {
    /// Path relative to the memory root (`null` or blank: a slug of the name).
    pub path: Option<String>,
    /// Short title.
    pub name: String,
    /// One specific line.
    pub description: String,
    /// Memory type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    /// Body text.
    pub body: String,
}

/// Changes to a memory; `null` fields stay as they are.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type)]
pub struct Patch {
    /// New name.
    pub name: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// New type.
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// New body.
    pub body: Option<String>,
    /// The hash the client last read: refused with `conflict` if the file changed since.
    pub expected_hash: Option<String>,
}
