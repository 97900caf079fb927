//! Embedding vectors through the vault: the index owns them (`index::vectors`);
//! these are the doors the embedding task and hybrid search use.

use mnemo_core::Result;

use super::{Vault, guard};
use crate::doc::DocKind;
use crate::index::{EmbedJob, Hit, VectorCounts};

impl Vault {
    /// Distinct contents (of one workspace, or all) without a usable vector for `model`.
    pub fn vectors_missing(
        &self,
        workspace: Option<&str>,
        model: &str,
        dim: usize,
        limit: usize,
    ) -> Result<Vec<EmbedJob>> {
        guard(&self.index).vectors_missing(workspace, model, dim, limit)
    }

    /// Store computed vectors: (content hash, unit vector, truncated).
    pub fn store_vectors(&self, model: &str, rows: &[(String, Vec<f32>, bool)]) -> Result<()> {
        guard(&self.index).store_vectors(model, rows)
    }

    /// How many docs of a scope have a vector for `model`.
    pub fn vector_counts(
        &self,
        workspace: Option<&str>,
        model: &str,
        dim: usize,
    ) -> Result<VectorCounts> {
        guard(&self.index).vector_counts(workspace, model, dim)
    }

    /// How many docs a scope has, counted up to `cap`.
    pub fn doc_count_capped(&self, workspace: Option<&str>, cap: usize) -> Result<usize> {
        guard(&self.index).doc_count_capped(workspace, cap)
    }

    /// Whether any vector of `model` is stored at all.
    pub fn has_vectors(&self, model: &str) -> Result<bool> {
        guard(&self.index).has_vectors(model)
    }

    /// Drop vectors of deleted or changed content and of other models; then damaged ones.
    /// Returns how many rows went.
    pub fn gc_vectors(&self, model: &str, dim: usize) -> Result<usize> {
        let mut ix = guard(&self.index);
        Ok(ix.gc_vectors(model)? + ix.drop_damaged_vectors(model, dim)?)
    }

    /// Nearest docs to a query vector, from the index as it is (cosine as the score).
    pub fn vector_search_indexed(
        &self,
        workspace: Option<&str>,
        model: &str,
        query: &[f32],
        limit: usize,
        kind: Option<DocKind>,
    ) -> Result<Vec<Hit>> {
        Ok(self
            .vector_search_against(workspace, model, query, limit, kind, None)?
            .0)
    }

    /// [`Self::vector_search_indexed`], each hit with its doc's null over `background`
    /// (`Index::vector_search_against`), and how many docs of the scope have a vector.
    pub fn vector_search_against(
        &self,
        workspace: Option<&str>,
        model: &str,
        query: &[f32],
        limit: usize,
        kind: Option<DocKind>,
        background: Option<&[f32]>,
    ) -> Result<(Vec<Hit>, usize)> {
        guard(&self.index).vector_search_against(workspace, model, query, limit, kind, background)
    }

    /// Conversation records nearest to a query vector by their best chunk of turns
    /// (`Index::record_chunk_search`): each hit's passage is that chunk. Also returns how many
    /// chunks have a vector.
    pub fn record_chunk_search(
        &self,
        workspace: Option<&str>,
        model: &str,
        query: &[f32],
        limit: usize,
        background: Option<&[f32]>,
    ) -> Result<(Vec<Hit>, usize)> {
        guard(&self.index).record_chunk_search(workspace, model, query, limit, background)
    }
}
