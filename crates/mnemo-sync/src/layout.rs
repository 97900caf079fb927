//! Where each workspace lives in the sync repository, keyed by what is the same on every machine.
//!
//! ```text
//! .mnemo-sync                         marks a Mnemo memory repository (format version)
//! mnemo/<id>/…                        a Mnemo workspace not bound to a repository (`personal`)
//! project/<repository>/<tool>/…       a project's memory: tool = mnemo | claude | qwen; the
//!                                     repository is its identity (`repo::identity`), never a path
//! qwen-user/…                         Qwen Code's memory of the user, in every project
//! ```
//! Under each key: `memory/<path>` (the memory files), `forgotten` (hashes of forgotten
//! summaries, one a line), `switches.json` (auto-dream / auto-extract), `conflicts.json` (what
//! waits for a person's choice).

use mnemo_core::WorkspaceKind;

use mnemo_store::workspace::{PERSONAL, QWEN_USER, Workspace};

/// The marker file at the repository's root.
pub const MARKER: &str = ".mnemo-sync";
/// Its content (the layout's version).
pub const MARKER_TEXT: &str = "Mnemo memory, synced through git. Layout 1.\n";

/// What a path under a key is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// A memory file, relative to the memory root.
    Memory(String),
    /// One of the key's bookkeeping files.
    Meta(Meta),
    /// A chat session (`sessions/<id>.jsonl`), carried when asked.
    Session(String),
}

/// The bookkeeping files each key has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meta {
    /// `forgotten`
    Forgotten,
    /// `switches.json`
    Switches,
    /// `conflicts.json`
    Conflicts,
}

impl Meta {
    /// Every meta file.
    pub const ALL: [Self; 3] = [Self::Forgotten, Self::Switches, Self::Conflicts];

    /// Its file name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Forgotten => "forgotten",
            Self::Switches => "switches.json",
            Self::Conflicts => "conflicts.json",
        }
    }
}

/// Which of the tools' memories a home syncs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// Claude Code's project memories.
    pub claude: bool,
    /// Qwen Code's project memories and its user layer.
    pub qwen: bool,
}

/// The key a workspace syncs under, or why it does not sync. `identity` finds a project's
/// repository identity from its folder.
pub fn key_of(
    ws: &Workspace,
    reach: Reach,
    identity: &dyn Fn(&str) -> Option<String>,
) -> std::result::Result<String, String> {
    let project = |tool: &str, encoded: &str| {
        let (_, path) = mnemo_store::workspace::project_name(encoded);
        let path = path.ok_or_else(|| {
            "its project folder is not on this machine, so its repository cannot be known"
                .to_owned()
        })?;
        let id = identity(&path).ok_or_else(|| {
            format!("{path} is not a git repository with a remote or a commit, so it has no identity that other machines share")
        })?;
        Ok(format!("project/{}/{tool}", slug(&id)))
    };
    match ws.kind {
        WorkspaceKind::Mnemo if ws.id == PERSONAL => Ok(format!("mnemo/{PERSONAL}")),
        WorkspaceKind::Mnemo => {
            if let Some(encoded) = mnemo_store::workspace::bound_encoded(&ws.id) {
                // Bound to a repository (its id holds the encoded path).
                project("mnemo", encoded)
            } else {
                Ok(format!("mnemo/{}", slug(&ws.id)))
            }
        }
        WorkspaceKind::Claude if !reach.claude => Err("Claude Code sync is switched off".into()),
        WorkspaceKind::Claude => project("claude", ws.id.trim_start_matches("claude:")),
        WorkspaceKind::Qwen if !reach.qwen => Err("Qwen Code sync is switched off".into()),
        WorkspaceKind::Qwen if ws.id == QWEN_USER => Ok("qwen-user".to_owned()),
        WorkspaceKind::Qwen if ws.shared.is_some() => Err(
            "a Qwen Code team memory is already shared through its own repository".to_owned(),
        ),
        WorkspaceKind::Qwen => project("qwen", ws.id.trim_start_matches("qwen:")),
        WorkspaceKind::Folder => Err(
            "a folder you added stays on this machine (sync covers Mnemo's, Claude Code's and Qwen Code's memories)"
                .to_owned(),
        ),
    }
}

/// A repository identity as one folder name: letters, digits, `.`, `_`, `-`; anything else `~`.
#[must_use]
pub fn slug(identity: &str) -> String {
    let s: String = identity
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '~'
            }
        })
        .collect();
    if s.chars().all(|c| c == '.') {
        format!("~{s}")
    } else {
        s
    }
}

/// Split a repository path into its key and what it is under it; `None` for anything else
/// (carried along untouched).
#[must_use]
pub fn split(path: &str) -> Option<(String, Part)> {
    let parts: Vec<&str> = path.split('/').collect();
    let (key_len, rest) = match *parts.first()? {
        "mnemo" if parts.len() > 2 => (2, &parts[2..]),
        "project" if parts.len() > 3 => (3, &parts[3..]),
        "qwen-user" if parts.len() > 1 => (1, &parts[1..]),
        _ => return None,
    };
    if parts[..key_len].iter().any(|p| p.is_empty()) {
        return None;
    }
    let key = parts[..key_len].join("/");
    match rest {
        ["memory", rel @ ..] if !rel.is_empty() => Some((key, Part::Memory(rel.join("/")))),
        ["sessions", name] if super::extras::valid_name(name) => {
            Some((key, Part::Session((*name).to_owned())))
        }
        [name] => Meta::ALL
            .into_iter()
            .find(|m| m.name() == *name)
            .map(|m| (key, Part::Meta(m))),
        _ => None,
    }
}

/// The repository path of a memory file under `key`.
#[must_use]
pub fn memory_path(key: &str, rel: &str) -> String {
    format!("{key}/memory/{rel}")
}

/// The repository path of a session file under `key`.
#[must_use]
pub fn session_path(key: &str, name: &str) -> String {
    format!("{key}/sessions/{name}")
}

/// The repository path of a meta file under `key`.
#[must_use]
pub fn meta_path(key: &str, meta: Meta) -> String {
    format!("{key}/{}", meta.name())
}

/// The Mnemo workspace id a `mnemo/<id>` key creates on a home that lacks it.
#[must_use]
pub fn mnemo_id(key: &str) -> Option<&str> {
    let id = key.strip_prefix("mnemo/")?;
    let ok = !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    ok.then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_keys() {
        assert_eq!(
            split("mnemo/personal/memory/a/b.md"),
            Some(("mnemo/personal".into(), Part::Memory("a/b.md".into())))
        );
        assert_eq!(
            split("project/github.com~a~web/claude/forgotten"),
            Some((
                "project/github.com~a~web/claude".into(),
                Part::Meta(Meta::Forgotten)
            ))
        );
        assert_eq!(
            split("qwen-user/memory/x.md"),
            Some(("qwen-user".into(), Part::Memory("x.md".into())))
        );
        assert_eq!(split("README.md"), None);
        assert_eq!(split("mnemo/personal/other"), None);
        assert_eq!(split("mnemo//memory/x.md"), None);
    }

    #[test]
    fn identities_become_one_folder_name() {
        assert_eq!(slug("remote:github.com/a/web"), "remote~github.com~a~web");
        assert_eq!(slug(".."), "~..");
        assert_eq!(mnemo_id("mnemo/work"), Some("work"));
        assert_eq!(mnemo_id("mnemo/.."), None);
    }
}
