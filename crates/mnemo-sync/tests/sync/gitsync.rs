//! Sync through git with two homes on this machine, a bare repository as the remote
//! and the real `git`: changes on both sides converge, forgotten facts stay forgotten, the same
//! entry edited twice keeps both versions as a conflict until a person chooses, a project
//! cloned at two paths shares one memory, a sync's changes undo byte-exact, and every kind of
//! bad remote is a clear error or a flagged file with nothing local lost.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use mnemo_core::ChangeSource;
use mnemo_store::{Home, Vault};
use mnemo_sync::VaultSync;
use mnemo_sync::state::{SyncSettings, save_settings};

use super::topic;

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A home with its own Claude Code / Qwen Code folders.
pub struct Side {
    pub dir: PathBuf,
    pub vault: Vault,
}

impl Side {
    pub fn new(root: &Path, name: &str, remote: &Path) -> Self {
        let Self { dir, vault } = Self::open(&root.join(name));
        save_settings(
            &dir.join("home"),
            &SyncSettings {
                remote: Some(remote.display().to_string()),
                author: Some(format!("{name} <{name}@example.com>")),
                auto: false,
                claude: true,
                qwen: true,
                sessions: false,
                shared: std::collections::BTreeMap::new(),
            },
        )
        .unwrap();
        Self { dir, vault }
    }

    /// The home in `dir` as it is (another process's view of it).
    pub fn open(dir: &Path) -> Self {
        let home = Home {
            root: dir.join("home"),
            claude_dir: dir.join("claude"),
            qwen_dir: dir.join("qwen"),
        };
        let vault = Vault::open(home).unwrap();
        Self {
            dir: dir.to_owned(),
            vault,
        }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.join("home/workspaces/personal/memory")
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.root().join(rel)).ok()
    }

    /// Every memory file of `personal` (MEMORY.md and hidden files left out).
    pub fn files(&self) -> BTreeMap<String, String> {
        files_under(&self.root())
    }

    pub fn sync(&self) -> mnemo_sync::RemoteSync {
        self.vault.sync_remote(None, None).unwrap()
    }
}

pub fn files_under(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with(".md") && name != "MEMORY.md" {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    out
}

pub fn bare(root: &Path) -> PathBuf {
    let r = root.join("remote.git");
    std::fs::create_dir_all(&r).unwrap();
    git(&r, &["init", "-q", "--bare", "--initial-branch", "main"]);
    r
}

pub fn two(t: &Path) -> (Side, Side, PathBuf) {
    let r = bare(t);
    (Side::new(t, "ana", &r), Side::new(t, "ben", &r), r)
}

#[test]
fn additions_edits_and_forgets_on_two_homes_converge() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    a.write(
        "coffee.md",
        &topic("Coffee", "drinks", "user", "Drinks coffee at 9."),
    );
    a.write(
        "tea.md",
        &topic("Tea", "drinks", "user", "Green tea from Kyoto."),
    );
    a.sync();
    b.sync();
    assert_eq!(
        a.files(),
        b.files(),
        "the first sync brings A's memories to B"
    );
    // A adds; B edits one and forgets another.
    a.write(
        "editor.md",
        &topic("Editor", "tools", "user", "Uses Helix."),
    );
    b.write(
        "coffee.md",
        &topic("Coffee", "drinks", "user", "Drinks coffee at 10."),
    );
    std::fs::remove_file(b.root().join("tea.md")).unwrap();
    b.vault
        .add_forgotten("personal", &["Green tea from Kyoto.".to_owned()])
        .unwrap();
    let rb = b.sync();
    let ra = a.sync();
    b.sync();
    assert_eq!(a.files(), b.files());
    assert!(a.read("editor.md").is_some() && b.read("editor.md").is_some());
    assert!(a.read("coffee.md").unwrap().contains("at 10."));
    assert!(a.read("tea.md").is_none(), "forgotten on B, gone on A");
    assert!(
        a.vault
            .forgotten_at("personal", "green tea from kyoto.")
            .unwrap()
            .is_some(),
        "and remembered as forgotten on A"
    );
    let pa = ra
        .workspaces
        .iter()
        .find(|w| w.workspace == "personal")
        .unwrap();
    assert_eq!(pa.changed.len(), 2, "{pa:?}");
    assert!(pa.group.is_some());
    assert!(rb.workspaces.iter().all(|w| w.conflicts.is_empty()));
    // Nothing is pending or incoming once both synced.
    let s = a.vault.sync_status().unwrap();
    let p = s
        .workspaces
        .iter()
        .find(|w| w.workspace == "personal")
        .unwrap();
    assert_eq!((p.pending, p.incoming), (0, 0), "{p:?}");
    assert!(p.last_synced.is_some());
}

#[test]
fn the_same_entry_edited_twice_keeps_both_until_a_person_chooses() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    let body = |x: &str| {
        topic(
            "Prefs",
            "prefs",
            "user",
            &format!("Likes dark mode.\n\n{x}"),
        )
    };
    a.write("prefs.md", &body("Deploys on Fridays."));
    a.sync();
    b.sync();
    a.write("prefs.md", &body("Deploys on Mondays."));
    b.write("prefs.md", &body("Deploys on Tuesdays."));
    a.sync();
    let rb = b.sync();
    a.sync();
    assert_eq!(a.files(), b.files());
    let text = a.read("prefs.md").unwrap();
    assert!(text.contains("Mondays") && text.contains("Tuesdays") && text.contains("dark mode"));
    assert!(!text.contains("Fridays"));
    let cb = &rb
        .workspaces
        .iter()
        .find(|w| w.workspace == "personal")
        .unwrap()
        .conflicts;
    assert_eq!(cb.len(), 1, "{cb:?}");
    // A learns of it through the remote.
    let sa = a.vault.sync_status().unwrap();
    let ca = &sa
        .workspaces
        .iter()
        .find(|w| w.workspace == "personal")
        .unwrap()
        .conflicts;
    assert_eq!(ca.len(), 1);
    assert_eq!(ca[0].id, cb[0].id);
    assert_eq!(ca[0].path, "prefs.md");
    // Resolve on A: keep Monday; B gets it with its next sync.
    let monday = ca[0]
        .choices
        .iter()
        .position(|c| c.texts.iter().any(|t| t.contains("Mondays")))
        .unwrap();
    a.vault
        .sync_resolve(&ca[0].id, Some(monday), ChangeSource::Cli)
        .unwrap();
    assert_eq!(a.read("prefs.md").unwrap(), body("Deploys on Mondays."));
    a.sync();
    let rb = b.sync();
    assert_eq!(b.read("prefs.md").unwrap(), body("Deploys on Mondays."));
    assert!(rb.workspaces.iter().all(|w| w.conflicts.is_empty()));
    assert!(a.sync().workspaces.iter().all(|w| w.conflicts.is_empty()));
}

#[test]
fn undoing_a_syncs_group_restores_the_bytes() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    a.write("x.md", &topic("X", "x", "user", "One.\n\nTwo."));
    a.write("y.md", &topic("Y", "y", "user", "Why."));
    a.sync();
    b.sync();
    let before = b.files();
    a.write(
        "x.md",
        &topic("X", "x", "user", "One.\n\nTwo, edited.\n\nThree."),
    );
    std::fs::remove_file(a.root().join("y.md")).unwrap();
    a.write("z.md", &topic("Z", "z", "user", "Zed."));
    a.sync();
    let r = b.sync();
    let g = r
        .workspaces
        .iter()
        .find(|w| w.workspace == "personal")
        .unwrap()
        .group
        .unwrap();
    assert_ne!(b.files(), before);
    let info = b.vault.group(g).unwrap();
    assert_eq!(info.kind, "sync");
    assert_eq!(info.label, "Sync: changes by ana", "history says who");
    assert_eq!(info.changes.len(), 3);
    b.vault.undo_group(g, ChangeSource::User).unwrap();
    assert_eq!(b.files(), before, "byte-exact");
}

/// Encode a path as Claude Code / Qwen Code name its project folder.
pub fn encoded(p: &Path) -> String {
    p.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

#[test]
fn one_repository_cloned_at_two_paths_shares_one_project_memory() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    // The project: one remote, cloned at two different paths.
    let seed = t.path().join("seed");
    std::fs::create_dir_all(&seed).unwrap();
    git(&seed, &["init", "-q"]);
    std::fs::write(seed.join("README"), "webapp\n").unwrap();
    git(&seed, &["add", "README"]);
    git(&seed, &["commit", "-q", "-m", "first"]);
    let origin = t.path().join("webapp.git");
    git(
        t.path(),
        &[
            "clone",
            "-q",
            "--bare",
            seed.to_str().unwrap(),
            origin.to_str().unwrap(),
        ],
    );
    let pa = t.path().join("home-a/webapp");
    let pb = t.path().join("Users/b/code/webapp");
    for p in [&pa, &pb] {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        git(
            t.path(),
            &["clone", "-q", origin.to_str().unwrap(), p.to_str().unwrap()],
        );
    }
    // Each home's Claude Code keeps the project's memory under its own path.
    let ma = a
        .dir
        .join("claude/projects")
        .join(encoded(&pa))
        .join("memory");
    let mb = b
        .dir
        .join("claude/projects")
        .join(encoded(&pb))
        .join("memory");
    std::fs::create_dir_all(&ma).unwrap();
    std::fs::create_dir_all(&mb).unwrap();
    std::fs::write(
        ma.join("build.md"),
        topic("Build", "how to build", "project", "Run make first."),
    )
    .unwrap();
    std::fs::write(
        mb.join("tests.md"),
        topic("Tests", "how to test", "project", "Tests need Postgres."),
    )
    .unwrap();
    let ra = a.sync();
    let wa = ra
        .workspaces
        .iter()
        .find(|w| w.workspace.starts_with("claude:"))
        .unwrap();
    assert!(
        wa.key
            .as_deref()
            .unwrap()
            .starts_with("project/remote~file~"),
        "{wa:?}"
    );
    b.sync();
    a.sync();
    assert_eq!(files_under(&ma), files_under(&mb));
    assert_eq!(files_under(&ma).len(), 2);
    let kb = b.vault.sync_status().unwrap();
    let wb = kb
        .workspaces
        .iter()
        .find(|w| w.workspace.starts_with("claude:"))
        .unwrap();
    assert_eq!(wa.key, wb.key, "one key for both paths");
    // Qwen Code's memory of the user and the per-workspace switches travel too.
    std::fs::create_dir_all(a.dir.join("qwen/memories")).unwrap();
    std::fs::create_dir_all(b.dir.join("qwen/memories")).unwrap();
    std::fs::write(
        a.dir.join("qwen/memories/me.md"),
        topic("Me", "who I am", "user", "Prefers Rust."),
    )
    .unwrap();
    mnemo_store::settings::set_switch(&a.dir.join("home"), "auto_dream", "personal", false)
        .unwrap();
    a.sync();
    b.sync();
    assert!(b.dir.join("qwen/memories/me.md").exists());
    assert_eq!(
        mnemo_store::settings::switch(&b.dir.join("home"), "auto_dream", "personal"),
        Some(false)
    );
    // MEMORY.md is not synced but regenerated here after the merge.
    assert!(
        std::fs::read_to_string(mb.join("MEMORY.md"))
            .unwrap()
            .contains("build.md")
    );
    // A project folder that is no repository does not sync, and says why.
    let loose = t.path().join("loose");
    std::fs::create_dir_all(&loose).unwrap();
    std::fs::create_dir_all(
        a.dir
            .join("claude/projects")
            .join(encoded(&loose))
            .join("memory"),
    )
    .unwrap();
    let s = a.vault.sync_status().unwrap();
    let w = s.workspaces.iter().find(|w| w.label == "loose").unwrap();
    assert!(
        w.key.is_none()
            && w.not_synced
                .as_deref()
                .unwrap()
                .contains("not a git repository"),
        "{w:?}"
    );
}

#[test]
fn a_rejected_push_fetches_merges_and_pushes_again() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, remote) = two(t.path());
    a.write("x.md", &topic("X", "x", "user", "One."));
    a.sync();
    b.sync();
    // Someone else's commit waits in a plain clone; the remote's hook pushes it in just before
    // B's push lands, and turns B's push away once — as if that person pushed first.
    let other = t.path().join("other");
    git(
        t.path(),
        &[
            "clone",
            "-q",
            remote.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
    );
    std::fs::write(
        other.join("mnemo/personal/memory/other.md"),
        topic("Other", "from elsewhere", "user", "Pushed first."),
    )
    .unwrap();
    git(&other, &["add", "-A"]);
    git(&other, &["commit", "-q", "-m", "someone else"]);
    let flag = t.path().join("once");
    std::fs::write(&flag, "").unwrap();
    let hook = remote.join("hooks/pre-receive");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\ncat >/dev/null\nif [ -f '{flag}' ]; then\n  rm '{flag}'\n  env -u GIT_DIR -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES git -C '{other}' push -q origin main >&2\n  echo 'rejected: someone pushed first' >&2\n  exit 1\nfi\n",
            flag = flag.display(),
            other = other.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    b.write("y.md", &topic("Y", "y", "user", "From B."));
    b.sync();
    assert!(!flag.exists(), "the hook ran");
    assert!(
        b.read("other.md").is_some(),
        "B merged what was pushed first"
    );
    a.sync();
    assert_eq!(a.files(), b.files());
    assert!(a.read("y.md").is_some() && a.read("other.md").is_some());
}

#[test]
fn a_workspace_shared_with_a_team_syncs_through_the_teams_remote_only() {
    let t = tempfile::tempdir().unwrap();
    let (a, c, personal_remote) = two(t.path());
    // Cleo is a teammate with a remote of her own; the team shares one more.
    let cleo_remote = t.path().join("cleo.git");
    std::fs::create_dir_all(&cleo_remote).unwrap();
    git(
        &cleo_remote,
        &["init", "-q", "--bare", "--initial-branch", "main"],
    );
    let mut cs = mnemo_sync::state::load_settings(&c.dir.join("home")).unwrap();
    cs.remote = Some(cleo_remote.display().to_string());
    let team = t.path().join("team.git");
    std::fs::create_dir_all(&team).unwrap();
    git(&team, &["init", "-q", "--bare", "--initial-branch", "main"]);
    cs.shared.insert("team".into(), team.display().to_string());
    save_settings(&c.dir.join("home"), &cs).unwrap();
    std::fs::create_dir_all(a.dir.join("home/workspaces/team/memory")).unwrap();
    let mut as_ = mnemo_sync::state::load_settings(&a.dir.join("home")).unwrap();
    as_.shared.insert("team".into(), team.display().to_string());
    save_settings(&a.dir.join("home"), &as_).unwrap();
    // A write there says it reaches the team.
    let out = a
        .vault
        .create(
            "team",
            &mnemo_store::NewMemory {
                name: "Deploy".into(),
                description: "how we deploy".into(),
                memory_type: mnemo_core::MemoryType::Project,
                body: "Deploys go through the staging cluster first.".into(),
                path: None,
            },
            ChangeSource::User,
        )
        .unwrap();
    assert!(
        out.shared
            .as_deref()
            .unwrap()
            .contains("shared with your team"),
        "{out:?}"
    );
    a.write(
        "private.md",
        &topic("Private", "mine", "user", "Only mine."),
    );
    a.sync();
    let r = c.sync();
    let w = r.workspaces.iter().find(|w| w.workspace == "team").unwrap();
    assert!(w.shared && w.changed == ["deploy.md"], "{w:?}");
    let g = c.vault.group(w.group.unwrap()).unwrap();
    assert_eq!(g.label, "Sync: changes by ana", "history says who");
    assert!(c.dir.join("home/workspaces/team/memory/deploy.md").exists());
    // Nothing private went to the team, and nothing of the team to A's own remote.
    let names = |remote: &Path| {
        let w = t.path().join(format!(
            "look-{}",
            remote.file_name().unwrap().to_string_lossy()
        ));
        let _ = std::fs::remove_dir_all(&w);
        git(
            t.path(),
            &["clone", "-q", remote.to_str().unwrap(), w.to_str().unwrap()],
        );
        git(&w, &["ls-files"])
    };
    let in_team = names(&team);
    assert!(
        in_team.contains("mnemo/team/memory/deploy.md") && !in_team.contains("private.md"),
        "{in_team}"
    );
    let in_own = names(&personal_remote);
    assert!(
        in_own.contains("private.md") && !in_own.contains("deploy.md"),
        "{in_own}"
    );
    assert!(!c.root().join("private.md").exists());
}

#[test]
fn a_ref_lock_a_killed_git_left_does_not_stop_the_next_sync() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    a.write("x.md", &topic("X", "x", "user", "One."));
    a.sync();
    // A git killed while updating the branch leaves its lock file behind.
    let repo = a.dir.join("home/sync/repo.git");
    std::fs::write(repo.join("refs/heads/main.lock"), "").unwrap();
    std::fs::write(repo.join("packed-refs.lock"), "").unwrap();
    a.write("y.md", &topic("Y", "y", "user", "Two."));
    a.vault
        .sync_remote(None, None)
        .expect("the stale lock is cleared under the sync lock");
    assert!(!repo.join("refs/heads/main.lock").exists());
    b.sync();
    assert_eq!(b.read("y.md"), a.read("y.md"));
}
