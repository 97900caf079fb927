//! A project's key moved: a repository was known by its URL alone and is now known by
//! its URL and its first commit. What a home or the remote kept under the old key is adopted
//! under the new one — the remote's files as the new key's remote side until the new key is
//! written there, and this home's sync state and merge base as the new key's — so the first sync
//! after the change neither resends nor resurrects nor deletes anything. The old key's folder is
//! left on the remote as it was (a home still on an older Mnemo keeps syncing there).

use std::collections::BTreeMap;
use std::path::Path;

use mnemo_core::Result;

use super::Syncer;
use super::channel::Scope;
use super::git::Tree;
use super::layout::{self, Reach};
use super::state::{State, SyncSettings};

/// Keys adopted this round: new key → old key.
pub(super) type Adopted = BTreeMap<String, String>;

/// Copy every entry under `from/` to `to/` in `tree`, unless `to/` already holds something.
fn copy_key(tree: &mut Tree, from: &str, to: &str) -> bool {
    let (from, to) = (format!("{from}/"), format!("{to}/"));
    if tree.keys().any(|p| p.starts_with(&to)) {
        return false;
    }
    let moved: Vec<_> = tree
        .range(from.clone()..)
        .take_while(|(p, _)| p.starts_with(&from))
        .map(|(p, i)| (format!("{to}{}", &p[from.len()..]), i.clone()))
        .collect();
    let any = !moved.is_empty();
    tree.extend(moved);
    any
}

impl Syncer<'_> {
    /// Adopt old keys for this round: the remote's files (`theirs`) and this home's state. Call
    /// [`rebase_adopted`] on the merge base once it is computed.
    pub(super) fn adopt_legacy_keys(
        &self,
        settings: &SyncSettings,
        scope: &Scope,
        st: &mut State,
        theirs: &mut Tree,
    ) -> Result<Adopted> {
        let reach = Reach {
            claude: settings.claude,
            qwen: settings.qwen,
        };
        let mut adopted = Adopted::new();
        for ws in self.workspaces()? {
            if !scope.covers(&ws.id) {
                continue;
            }
            let Ok(key) =
                layout::key_of(&ws, reach, &|p| mnemo_store::repo::identity(Path::new(p)))
            else {
                continue;
            };
            let Ok(old) = layout::key_of(&ws, reach, &|p| {
                mnemo_store::repo::legacy_identity(Path::new(p))
            }) else {
                continue;
            };
            if old == key || adopted.contains_key(&key) {
                continue;
            }
            let inherited = (!st.keys.contains_key(&key))
                .then(|| st.keys.get(&old).cloned())
                .flatten();
            let took_state = inherited.is_some();
            if let Some(ks) = inherited {
                st.keys.insert(key.clone(), ks);
            }
            let took_files = copy_key(theirs, &old, &key);
            if took_state || took_files {
                tracing::info!(%old, %key, "a project's key now includes its first commit: adopting what was kept under the old one");
                adopted.insert(key, old);
            }
        }
        Ok(adopted)
    }
}

/// The merge base of each adopted key is its old key's (the base is computed per key from the
/// state just adopted, but that commit holds the files under the old key).
pub(super) fn rebase_adopted(base: &mut Tree, adopted: &Adopted) {
    for (key, old) in adopted {
        copy_key(base, old, key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::Item;

    fn item(id: &str) -> Item {
        Item {
            mode: "100644".into(),
            id: id.into(),
        }
    }

    #[test]
    fn a_key_is_copied_only_where_the_new_one_holds_nothing() {
        let mut t = Tree::new();
        t.insert("project/old/claude/memory/a.md".into(), item("1"));
        t.insert("project/old/claude/forgotten".into(), item("2"));
        t.insert("project/old/claudex/memory/b.md".into(), item("3"));
        assert!(copy_key(&mut t, "project/old/claude", "project/new/claude"));
        assert_eq!(t["project/new/claude/memory/a.md"].id, "1");
        assert_eq!(t["project/new/claude/forgotten"].id, "2");
        assert!(!t.contains_key("project/new/claudex/memory/b.md"));
        // The old key stays as it was.
        assert_eq!(t["project/old/claude/memory/a.md"].id, "1");
        // Once the new key holds something, nothing is copied over it.
        t.insert("project/old/claude/memory/c.md".into(), item("4"));
        assert!(!copy_key(
            &mut t,
            "project/old/claude",
            "project/new/claude"
        ));
        assert!(!t.contains_key("project/new/claude/memory/c.md"));
    }
}
