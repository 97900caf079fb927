//! Whether a workspace's writes reach other people, and how — found at discovery, as data; the
//! sentence that says so is made where a write's outcome is told ([`Sharing::sentence`]).

use std::path::PathBuf;

use serde::Serialize;

/// How writes to a workspace reach other people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "via", rename_all = "snake_case")]
pub enum Sharing {
    /// Qwen Code's team memory: `folder` is tracked by git in the repository `repo`.
    QwenTeam {
        /// The team memory folder.
        folder: PathBuf,
        /// The repository that tracks it.
        repo: PathBuf,
    },
    /// Mnemo's sync carries it to a team's remote.
    Team {
        /// The team remote (as the person gave it).
        remote: String,
    },
}

impl Sharing {
    /// Said with every write to the workspace called `label`.
    #[must_use]
    pub fn sentence(&self, label: &str) -> String {
        match self {
            Self::QwenTeam { folder, repo } => format!(
                "{} is Qwen Code's team memory of {}: it is tracked by git, so this change \
                 reaches every collaborator once it is committed and pushed",
                folder.display(),
                repo.display()
            ),
            Self::Team { remote } => format!(
                "{label} is shared with your team through {}: this change reaches every member \
                 at the next sync",
                crate::fsutil::printable(remote)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_way_of_sharing_says_where_a_change_goes() {
        let qwen = Sharing::QwenTeam {
            folder: "/r/.qwen/team-memory".into(),
            repo: "/r".into(),
        };
        assert_eq!(
            qwen.sentence("ignored"),
            "/r/.qwen/team-memory is Qwen Code's team memory of /r: it is tracked by git, so this \
             change reaches every collaborator once it is committed and pushed"
        );
        let team = Sharing::Team {
            remote: "/srv/team\u{1b}[2J.git".into(),
        };
        let said = team.sentence("personal");
        assert!(
            said.starts_with("personal is shared with your team through /srv/team"),
            "{said}"
        );
        assert!(!said.contains('\u{1b}'), "the remote is printable: {said}");
        assert!(said.ends_with("reaches every member at the next sync"));
    }
}
