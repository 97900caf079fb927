//! Memory folders found on disk that Mnemo does not use, and why — as data. Discovery records
//! them; the sentence is made where it is shown (`Display`, read by the status's warnings).

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

/// Whose memory folder was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A Claude Code project's.
    ClaudeProject,
    /// A Qwen Code project's.
    QwenProject,
    /// Qwen Code's user memory (every project's).
    QwenUser,
    /// Qwen Code's team memory of a repository.
    QwenTeam {
        /// The repository.
        repo: PathBuf,
    },
    /// A folder the person added in the settings.
    Added,
}

/// Why a memory folder found on disk is not a real folder inside where it is expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootProblem {
    /// `at` is a symbolic link (to `target`, when it reads), under `base`.
    Link {
        /// The link.
        at: PathBuf,
        /// Where it points.
        target: Option<PathBuf>,
        /// Where the folder was expected.
        base: PathBuf,
    },
    /// `at` cannot be read.
    Unreadable {
        /// The path.
        at: PathBuf,
        /// The system's reason.
        error: String,
    },
    /// `at`'s real path cannot be resolved.
    Unresolved {
        /// The path.
        at: PathBuf,
    },
    /// `at` resolves to `real`, outside `base`.
    Outside {
        /// The path.
        at: PathBuf,
        /// Its real path.
        real: PathBuf,
        /// Where it was expected.
        base: PathBuf,
    },
    /// A folder the person added is a symbolic link now.
    AddedIsLink,
}

/// A memory folder Mnemo does not use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// Whose it is.
    pub found: Found,
    /// The memory folder.
    pub folder: PathBuf,
    /// Why it is not used.
    pub problem: RootProblem,
}

/// Why `base/parts…` is not a real folder inside `base`: one of its parts is a symbolic link, or
/// its real path leaves `base`. `None` when it is one.
#[must_use]
pub fn root_problem(base: &Path, parts: &[&str]) -> Option<RootProblem> {
    let mut p = base.to_path_buf();
    for part in parts {
        p.push(part);
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                return Some(RootProblem::Link {
                    target: fs::read_link(&p).ok(),
                    at: p,
                    base: base.to_path_buf(),
                });
            }
            Ok(_) => {}
            Err(e) => {
                return Some(RootProblem::Unreadable {
                    at: p,
                    error: e.to_string(),
                });
            }
        }
    }
    let (Ok(real), Ok(real_base)) = (fs::canonicalize(&p), fs::canonicalize(base)) else {
        return Some(RootProblem::Unresolved { at: p });
    };
    (!real.starts_with(&real_base)).then(|| RootProblem::Outside {
        at: p,
        real,
        base: base.to_path_buf(),
    })
}

impl fmt::Display for RootProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Link { at, target, base } => {
                write!(f, "{} is a symbolic link", at.display())?;
                if let Some(t) = target {
                    write!(f, " (to {})", t.display())?;
                }
                write!(
                    f,
                    "; a memory folder found on disk must be a real folder, so nothing outside {} \
                     is ever read or written through it — replace the link with a folder to use it",
                    base.display()
                )
            }
            Self::Unreadable { at, error } => write!(f, "{} cannot be read: {error}", at.display()),
            Self::Unresolved { at } => write!(f, "{} cannot be resolved", at.display()),
            Self::Outside { at, real, base } => write!(
                f,
                "{} resolves to {}, outside {}",
                at.display(),
                real.display(),
                base.display()
            ),
            Self::AddedIsLink => f.write_str(
                "it has become a symbolic link, and Mnemo only uses real folders — replace the \
                 link with the folder, or add its target instead",
            ),
        }
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let folder = self.folder.display();
        match &self.found {
            Found::ClaudeProject => write!(f, "Claude Code's memory folder {folder} is not used"),
            Found::QwenProject => write!(f, "Qwen Code's memory folder {folder} is not used"),
            Found::QwenUser => write!(f, "Qwen Code's user memory {folder} is not used"),
            Found::QwenTeam { repo } => write!(
                f,
                "the Qwen Code team memory of {} is not used",
                repo.display()
            ),
            Found::Added => write!(f, "the added folder {folder} is not used"),
        }?;
        write!(f, ": {}", self.problem)
    }
}
