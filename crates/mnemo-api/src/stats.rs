//! The status panel's figures (computed by `mnemo_engine::stats`) and the automatic-memory
//! switches.

use mnemo_core::Result;
use mnemo_store::settings;

use crate::Api;
use crate::wire::MemoryStats;

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// Whether extraction runs after chat turns in a workspace (on unless switched off).
    pub fn auto_extract(&self, workspace: String) -> Result<bool> {
        let ws = self.vault.workspace(&workspace)?;
        Ok(self.switches(&ws).auto_extract)
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
        let mut stats = mnemo_engine::stats::compute(&self.vault, &ws, self.switches(&ws))?;
        let client = self.model.client();
        if client.settings().is_configured() {
            stats.extraction = Some(mnemo_engine::planner::choice::current(
                &self.vault.home().root,
                &client,
            ));
        }
        Ok(stats.into())
    }

    /// Whether chat turns are kept as conversation records in a workspace.
    pub fn chat_records(&self, workspace: String) -> Result<bool> {
        let ws = self.vault.workspace(&workspace)?;
        Ok(self.switches(&ws).chat_records)
    }

    /// Switch conversation records for a workspace; returns the new setting. Records already
    /// kept stay (forget or delete them like any memory).
    pub fn set_chat_records(&self, workspace: String, enabled: bool) -> Result<bool> {
        let ws = self.vault.workspace(&workspace)?;
        settings::set_switch(
            &self.vault.home().root,
            settings::CHAT_RECORDS,
            &ws.id,
            enabled,
        )?;
        Ok(enabled)
    }
}
