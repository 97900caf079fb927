//! What every write of the memory tools must pass: never under `chats/`, the pinned /
//! secret / changed-on-disk guard, the content check (frontmatter; a secret is refused by the vault's
//! one write gate), forgotten facts —
//! and corrections, which retire the old fact instead of rewriting it silently.

use mnemo_core::{Error, ErrorCode};
use mnemo_store::format::TopicFile;
use mnemo_store::{doc, fsutil};

use super::MemoryTools;
use crate::secrets;

impl MemoryTools<'_> {
    /// [`Self::confine`] for a path this run would change: never under `chats/`, whose
    /// conversation records only Mnemo's record writer writes (a model writing one
    /// would put words in the person's mouth).
    pub(super) fn confine_write(&self, path: &str) -> Result<(std::path::PathBuf, String), Error> {
        let (full, rel) = self.confine(path)?;
        mnemo_store::vault::refuse_records_folder(&rel)?;
        Ok((full, rel))
    }

    /// Refuse a change to `rel` whose current bytes are `cur`: pinned, or changed on disk since
    /// this run saw it.
    pub(super) fn guard(&self, rel: &str, cur: Option<&[u8]>) -> Result<(), Error> {
        if let Some(b) = cur
            && doc::is_pinned(rel, &String::from_utf8_lossy(b))
        {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("`{rel}` is pinned: memory jobs never change or delete it"),
            ));
        }
        if let Some(rules) = cur.and_then(|b| secrets::held(&String::from_utf8_lossy(b))) {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "`{rel}` holds what looks like a secret ({rules}): memory jobs never change or delete it; a person must remove the secret first"
                ),
            ));
        }
        if cur.is_none() && doc::in_pinned_folder(rel) {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("`{rel}` is in the pinned folder, which only people write"),
            ));
        }
        // A dream knows every file from its snapshot: one it never saw must still be absent.
        let expected = match self.known.get(rel) {
            Some(seen) => Some(seen.as_deref()),
            None if self.dream.is_some() => Some(None),
            None => None,
        };
        if let Some(seen) = expected
            && seen != cur.map(fsutil::hash).as_deref()
        {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "`{rel}` changed on disk since you read it: read it again before changing it"
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn check_content(rel: &str, content: &str) -> Result<(), Error> {
        if doc::doc_kind(rel) == Some(doc::DocKind::Topic) {
            TopicFile::parse(content).check()?;
        }
        Ok(())
    }

    /// What the user asked to forget is not written back by an agent: refuse an
    /// entry of `new` whose summary was forgotten — unless the file already holds it (a copy the
    /// user kept), so other changes to that file still go through.
    pub(super) fn check_forgotten(
        &self,
        rel: &str,
        new: &str,
        current: Option<&[u8]>,
    ) -> Result<(), Error> {
        if doc::doc_kind(rel) != Some(doc::DocKind::Topic) {
            return Ok(());
        }
        let present: std::collections::HashSet<String> = current
            .map(|b| {
                TopicFile::parse(&String::from_utf8_lossy(b))
                    .entries()
                    .iter()
                    .map(|e| mnemo_store::format::summary_key(&e.summary))
                    .collect()
            })
            .unwrap_or_default();
        for e in TopicFile::parse(new).entries() {
            if present.contains(&mnemo_store::format::summary_key(&e.summary)) {
                continue;
            }
            if let Some(at) = self.vault.forgotten_at(&self.ws.id, &e.summary)? {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!(
                        "\"{}\" was forgotten at the user's request ({at}): do not write it back (a person can add it again by hand)",
                        e.summary.chars().take(80).collect::<String>()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A rewrite of a topic file that replaces an entry keeps the old one as superseded:
    /// corrections retire the old fact instead of silently rewriting it.
    pub(super) fn retiring(&self, rel: &str, cur: Option<&[u8]>, new: &str) -> String {
        let Some(cur) = cur.filter(|_| doc::doc_kind(rel) == Some(doc::DocKind::Topic)) else {
            return new.to_owned();
        };
        let who = match self.origin.source {
            mnemo_core::ChangeSource::Extract => "extraction",
            mnemo_core::ChangeSource::Dream => "dream",
            mnemo_core::ChangeSource::Remember => "remember",
            mnemo_core::ChangeSource::Chat => "the chat model",
            mnemo_core::ChangeSource::Mcp => "an assistant over MCP",
            _ => "a memory job",
        };
        let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
        mnemo_store::supersede::retire(&String::from_utf8_lossy(cur), new, &today, who)
            .unwrap_or_else(|| new.to_owned())
    }
}
