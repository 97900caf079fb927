//! Filling the index's vectors: every distinct content without a usable vector for
//! the model is embedded in batches of similar length and stored by content hash. The model is
//! passed in as a function, so this stays free of the model runtime (the API passes
//! `mnemo_embed::Embedder::embed`; benches do the same).

use mnemo_core::{Error, ErrorCode, Result};
use mnemo_store::Vault;

/// Contents embedded per forward pass.
pub const BATCH: usize = 32;
/// Jobs read from the index per round.
const ROUND: usize = 512;

/// Embeds a batch of texts: one (unit vector, truncated) per text.
pub type EmbedFn<'a> = dyn Fn(&[&str]) -> Result<Vec<(Vec<f32>, bool)>> + 'a;

/// The model as `fill` needs it: id, vector length, and texts → (unit vector, truncated).
pub struct Model<'a> {
    /// Model id (vectors are stored under it).
    pub id: &'a str,
    /// Vector length.
    pub dim: usize,
    /// Embed a batch.
    pub embed: &'a EmbedFn<'a>,
}

/// What a fill did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Filled {
    /// Contents embedded (docs).
    pub embedded: u64,
    /// Chunks of conversation records embedded (`mnemo_store::index::record_chunks`).
    pub chunks: u64,
    /// Of which too long for the model (embedded from their first part).
    pub truncated: u64,
    /// Stale vectors removed first (deleted or changed files, other models, damaged rows).
    pub collected: u64,
}

/// Fill missing vectors of a scope (`None`: every workspace). `progress(done, total)` after each
/// batch; `stop()` is asked between batches (a stopped fill keeps what it stored).
pub fn fill(
    vault: &Vault,
    model: &Model<'_>,
    workspace: Option<&str>,
    stop: &dyn Fn() -> bool,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Filled> {
    let mut out = Filled {
        collected: vault.gc_vectors(model.id, model.dim)? as u64,
        ..Filled::default()
    };
    let counts = vault.vector_counts(workspace, model.id, model.dim)?;
    let total = counts.total.saturating_sub(counts.embedded);
    let mut last_round: Option<Vec<String>> = None;
    loop {
        let mut jobs = vault.vectors_missing(workspace, model.id, model.dim, ROUND)?;
        if jobs.is_empty() {
            return Ok(out);
        }
        let hashes: Vec<String> = jobs.iter().map(|j| j.hash.clone()).collect();
        if last_round.as_ref() == Some(&hashes) {
            return Err(Error::new(
                ErrorCode::Io,
                "embedding made no progress: the vectors could not be stored",
            ));
        }
        last_round = Some(hashes);
        // Similar lengths batch together: less padding.
        jobs.sort_by_key(|j| j.text.len());
        for chunk in jobs.chunks(BATCH) {
            if stop() {
                return Ok(out);
            }
            let texts: Vec<&str> = chunk.iter().map(|j| j.text.as_str()).collect();
            let vecs = (model.embed)(&texts)?;
            let rows: Vec<(String, Vec<f32>, bool)> = chunk
                .iter()
                .zip(vecs)
                .map(|(j, (v, cut))| {
                    out.truncated += u64::from(cut);
                    (j.hash.clone(), v, cut)
                })
                .collect();
            vault.store_vectors(model.id, &rows)?;
            // Progress counts docs, as the status does; a record's chunks come along.
            let chunks = chunk.iter().filter(|j| j.chunk).count() as u64;
            out.embedded += rows.len() as u64 - chunks;
            out.chunks += chunks;
            progress(out.embedded, total.max(out.embedded));
        }
    }
}
