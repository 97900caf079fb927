//! Shared by the recall benches and the recall eval test (`#[path]`-included): embed every
//! memory of a vault with a real model, through the engine's own `embed::fill`.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use mnemo_embed::Embedder;
use mnemo_store::Vault;

/// Embed every memory of the vault that lacks a vector; returns how many contents were embedded.
///
/// # Panics
/// When the model or the index fails (a bench or test stops there).
#[allow(dead_code)]
pub fn embed_all(vault: &Vault, model: &Embedder) -> u64 {
    embed_all_cached(vault, model, None)
}

/// As [`embed_all`], reading the vectors of texts this model embedded before from `cache` (a
/// file of text → vector, per model) and adding what it embeds now. The texts a test generates
/// are the same every run, so a 10,000-memory home costs its embedding once per machine, not
/// once per run; what recall does with the vectors is computed afresh every time. A cache that
/// does not read back (another model's, cut short) is ignored and rewritten.
///
/// # Panics
/// When the model or the index fails (a bench or test stops there).
#[allow(clippy::unwrap_used)]
pub fn embed_all_cached(vault: &Vault, model: &Embedder, cache: Option<&Path>) -> u64 {
    let dim = model.dim();
    let known = Mutex::new(cache.map(|p| read_cache(p, dim)).unwrap_or_default());
    let added = Mutex::new(0usize);
    let embed = |texts: &[&str]| -> mnemo_core::Result<Vec<(Vec<f32>, bool)>> {
        let mut known = known.lock().unwrap();
        let missing: Vec<&str> = texts
            .iter()
            .copied()
            .filter(|t| !known.contains_key(*t))
            .collect();
        if !missing.is_empty() {
            for (t, e) in missing.iter().zip(model.embed(&missing).unwrap()) {
                known.insert((*t).to_owned(), (e.vector, e.truncated));
            }
            *added.lock().unwrap() += missing.len();
        }
        Ok(texts.iter().map(|t| known[*t].clone()).collect())
    };
    let m = mnemo_engine::embed::Model {
        id: model.model_id(),
        dim,
        embed: &embed,
    };
    let n = mnemo_engine::embed::fill(vault, &m, None, &|| false, &mut |_, _| {})
        .unwrap()
        .embedded;
    if let Some(path) = cache
        && *added.lock().unwrap() > 0
    {
        write_cache(path, &known.lock().unwrap());
    }
    n
}

/// Where a test keeps a model's vectors: `$XDG_CACHE_HOME/mnemo/eval-vectors/<model id>.bin`
/// (else `~/.cache/…`), outside the clone.
#[allow(dead_code)]
pub fn cache_file(model: &Embedder, name: &str) -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(
        base.join("mnemo/eval-vectors")
            .join(format!("{name}-{}.bin", model.model_id())),
    )
}

const MAGIC: &[u8] = b"MNEMO-EVAL-VECTORS-1\n";

type Vectors = HashMap<String, (Vec<f32>, bool)>;

fn read_cache(path: &Path, dim: usize) -> Vectors {
    let Ok(bytes) = std::fs::read(path) else {
        return HashMap::new();
    };
    parse(&bytes, dim).unwrap_or_default()
}

fn parse(bytes: &[u8], dim: usize) -> Option<Vectors> {
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let mut out = HashMap::new();
    while !rest.is_empty() {
        let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let text = std::str::from_utf8(rest.get(4..4 + len)?).ok()?.to_owned();
        rest = &rest[4 + len..];
        let truncated = *rest.first()? == 1;
        let raw = rest.get(1..1 + 4 * dim)?;
        let v = raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect();
        rest = &rest[1 + 4 * dim..];
        out.insert(text, (v, truncated));
    }
    Some(out)
}

#[allow(clippy::unwrap_used)]
fn write_cache(path: &Path, vectors: &Vectors) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let mut buf = MAGIC.to_vec();
    for (text, (v, truncated)) in vectors {
        buf.extend_from_slice(&u32::try_from(text.len()).unwrap().to_le_bytes());
        buf.extend_from_slice(text.as_bytes());
        buf.push(u8::from(*truncated));
        for x in v {
            buf.extend_from_slice(&x.to_le_bytes());
        }
    }
    // Atomic: a run killed mid-write leaves the old cache or none, never half of one.
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let ok = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(&buf).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if ok.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
