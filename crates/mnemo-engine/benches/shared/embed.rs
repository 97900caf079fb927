//! Shared by the recall benches and the recall eval test (`#[path]`-included): embed every
//! memory of a vault with a real model, through the engine's own `embed::fill`.

use mnemo_embed::Embedder;
use mnemo_store::Vault;

/// Embed every memory of the vault that lacks a vector; returns how many contents were embedded.
///
/// # Panics
/// When the model or the index fails (a bench or test stops there).
#[allow(clippy::unwrap_used)]
pub fn embed_all(vault: &Vault, model: &Embedder) -> u64 {
    let embed = |texts: &[&str]| -> mnemo_core::Result<Vec<(Vec<f32>, bool)>> {
        Ok(model
            .embed(texts)
            .unwrap()
            .into_iter()
            .map(|e| (e.vector, e.truncated))
            .collect())
    };
    let m = mnemo_engine::embed::Model {
        id: model.model_id(),
        dim: model.dim(),
        embed: &embed,
    };
    mnemo_engine::embed::fill(vault, &m, None, &|| false, &mut |_, _| {})
        .unwrap()
        .embedded
}
