//! A project's identity across machines: the same repository checked out at
//! `/home/a/webapp` and `/Users/a/code/webapp` must share one memory, so a project is keyed by
//! its repository, not its path — the `origin` remote's URL normalised *and* the repository's
//! first commit (two unrelated repositories given the same URL must never share a
//! memory; a fork, whose URL differs, shares only when the person says so with
//! `git config mnemo.shareWith <the other URL>`). Without a remote: the first commit alone;
//! without a commit yet: the URL alone.
//!
//! Normalising drops what differs between clones of one remote and must never be stored:
//! scheme, user name and password, port, a trailing `.git` or `/`, the host's case. So
//! `git@github.com:Acme/webapp.git`, `https://user:token@GitHub.com/Acme/webapp` and
//! `ssh://git@github.com:22/Acme/webapp.git` are all `github.com/Acme/webapp`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock, PoisonError};

/// How many hex digits of the first commit an identity carries (48 bits: two unrelated
/// repositories never meet by chance).
const ROOT_DIGITS: usize = 12;

/// What identifies a repository: its remote (normalised) and its first commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoId {
    /// `origin`'s URL normalised (or the URL `mnemo.shareWith` names), if any.
    pub remote: Option<String>,
    /// The oldest root commit, if any.
    pub root: Option<String>,
}

impl RepoId {
    /// The identity: `remote:<host/path>@<first commit, 12 digits>`, or `remote:<host/path>`
    /// before the first commit, or `root:<first commit>` without a remote.
    #[must_use]
    pub fn key(&self) -> Option<String> {
        match (&self.remote, &self.root) {
            (Some(r), Some(c)) => Some(format!("remote:{r}@{}", &c[..ROOT_DIGITS.min(c.len())])),
            (Some(r), None) => Some(format!("remote:{r}")),
            (None, Some(c)) => Some(format!("root:{c}")),
            (None, None) => None,
        }
    }

    /// The identity older versions of Mnemo gave this repository (the URL alone), when it differs
    /// from [`RepoId::key`]: a sync adopts what was kept under it.
    #[must_use]
    pub fn legacy_key(&self) -> Option<String> {
        match (&self.remote, &self.root) {
            (Some(r), Some(_)) => Some(format!("remote:{r}")),
            _ => None,
        }
    }
}

fn git_in(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The repository at `dir`, or `None` when `dir` is not in a git repository with a remote or a
/// commit (or `git` cannot run). The remote is read every time (a person may add one); the
/// first commit, which walks the history, once per folder and head in a process.
#[must_use]
pub fn repo_id(dir: &Path) -> Option<RepoId> {
    type Roots = HashMap<(PathBuf, String), Option<String>>;
    static ROOTS: OnceLock<Mutex<Roots>> = OnceLock::new();
    let remote = git_in(dir, &["config", "--get", "mnemo.shareWith"])
        .and_then(|u| normalise_remote(&u))
        .or_else(|| {
            git_in(dir, &["config", "--get", "remote.origin.url"])
                .and_then(|u| normalise_remote(&u))
        });
    let root = git_in(dir, &["rev-parse", "--verify", "-q", "HEAD"]).and_then(|head| {
        let roots = ROOTS.get_or_init(Default::default);
        let at = (dir.to_path_buf(), head);
        if let Some(hit) = roots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&at)
        {
            return hit.clone();
        }
        // The oldest root (a repository can have several): the smallest id, a stable choice.
        let found = git_in(dir, &["rev-list", "--max-parents=0", "HEAD"]).and_then(|roots| {
            roots
                .lines()
                .map(str::trim)
                .filter(|l| l.len() >= 40 && l.chars().all(|c| c.is_ascii_hexdigit()))
                .min()
                .map(str::to_owned)
        });
        roots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(at, found.clone());
        found
    });
    let id = RepoId { remote, root };
    id.key().is_some().then_some(id)
}

/// The identity of the repository at `dir` ([`RepoId::key`]).
#[must_use]
pub fn identity(dir: &Path) -> Option<String> {
    repo_id(dir)?.key()
}

/// The identity older versions of Mnemo gave the repository at `dir` ([`RepoId::legacy_key`]).
#[must_use]
pub fn legacy_identity(dir: &Path) -> Option<String> {
    repo_id(dir)?.legacy_key()
}

/// A remote URL as `host/path` (or `file/path` for a remote on disk), without credentials,
/// port, scheme, `.git` or trailing slashes; `None` when nothing is left.
#[must_use]
pub fn normalise_remote(url: &str) -> Option<String> {
    // A query or fragment is never part of a repository's identity, and may carry a token
    // (`?private_token=…`): dropped before anything else.
    let url = url.trim();
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let (host, path) = if let Some((scheme, rest)) = url.split_once("://") {
        if scheme.eq_ignore_ascii_case("file") {
            ("file".to_owned(), rest.to_owned())
        } else {
            let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
            let host = authority.rsplit('@').next().unwrap_or(authority);
            // `host:port`, and scp-like `host:path` written after a scheme.
            let (host, path) = match host.split_once(':') {
                Some((h, p)) if p.chars().all(|c| c.is_ascii_digit()) => (h, path.to_owned()),
                Some((h, p)) => (h, format!("{p}/{path}")),
                None => (host, path.to_owned()),
            };
            (host.to_ascii_lowercase(), path)
        }
    } else if let Some((left, path)) = url.split_once(':').filter(|(l, _)| {
        // scp-like `user@host:path` (not a Windows drive letter, not a local path).
        !l.contains('/') && l.len() > 1
    }) {
        let host = left.rsplit('@').next().unwrap_or(left);
        (host.to_ascii_lowercase(), path.to_owned())
    } else {
        ("file".to_owned(), url.to_owned())
    };
    let path = path
        .trim_matches('/')
        .trim_end_matches(".git")
        .trim_end_matches('/');
    let path = path
        .split('/')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("/");
    if host.is_empty() || path.is_empty() {
        return None;
    }
    Some(format!("{host}/{path}"))
}

#[cfg(test)]
mod tests {
    use super::normalise_remote;

    #[test]
    fn the_forms_of_one_remote_are_one_identity() {
        for url in [
            "git@github.com:Acme/webapp.git",
            "https://github.com/Acme/webapp",
            "https://user:s3cret-token@GitHub.com/Acme/webapp.git/",
            "ssh://git@github.com:22/Acme/webapp.git",
            "ssh://git@github.com/Acme/webapp",
            "git://github.com/Acme/webapp.git",
            "  https://github.com//Acme/webapp.git\n",
        ] {
            assert_eq!(
                normalise_remote(url).as_deref(),
                Some("github.com/Acme/webapp"),
                "{url}"
            );
        }
    }

    #[test]
    fn credentials_never_reach_the_identity() {
        let id =
            normalise_remote("https://alice:ghp_abcdef123456@example.com/team/repo.git").unwrap();
        assert_eq!(id, "example.com/team/repo");
        assert!(!id.contains("alice") && !id.contains("ghp_"));
        // A token in the query was once pushed to the remote as part of the key path.
        for url in [
            "https://gitlab.example.com/team/repo.git?private_token=glpat-abcdefghij0123456789",
            "https://gitlab.example.com/team/repo#token=abc",
        ] {
            assert_eq!(
                normalise_remote(url).as_deref(),
                Some("gitlab.example.com/team/repo"),
                "{url}"
            );
        }
    }

    #[test]
    fn remotes_on_disk_and_odd_input() {
        assert_eq!(
            normalise_remote("/srv/git/memory.git").as_deref(),
            Some("file/srv/git/memory")
        );
        assert_eq!(
            normalise_remote("file:///srv/git/memory.git").as_deref(),
            Some("file/srv/git/memory")
        );
        assert_eq!(
            normalise_remote("../shared/memory").as_deref(),
            Some("file/../shared/memory")
        );
        assert_eq!(normalise_remote(""), None);
        assert_eq!(normalise_remote("https://github.com/"), None);
        assert_eq!(normalise_remote("git@github.com:"), None);
    }
}
