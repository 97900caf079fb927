//! The status panel's figures (computed by `mnemo_engine::stats`) and the automatic-memory
//! switches.

use mnemo_core::Result;
use mnemo_engine::stats::MemoryStats;
use mnemo_store::settings;

use crate::Api;

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// Whether extraction runs after chat turns in a workspace (on unless switched off).
    pub fn auto_extract(&self, workspace: String) -> Result<bool> {
        let ws = self.vault.workspace(&workspace)?;
        Ok(mnemo_engine::extract::auto_enabled(&self.vault, &ws))
    }

    /// Switch automatic extraction for a workspace; returns the new setting.
    pub fn set_auto_extract(&self, workspace: String, enabled: bool) -> Result<bool> {
        let ws = self.vault.workspace(&workspace)?;
        settings::set_switch(
            &self.vault.home().root,
            settings::AUTO_EXTRACT,
            &ws.id,
            enabled,
        )?;
        Ok(enabled)
    }

    /// The status panel's figures for a workspace.
    pub fn stats(&self, workspace: String) -> Result<MemoryStats> {
        let ws = self.vault.workspace(&workspace)?;
        if !self.watching() {
            self.vault.sync(&ws)?;
        }
        mnemo_engine::stats::compute(&self.vault, &ws)
    }
}
