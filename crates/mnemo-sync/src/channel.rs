//! Which remote each workspace syncs through: the home's remote carries every workspace but
//! those shared with a team, each of which syncs through its own team remote (a repository the
//! team shares), in a bare repository of its own under `sync/team/`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::state::{SyncSettings, sync_dir};

/// The workspaces a remote carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every workspace but these (shared through their own remotes).
    All {
        /// Workspace ids left out.
        except: BTreeSet<String>,
    },
    /// One workspace.
    Only(String),
}

impl Scope {
    /// Whether this remote carries workspace `id`.
    #[must_use]
    pub fn covers(&self, id: &str) -> bool {
        match self {
            Self::All { except } => !except.contains(id),
            Self::Only(w) => w == id,
        }
    }
}

/// One remote and the local repository that talks to it.
#[derive(Debug, Clone)]
pub struct Channel {
    /// The remote.
    pub url: String,
    /// The bare repository of this home for it.
    pub dir: PathBuf,
    /// What it carries.
    pub scope: Scope,
    /// A team remote (`false`: the home's own).
    pub team: bool,
}

/// The remotes a sync talks to (of them, the one carrying `only`, limited to it).
#[must_use]
pub fn channels(home: &Path, s: &SyncSettings, only: Option<&str>) -> Vec<Channel> {
    let dir = sync_dir(home);
    let mut out = Vec::new();
    if let Some(url) = &s.remote {
        out.push(Channel {
            url: url.clone(),
            dir: dir.join("repo.git"),
            scope: Scope::All {
                except: s.shared.keys().cloned().collect(),
            },
            team: false,
        });
    }
    for (ws, url) in &s.shared {
        let id = mnemo_store::fsutil::hash(url.as_bytes());
        out.push(Channel {
            url: url.clone(),
            dir: dir.join("team").join(format!("{}.git", &id[..16])),
            scope: Scope::Only(ws.clone()),
            team: true,
        });
    }
    match only {
        None => out,
        Some(w) => out
            .into_iter()
            .filter(|c| c.scope.covers(w))
            .map(|mut c| {
                c.scope = Scope::Only(w.to_owned());
                c
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_workspace_leaves_the_home_remote_for_its_own() {
        let mut s = SyncSettings {
            remote: Some("/srv/me.git".into()),
            ..SyncSettings::default()
        };
        s.shared.insert("team".into(), "/srv/team.git".into());
        let c = channels(Path::new("/h"), &s, None);
        assert_eq!(c.len(), 2);
        assert!(c[0].scope.covers("personal") && !c[0].scope.covers("team"));
        assert!(c[1].scope.covers("team") && !c[1].scope.covers("personal"));
        let only = channels(Path::new("/h"), &s, Some("team"));
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].url, "/srv/team.git");
    }
}
