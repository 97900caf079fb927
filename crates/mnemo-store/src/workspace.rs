//! `MNEMO_HOME` and workspaces: Mnemo's own (`personal`, project-bound), discovered
//! Claude Code / Qwen Code memory folders, and folders the user added in `settings.toml`.
//!
//! Invariant: a workspace id is stable across runs — it is derived from names on disk, never
//! from discovery order. Foreign workspaces keep Mnemo's bookkeeping under `$MNEMO_HOME/external/`.

use std::fs;
use std::path::{Path, PathBuf};

use mnemo_core::{Error, ErrorCode, Result, WorkspaceKind};
use serde::Serialize;

mod names;
mod refused;
mod sharing;
use names::project_name_cached;
pub use names::{bound_encoded, project_key, project_name, sanitize};
pub use refused::{Found, Refused, RootProblem, root_problem};
pub use sharing::Sharing;

/// The id of the workspace that exists from the first run.
pub const PERSONAL: &str = "personal";

/// Where Mnemo keeps its data, and where it looks for other tools' memory.
#[derive(Debug, Clone)]
pub struct Home {
    /// `$MNEMO_HOME`.
    pub root: PathBuf,
    /// Claude Code's base dir (`$MNEMO_CLAUDE_DIR`, default `~/.claude`).
    pub claude_dir: PathBuf,
    /// Qwen Code's base dir (`$MNEMO_QWEN_DIR`, else `$QWEN_CODE_MEMORY_BASE_DIR` as Qwen Code
    /// itself reads it, default `~/.qwen`).
    pub qwen_dir: PathBuf,
}

pub use crate::settings::{FolderEntry, Settings};

/// One memory root plus where its bookkeeping lives.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Workspace`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Workspace {
    pub id: String,
    pub kind: WorkspaceKind,
    pub label: String,
    pub origin: String,
    pub memory_root: PathBuf,
    pub state_dir: PathBuf,
    pub lock_dir: PathBuf,
    pub shared: Option<Sharing>,
}

/// Id of Qwen Code's cross-project user memory (`<base>/memories/`).
pub const QWEN_USER: &str = "qwen:@user";
/// Id prefix of a repository's Qwen Code team memory (`<repo>/.qwen/team-memory/`).
pub const QWEN_TEAM_PREFIX: &str = "qwen:@team:";

impl Home {
    /// The id of the workspace bound to the repository at `root` (canonical): the one this home
    /// already has for it — an id made by older versions begins with `-` and keeps working — else
    /// [`project_key`].
    fn project_id(&self, root: &Path) -> String {
        let legacy = sanitize(&root.to_string_lossy());
        let mine = self.root.join("workspaces");
        if legacy.starts_with('-') && mine.join(&legacy).join("memory").is_dir() {
            return legacy;
        }
        project_key(root)
    }

    /// Resolve the home: the `--home` flag wins over `MNEMO_HOME`, else the platform data dir.
    pub fn resolve(flag: Option<PathBuf>) -> Result<Self> {
        let env_path = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let root = match flag.or_else(|| env_path("MNEMO_HOME")) {
            Some(p) => p,
            None => dirs::data_dir()
                .ok_or_else(|| Error::usage("no data directory on this system: set MNEMO_HOME"))?
                .join("mnemo"),
        };
        let user_home = dirs::home_dir().unwrap_or_else(|| PathBuf::from("."));
        Ok(Self {
            root: absolute(&root),
            claude_dir: env_path("MNEMO_CLAUDE_DIR").unwrap_or_else(|| user_home.join(".claude")),
            qwen_dir: env_path("MNEMO_QWEN_DIR")
                .or_else(|| env_path("QWEN_CODE_MEMORY_BASE_DIR"))
                .unwrap_or_else(|| user_home.join(".qwen")),
        })
    }

    /// Create the home and the `personal` workspace if missing.
    pub fn ensure(&self) -> Result<()> {
        // The home holds every memory's text and history: only its owner may enter it.
        crate::fsutil::private_dir(&self.root)
            .map_err(|e| Error::io(format!("creating {}", self.root.display()), &e))?;
        let personal = self.root.join("workspaces").join(PERSONAL).join("memory");
        fs::create_dir_all(&personal)
            .map_err(|e| Error::io(format!("creating {}", personal.display()), &e))
    }

    /// Path of `index.db`.
    #[must_use]
    pub fn index_path(&self) -> PathBuf {
        self.root.join("index.db")
    }

    /// Path of `journal.db`.
    #[must_use]
    pub fn journal_path(&self) -> PathBuf {
        self.root.join("journal.db")
    }

    /// Path of `tasks.db` (background memory tasks; see [`crate::tasks`]).
    #[must_use]
    pub fn tasks_path(&self) -> PathBuf {
        self.root.join("tasks.db")
    }

    /// The folder list from `settings.toml` (see [`crate::settings`], its owner).
    pub fn settings(&self) -> Result<Settings> {
        crate::settings::folders(&self.root)
    }

    /// Replace the folder list; every other table of `settings.toml` is kept.
    pub fn save_settings(&self, settings: &Settings) -> Result<()> {
        crate::settings::save_folders(&self.root, settings)
    }

    /// Every workspace: `personal` first, then Mnemo's others, Claude Code's, Qwen Code's, folders.
    /// Discovered roots that are not real folders where they are expected to be are left out
    /// (see [`Self::refused_roots`]).
    pub fn workspaces(&self) -> Result<Vec<Workspace>> {
        Ok(self.discover()?.0)
    }

    /// Why each discovered memory folder that Mnemo does not use was refused: a symbolic link,
    /// or a folder whose real path leaves where it is expected to be (its project folder, Qwen
    /// Code's base dir, the repository of a team layer). Said in `status` and the app.
    pub fn refused_roots(&self) -> Result<Vec<Refused>> {
        Ok(self.discover()?.1)
    }

    fn discover(&self) -> Result<(Vec<Workspace>, Vec<Refused>)> {
        let mut refused = Vec::new();
        let mut out = vec![self.mnemo_workspace(PERSONAL)];
        let mine = self.root.join("workspaces");
        for name in sorted_subdirs(&mine) {
            if name != PERSONAL && mine.join(&name).join("memory").is_dir() {
                out.push(self.mnemo_workspace(&name));
            }
        }
        for (kind, base) in [
            (WorkspaceKind::Claude, &self.claude_dir),
            (WorkspaceKind::Qwen, &self.qwen_dir),
        ] {
            let projects = base.join("projects");
            for name in sorted_subdirs(&projects) {
                let project = projects.join(&name);
                let memory = project.join("memory");
                if !memory.is_dir() {
                    continue;
                }
                // From the tool's base: a `projects` folder that is itself a link is refused
                // like a linked project or memory folder.
                if let Some(problem) = root_problem(base, &["projects", &name, "memory"]) {
                    refused.push(Refused {
                        found: if kind == WorkspaceKind::Claude {
                            Found::ClaudeProject
                        } else {
                            Found::QwenProject
                        },
                        folder: memory,
                        problem,
                    });
                    continue;
                }
                let book = self.root.join("external").join(kind.as_str()).join(&name);
                let (label, origin) = project_name_cached(&name);
                out.push(Workspace {
                    id: format!("{}:{name}", kind.as_str()),
                    kind,
                    label,
                    origin: origin.unwrap_or_else(|| project.display().to_string()),
                    memory_root: anchored(base, &["projects", &name, "memory"]),
                    // Qwen Code keeps its lock in the project state dir, Claude Code in the memory
                    // folder (`lock::lock_path`); Mnemo honours and takes theirs.
                    lock_dir: if kind == WorkspaceKind::Qwen {
                        project
                    } else {
                        memory.clone()
                    },
                    state_dir: book,
                    shared: None,
                });
            }
        }
        let layers = self.qwen_layers(&out, &mut refused);
        out.extend(layers);
        // A workspace shared with a team through sync says so with every write, as Qwen Code's
        // team layer does.
        {
            let shared = crate::settings::shared_workspaces(&self.root);
            for w in &mut out {
                if w.shared.is_none()
                    && let Some(url) = shared.get(&w.id)
                {
                    w.shared = Some(Sharing::Team {
                        remote: url.clone(),
                    });
                }
            }
        }
        for f in self.settings()?.folders {
            // A folder the person added is used where it is; one that became a link since is
            // refused like a discovered one (its target is not what was added).
            if fs::symlink_metadata(&f.path).is_ok_and(|m| m.file_type().is_symlink()) {
                refused.push(Refused {
                    found: Found::Added,
                    folder: f.path.clone(),
                    problem: RootProblem::AddedIsLink,
                });
                continue;
            }
            let key = sanitize(&f.path.to_string_lossy());
            let book = self.root.join("external").join("folder").join(&key);
            out.push(Workspace {
                id: format!("folder:{key}"),
                kind: WorkspaceKind::Folder,
                label: f.path.display().to_string(),
                origin: f.path.display().to_string(),
                memory_root: anchored(
                    f.path.parent().unwrap_or(&f.path),
                    &[&f.path.file_name().unwrap_or_default().to_string_lossy()],
                ),
                state_dir: book.clone(),
                lock_dir: book,
                shared: None,
            });
        }
        Ok((out, refused))
    }

    fn mnemo_workspace(&self, id: &str) -> Workspace {
        let state = self.root.join("workspaces").join(id);
        Workspace {
            id: id.to_owned(),
            kind: WorkspaceKind::Mnemo,
            label: if id == PERSONAL {
                "Personal".to_owned()
            } else {
                id.to_owned()
            },
            memory_root: anchored(&self.root, &["workspaces", id, "memory"]),
            origin: state.join("memory").display().to_string(),
            lock_dir: state.clone(),
            state_dir: state,
            shared: None,
        }
    }

    /// Qwen Code's other two layers: the cross-project user memory (`<base>/memories/`), and
    /// the team memory (`<repo>/.qwen/team-memory/`, tracked by git) of every repository a
    /// workspace is bound to — Mnemo's project workspaces and Qwen Code's projects (`known`).
    fn qwen_layers(&self, known: &[Workspace], refused: &mut Vec<Refused>) -> Vec<Workspace> {
        let mut out = Vec::new();
        let user = self.qwen_dir.join("memories");
        let user_problem = user
            .is_dir()
            .then(|| root_problem(&self.qwen_dir, &["memories"]))
            .flatten();
        if let Some(problem) = &user_problem {
            refused.push(Refused {
                found: Found::QwenUser,
                folder: user.clone(),
                problem: problem.clone(),
            });
        }
        if user.is_dir() && user_problem.is_none() {
            out.push(Workspace {
                id: QWEN_USER.to_owned(),
                kind: WorkspaceKind::Qwen,
                label: "Qwen Code — you, in every project".to_owned(),
                origin: user.display().to_string(),
                memory_root: anchored(&self.qwen_dir, &["memories"]),
                state_dir: self.root.join("external/qwen/@user"),
                lock_dir: self.qwen_dir.clone(),
                shared: None,
            });
        }
        let mut repos: Vec<PathBuf> = Vec::new();
        for w in known {
            let repo = match w.kind {
                WorkspaceKind::Mnemo => bound_encoded(&w.id).and_then(|e| project_name_cached(e).1),
                WorkspaceKind::Qwen => {
                    w.id.strip_prefix("qwen:")
                        .and_then(|name| project_name_cached(name).1)
                }
                _ => None,
            };
            if let Some(r) = repo.map(PathBuf::from)
                && !repos.contains(&r)
            {
                repos.push(r);
            }
        }
        for repo in repos {
            let team = repo.join(".qwen").join("team-memory");
            if !team.is_dir() {
                continue;
            }
            // A repository is content from other people: a committed symlink must not move the
            // team layer (and every write, delete and read through it) outside the repository.
            if let Some(problem) = root_problem(&repo, &[".qwen", "team-memory"]) {
                refused.push(Refused {
                    found: Found::QwenTeam { repo: repo.clone() },
                    folder: team,
                    problem,
                });
                continue;
            }
            let key = sanitize(&repo.to_string_lossy());
            let name = repo
                .file_name()
                .map_or_else(|| key.clone(), |n| n.to_string_lossy().into_owned());
            out.push(Workspace {
                id: format!("{QWEN_TEAM_PREFIX}{key}"),
                kind: WorkspaceKind::Qwen,
                label: format!("{name} — Qwen Code team memory"),
                origin: team.display().to_string(),
                shared: Some(Sharing::QwenTeam {
                    folder: team.clone(),
                    repo: repo.clone(),
                }),
                memory_root: anchored(&repo, &[".qwen", "team-memory"]),
                state_dir: self.root.join("external/qwen").join(format!("@team-{key}")),
                lock_dir: repo.join(".qwen"),
            });
        }
        out
    }

    /// Find a workspace by id.
    pub fn workspace(&self, id: &str) -> Result<Workspace> {
        self.workspaces()?
            .into_iter()
            .find(|w| w.id == id)
            .ok_or_else(|| {
                Error::not_found(format!(
                    "no workspace `{id}`: run `mnemo workspaces` to see the ids"
                ))
            })
    }

    /// Add a folder as a workspace (it must exist). Returns the new workspace.
    pub fn add_folder(&self, path: &Path) -> Result<Workspace> {
        let canon = fs::canonicalize(path).map_err(|e| {
            Error::new(
                ErrorCode::NotFound,
                format!("cannot add {}: {e}", path.display()),
            )
        })?;
        if !canon.is_dir() {
            return Err(Error::usage(format!("{} is not a folder", canon.display())));
        }
        crate::settings::add_folder(&self.root, &canon)?;
        let id = format!("folder:{}", sanitize(&canon.to_string_lossy()));
        self.workspace(&id)
    }

    /// The id of the Mnemo workspace already bound to the git repository containing `dir`, if
    /// there is one (nothing is created).
    #[must_use]
    pub fn bound_project(&self, dir: &Path) -> Option<String> {
        let root = canonical_git_root(dir).ok()?;
        let id = self.project_id(&root);
        self.root
            .join("workspaces")
            .join(&id)
            .join("memory")
            .is_dir()
            .then_some(id)
    }

    /// Create Mnemo's own workspace `id` (a restore of a whole-home export brings back one this
    /// home lacks): `workspaces/<id>/memory`. The id must be one Mnemo makes (letters, digits
    /// and `-`).
    pub fn create_workspace(&self, id: &str) -> Result<Workspace> {
        if id.is_empty()
            || id.len() > 200
            || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            return Err(Error::usage(format!(
                "`{}` is not a workspace id Mnemo makes (letters, digits and -)",
                crate::fsutil::printable(id)
            )));
        }
        let memory = self.root.join("workspaces").join(id).join("memory");
        fs::create_dir_all(&memory)
            .map_err(|e| Error::io(format!("creating {}", memory.display()), &e))?;
        self.workspace(id)
    }

    /// Bind a Mnemo workspace to the git repository containing `dir` (worktrees share one).
    pub fn bind_project(&self, dir: &Path) -> Result<Workspace> {
        let root = canonical_git_root(dir)?;
        let id = self.project_id(&root);
        let memory = self.root.join("workspaces").join(&id).join("memory");
        fs::create_dir_all(&memory)
            .map_err(|e| Error::io(format!("creating {}", memory.display()), &e))?;
        let mut ws = self.mnemo_workspace(&id);
        ws.label = root
            .file_name()
            .map_or_else(|| id.clone(), |n| n.to_string_lossy().into_owned());
        Ok(ws)
    }
}

/// A root by its real path, for [`crate::rootdir`] to open with no link on it: `base` (the
/// home, a tool's folder, a repository, an added folder's parent) resolved — a link there is
/// the person's own set-up — and `parts`, the folders found or made inside it, kept as they
/// are. A link that is, or appears, on those is then refused when the root is opened, never
/// followed: resolving the whole path would take a folder swapped for a link at the moment
/// it is found (a sync, a dream starting) to wherever the link points.
fn anchored(base: &Path, parts: &[&str]) -> PathBuf {
    let mut p = crate::fsutil::real_path(base);
    p.extend(parts);
    p
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| p.to_path_buf(), |c| c.join(p))
    }
}

fn sorted_subdirs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// The canonical root of the git repository containing `dir`: for a linked worktree, the main
/// repository's root (so all worktrees of one repository share a workspace).
pub fn canonical_git_root(dir: &Path) -> Result<PathBuf> {
    let start =
        fs::canonicalize(dir).map_err(|e| Error::not_found(format!("{}: {e}", dir.display())))?;
    let mut cur = start.as_path();
    loop {
        let dotgit = cur.join(".git");
        if dotgit.is_dir() {
            return Ok(cur.to_path_buf());
        }
        if dotgit.is_file() {
            // A linked worktree: `.git` says `gitdir: <main>/.git/worktrees/<name>`, whose
            // `commondir` points at the main `.git`.
            let text = fs::read_to_string(&dotgit)
                .map_err(|e| Error::io(format!("reading {}", dotgit.display()), &e))?;
            let gitdir = text
                .lines()
                .find_map(|l| l.strip_prefix("gitdir:"))
                .map(|g| cur.join(g.trim()))
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::Corrupt,
                        format!("{} has no gitdir line", dotgit.display()),
                    )
                })?;
            let common = match fs::read_to_string(gitdir.join("commondir")) {
                Ok(c) => gitdir.join(c.trim()),
                Err(_) => gitdir,
            };
            let common = fs::canonicalize(&common)
                .map_err(|e| Error::io(format!("resolving {}", common.display()), &e))?;
            return Ok(common.parent().map_or(common.clone(), Path::to_path_buf));
        }
        match cur.parent() {
            Some(p) => cur = p,
            None => {
                return Err(Error::not_found(format!(
                    "{} is not inside a git repository",
                    start.display()
                )));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root is resolved only above the folders Mnemo finds or makes: a memory folder that is
    /// a link when it is found (swapped for one at that moment) keeps its own path, so opening
    /// it is refused instead of following the link. A home that is itself reached
    /// through a link is the person's set-up, resolved.
    #[test]
    fn a_memory_folder_that_is_a_link_when_found_is_not_resolved_to_its_target() {
        let d = tempfile::tempdir().unwrap();
        let real_home = d.path().join("real-home");
        let outside = d.path().join("outside");
        std::fs::create_dir_all(real_home.join("workspaces/personal")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, real_home.join("workspaces/personal/memory")).unwrap();
        std::os::unix::fs::symlink(&real_home, d.path().join("home-link")).unwrap();
        let home = Home {
            root: d.path().join("home-link"),
            claude_dir: d.path().join("claude"),
            qwen_dir: d.path().join("qwen"),
        };
        let personal = &home.workspaces().unwrap()[0];
        let canonical = std::fs::canonicalize(&real_home).unwrap();
        assert_eq!(
            personal.memory_root,
            canonical.join("workspaces/personal/memory")
        );
        let err = crate::rootdir::RootDir::open(&personal.memory_root).unwrap_err();
        assert_eq!(err.code, mnemo_core::ErrorCode::PathEscape, "{err}");
    }
}
