//! A person's curation: archive a memory (out of recall and MEMORY.md, still
//! searchable, restored by un-archiving) and replace a fact (the old entry kept as superseded).
//! Both are a person's own edits: they land whatever the review mode.

use mnemo_core::{Error, ErrorCode, Result};
use mnemo_store::doc::{self, DocKind};
use mnemo_store::format::TopicFile;

use crate::Api;
use crate::wire::WriteOutcome;

fn text_of(rel: &str, cur: Option<&[u8]>, workspace: &str) -> Result<String> {
    if doc::doc_kind(rel) != Some(DocKind::Topic) {
        return Err(Error::usage(format!(
            "`{rel}` is not a topic file: only memories with frontmatter can be archived or have facts replaced"
        )));
    }
    let bytes = cur
        .ok_or_else(|| Error::not_found(format!("no memory `{rel}` in workspace `{workspace}`")))?;
    String::from_utf8(bytes.to_vec()).map_err(|_| {
        Error::new(
            ErrorCode::InvalidContent,
            format!("`{rel}` is not UTF-8 text"),
        )
    })
}

/// The 1-based entry index an entry id names (`path` → 1, `path:N` → N).
fn entry_index(id: &str, rel: &str) -> Result<usize> {
    match id.strip_prefix(rel) {
        Some("") => Ok(1),
        Some(rest) => rest
            .strip_prefix(':')
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .ok_or_else(|| bad_entry(id, rel)),
        None => Err(bad_entry(id, rel)),
    }
}

fn bad_entry(id: &str, rel: &str) -> Error {
    Error::new(
        ErrorCode::InvalidArguments,
        format!(
            "`{id}` is not an entry of `{rel}`: entry ids are `{rel}` or `{rel}:N` (see `mnemo show {rel}`)"
        ),
    )
}

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// Archive a memory (`archived: true`: out of recall and MEMORY.md, still searchable) or
    /// restore it.
    pub fn set_archived(
        &self,
        workspace: String,
        path: String,
        archived: bool,
    ) -> Result<WriteOutcome> {
        let ws = self.vault.workspace(&workspace)?;
        self.vault
            .mutate(&ws, &path, self.person, None, |cur, rel| {
                let mut file = TopicFile::parse(&text_of(rel, cur, &workspace)?);
                file.set_archived(archived)?;
                Ok(Some(file.render().into_bytes()))
            })
            .map(Into::into)
    }

    /// Replace a fact: entry `entry` (an id from `get`) becomes `text`; the old entry stays,
    /// marked superseded (when, by what, `why`), and is never recalled again.
    pub fn replace_entry(
        &self,
        workspace: String,
        path: String,
        entry: String,
        text: String,
        why: Option<String>,
    ) -> Result<WriteOutcome> {
        if text.trim().is_empty() {
            return Err(Error::usage(
                "the new fact is empty: write what replaces it",
            ));
        }
        let ws = self.vault.workspace(&workspace)?;
        let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
        self.vault.mutate(&ws, &path, self.person, None, |cur, rel| {
            let old = text_of(rel, cur, &workspace)?;
            let index = entry_index(&entry, rel)?;
            let new = mnemo_store::supersede::replace_entry(&old, index, &text, &today, why.as_deref())
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::Conflict,
                        format!("`{entry}` is not a current entry of `{rel}` (it may be superseded already): reload it"),
                    )
                })?;
            TopicFile::parse(&new).check()?;
            Ok(Some(new.into_bytes()))
        })
        .map(Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_ids_name_their_entry() {
        assert_eq!(entry_index("a.md", "a.md").unwrap(), 1);
        assert_eq!(entry_index("a.md:3", "a.md").unwrap(), 3);
        assert!(entry_index("b.md:1", "a.md").is_err());
        assert!(entry_index("a.md:0", "a.md").is_err());
        assert!(entry_index("a.md:x", "a.md").is_err());
    }
}
