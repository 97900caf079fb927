//! Integration tests of the vault against real files, real SQLite and a real watcher.

// Test support code: panicking on unexpected failure is the point; children are waited on by callers.
#![allow(
    clippy::unwrap_used,
    clippy::new_without_default,
    clippy::zombie_processes
)]

mod bad_input;
mod foreign_memory_md;
mod hard_links;
mod import;
mod lock_aimed;
mod lock_processes;
mod private;
mod props;
mod replace_race;
mod repo;
mod review;
mod root_swap;
mod round_trip;
mod search_plan;
mod vectors;
mod watcher;

use std::path::{Path, PathBuf};

use mnemo_store::{Home, Vault};

/// A throwaway home with Claude Code and Qwen Code base dirs next to it.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub vault: Vault,
}

impl Fixture {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault::open(home_in(dir.path())).unwrap();
        Self { dir, vault }
    }

    pub fn reopen(&self) -> Vault {
        Vault::open(home_in(self.dir.path())).unwrap()
    }

    pub fn personal(&self) -> PathBuf {
        self.dir.path().join("home/workspaces/personal/memory")
    }

    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.personal().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

pub fn home_in(dir: &Path) -> Home {
    Home {
        root: dir.join("home"),
        claude_dir: dir.join("claude"),
        qwen_dir: dir.join("qwen"),
    }
}

pub fn topic(name: &str, description: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\ntype: {ty}\n---\n{body}\n")
}
