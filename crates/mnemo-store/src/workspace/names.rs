//! Names of workspaces: a Claude Code / Qwen Code project folder's encoded name decoded to the
//! project, and the ids of workspaces bound to a repository.

use std::fs;
use std::path::{Path, PathBuf};

/// A Claude Code / Qwen Code project folder's name (`-home-dev-my-app`) decoded: the project's
/// own name (`my-app`) and, when the encoded path can be found on this machine, its full path.
/// The encoding turns `/` and every other character outside `[A-Za-z0-9]` into `-`, so the path
/// is rebuilt by walking down from `/`, at each level picking the folder whose encoded name the
/// rest starts with (the longest such); without a match, the last segment is the name.
#[must_use]
pub fn project_name(encoded: &str) -> (String, Option<String>) {
    fn walk(dir: &Path, rest: &str, depth: usize) -> Option<PathBuf> {
        if rest.is_empty() {
            return Some(dir.to_path_buf());
        }
        if depth > 32 {
            return None;
        }
        let mut children: Vec<(String, PathBuf)> = fs::read_dir(dir)
            .ok()?
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| {
                (
                    format!("-{}", sanitize(&e.file_name().to_string_lossy())),
                    e.path(),
                )
            })
            .filter(|(enc, _)| {
                rest.strip_prefix(enc.as_str())
                    .is_some_and(|after| after.is_empty() || after.starts_with('-'))
            })
            .collect();
        children.sort_by_key(|c| std::cmp::Reverse(c.0.len()));
        children
            .into_iter()
            .find_map(|(enc, path)| walk(&path, &rest[enc.len()..], depth + 1))
    }
    if encoded.starts_with('-')
        && let Some(found) = walk(Path::new("/"), encoded, 0)
        && let Some(name) = found.file_name()
    {
        return (
            name.to_string_lossy().into_owned(),
            Some(found.display().to_string()),
        );
    }
    (name_without_home(encoded).to_owned(), None)
}

/// A project folder's name when its folder is not on this machine: the encoded path after the
/// home folder (`-home-ana-infra-tools` is `infra-tools`, not `tools` — the encoding cannot tell
/// `infra-tools` from `infra/tools`, so everything below the home is kept).
fn name_without_home(encoded: &str) -> &str {
    let e = encoded.trim_start_matches('-');
    let below = ["home-", "Users-"]
        .iter()
        .find_map(|h| e.strip_prefix(h))
        .and_then(|rest| rest.split_once('-').map(|(_, tail)| tail))
        .or_else(|| e.strip_prefix("root-"))
        .filter(|t| !t.trim_matches('-').is_empty());
    let name = below.unwrap_or(e).trim_matches('-');
    if name.is_empty() { encoded } else { name }
}

/// [`project_name`], worked out once per process (workspaces are listed on every command).
pub(super) fn project_name_cached(encoded: &str) -> (String, Option<String>) {
    type Names = std::collections::HashMap<String, (String, Option<String>)>;
    static CACHE: std::sync::OnceLock<std::sync::Mutex<Names>> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(encoded)
    {
        return hit.clone();
    }
    let found = project_name(encoded);
    cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(encoded.to_owned(), found.clone());
    found
}

/// Replace every character outside `[A-Za-z0-9]` with `-`.
#[must_use]
pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The id of the Mnemo workspace bound to the repository at `root`: `repo` and its path
/// sanitized (`/home/ana/app` → `repo-home-ana-app`), so `-w <id>` is never read as a flag.
/// A home bound before keeps its `-home-ana-app` (see [`Home::project_id`]); both
/// forms are told by [`bound_encoded`].
#[must_use]
pub fn project_key(root: &Path) -> String {
    format!("{BOUND_PREFIX}{}", sanitize(&root.to_string_lossy()))
}

/// What begins the id of a workspace bound to a repository (before it, ids began with `-`).
const BOUND_PREFIX: &str = "repo";

/// The repository path, encoded as Claude Code encodes a project (`-home-ana-app`), of a Mnemo
/// workspace bound to one — `repo-home-ana-app`, or an id made by older versions that is the
/// encoded path itself; `None` for any other workspace.
#[must_use]
pub fn bound_encoded(id: &str) -> Option<&str> {
    if id.starts_with('-') {
        return Some(id);
    }
    id.strip_prefix(BOUND_PREFIX).filter(|r| r.starts_with('-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_replaces_everything_outside_alnum() {
        assert_eq!(sanitize("/home/me/my_proj.v2"), "-home-me-my-proj-v2");
        assert_eq!(sanitize("日本"), "--");
    }

    #[test]
    fn project_folder_names_decode_to_the_project() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("dev/my-app")).unwrap();
        let real = std::fs::canonicalize(d.path().join("dev/my-app")).unwrap();
        let (name, path) = project_name(&sanitize(&real.to_string_lossy()));
        assert_eq!(name, "my-app");
        assert_eq!(path.as_deref(), Some(real.to_string_lossy().as_ref()));
        // Not on this machine: everything below the home folder (`infra-tools` was once named
        // `tools`).
        assert_eq!(
            project_name("-home-nobody-zz-webapp"),
            ("zz-webapp".to_owned(), None)
        );
        assert_eq!(
            project_name("-home-ana-infra-tools"),
            ("infra-tools".to_owned(), None)
        );
        assert_eq!(project_name("-Users-bo-code-app").0, "code-app");
        assert_eq!(project_name("-root-svc").0, "svc");
        assert_eq!(project_name("-home-ana").0, "home-ana");
        assert_eq!(project_name("-srv-git-api").0, "srv-git-api");
        assert_eq!(project_name("plain"), ("plain".to_owned(), None));
    }
}
