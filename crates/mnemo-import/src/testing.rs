//! What the import readers' tests share: the fixtures under `tests/fixtures/import/` (real
//! export shapes, our own text) and reading one as the importer does.

use std::path::{Path, PathBuf};

use super::ImportFormat;
use super::conversations::{Conversation, for_each};
use super::stream::Next;

/// A fixture file's path.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name)
}

/// Every conversation of a fixture, as the importer reads it.
pub fn read(name: &str, format: ImportFormat) -> Vec<Conversation> {
    let mut out = Vec::new();
    for_each(&fixture(name), format, |c| {
        out.push(c);
        Ok(Next::More)
    })
    .unwrap();
    out
}

/// Turns as `(from the person, text)`.
pub fn turns(list: &[(bool, &str)]) -> Vec<(bool, String)> {
    list.iter().map(|(u, t)| (*u, (*t).to_owned())).collect()
}
