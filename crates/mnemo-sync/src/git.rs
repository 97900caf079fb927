//! The real `git` binary, driven by plumbing over a bare repository that belongs to sync alone
//! (`$MNEMO_HOME/sync/repo.git`): no work tree, so nothing but Mnemo's own writes ever touches
//! the memory folders. Every call has a time limit; a remote's answer is classified into
//! "try again later" (`remote_unreachable`) and "fix the setting" (`remote_refused`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mnemo_core::{Error, ErrorCode, Result};

use super::refs::read_refs;

/// The branch every home syncs through.
pub const BRANCH: &str = "main";
const REMOTE_REF: &str = "refs/remotes/origin/main";
const LOCAL_REF: &str = "refs/heads/main";
const PENDING_REF: &str = "refs/mnemo/pending";
/// Set once this repository's history has met a remote (pushed, or merged from one): from then
/// on a remote with an unrelated history is another history, not a first sync to adopt.
const MET_REF: &str = "refs/mnemo/met";
/// A local command (plumbing on the bare repository).
const LOCAL_LIMIT: Duration = Duration::from_secs(120);
/// A command that talks to the remote.
const REMOTE_LIMIT: Duration = Duration::from_secs(60);

/// One entry of a tree listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// `100644`, `100755`, `120000` (symlink), `160000` (submodule).
    pub mode: String,
    /// The object id.
    pub id: String,
}

/// A whole tree, path → item (blobs and links; folders are implied).
pub type Tree = BTreeMap<String, Item>;

pub use mnemo_store::fsutil::blob_id;

/// Trees read lately, by commit id (oldest first): see [`Git::tree`].
static TREES: Mutex<Vec<(String, Arc<Tree>)>> = Mutex::new(Vec::new());
const TREES_KEPT: usize = 6;

/// How old a lock file in a remote on this machine must be to be taken for one a stopped git
/// left (see [`Git::clear_remote_stale_lock`]).
const STALE_LOCK: Duration = Duration::from_secs(5);

/// The sync repository.
#[derive(Debug, Clone)]
pub struct Git {
    dir: PathBuf,
}

/// What `git` printed when it failed.
struct Failed {
    stderr: String,
    timed_out: bool,
}

impl Git {
    /// Open the bare repository at `dir`, creating it when missing.
    pub fn open(dir: &Path) -> Result<Self> {
        let git = Self {
            dir: dir.to_path_buf(),
        };
        if !dir.join("HEAD").is_file() {
            git.create()?;
        }
        Ok(git)
    }

    /// Create the bare repository: `git init` in a folder of its own beside it, renamed into
    /// place — a `git init` killed midway leaves only that folder, never a half-made repository
    /// (a `config.lock` in it refused every later init). A folder already at the place without
    /// a `HEAD` is such a leftover from before: moved aside (kept, named in the log).
    fn create(&self) -> Result<()> {
        let dir = &self.dir;
        let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
            return Err(Error::usage(format!(
                "{} is not a folder path",
                dir.display()
            )));
        };
        let name = name.to_string_lossy();
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::io(format!("creating {}", parent.display()), &e))?;
        if std::fs::symlink_metadata(dir).is_ok() {
            let aside = parent.join(format!(
                "{name}.incomplete-{}",
                chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
            ));
            std::fs::rename(dir, &aside)
                .map_err(|e| Error::io(format!("moving aside {}", dir.display()), &e))?;
            tracing::warn!(
                "{} was an unfinished repository (a sync stopped while creating it): moved to {}",
                dir.display(),
                aside.display()
            );
        }
        // Leftovers of inits killed before their rename (a minute old: not being made now).
        let prefix = format!(".{name}.init-");
        for e in std::fs::read_dir(parent).into_iter().flatten().flatten() {
            let old = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_secs(60));
            if old && e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        let tmp = parent.join(format!("{prefix}{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let out = Command::new("git")
            .args(["init", "--bare", "--quiet", "--initial-branch", BRANCH])
            .arg(&tmp)
            .env("GIT_TERMINAL_PROMPT", "0")
            .output()
            .map_err(|e| {
                Error::io(
                    "running git (is it installed? Sync needs the `git` command)",
                    &e,
                )
            })?;
        if !out.status.success() {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(Error::new(
                ErrorCode::Io,
                format!(
                    "git could not create {}: {}",
                    dir.display(),
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            ));
        }
        match std::fs::rename(&tmp, dir) {
            Ok(()) => Ok(()),
            // Another process made it meanwhile: theirs is used.
            Err(_) if dir.join("HEAD").is_file() => {
                let _ = std::fs::remove_dir_all(&tmp);
                Ok(())
            }
            Err(e) => Err(Error::io(format!("creating {}", dir.display()), &e)),
        }
    }

    /// Remove lock files a git process killed mid-write left behind (`refs/heads/main.lock`,
    /// `packed-refs.lock`…): they would refuse every later ref update. Only call it holding the
    /// home's sync lock — no other process writes this repository then. Returns how many.
    pub fn clear_stale_locks(&self) -> usize {
        let mut removed = 0;
        let mut stack = vec![self.dir.join("refs")];
        let mut found: Vec<PathBuf> = [
            "packed-refs.lock",
            "HEAD.lock",
            "config.lock",
            "shallow.lock",
            "index.lock",
        ]
        .iter()
        .map(|n| self.dir.join(n))
        .filter(|p| p.is_file())
        .collect();
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                match e.file_type() {
                    Ok(t) if t.is_dir() => stack.push(p),
                    Ok(t) if t.is_file() && p.extension().is_some_and(|x| x == "lock") => {
                        found.push(p);
                    }
                    _ => {}
                }
            }
        }
        for p in found {
            if std::fs::remove_file(&p).is_ok() {
                tracing::warn!(lock = %p.display(), "removed a lock file a stopped git process left in the sync repository");
                removed += 1;
            }
        }
        removed
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new("git");
        c.arg("--git-dir")
            .arg(&self.dir)
            .args(args)
            // Never ask a person for anything: a password prompt would hang a background sync.
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
            .env("LC_ALL", "C")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// Run `git args…` with `input` on stdin, within `limit`.
    fn run_limited(
        &self,
        args: &[&str],
        input: Option<Vec<u8>>,
        limit: Duration,
    ) -> std::result::Result<Vec<u8>, Failed> {
        let mut child = self.command(args).spawn().map_err(|e| Failed {
            stderr: format!("git could not start: {e}"),
            timed_out: false,
        })?;
        let mut stdin = child.stdin.take();
        let feeder = std::thread::spawn(move || {
            if let (Some(s), Some(bytes)) = (stdin.as_mut(), input) {
                let _ = s.write_all(&bytes);
            }
            drop(stdin);
        });
        let mut out = child.stdout.take();
        let reader = std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(o) = out.as_mut() {
                let _ = o.read_to_end(&mut buf);
            }
            buf
        });
        let mut err = child.stderr.take();
        let err_reader = std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(o) = err.as_mut() {
                let _ = o.read_to_end(&mut buf);
            }
            buf
        });
        let start = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if start.elapsed() > limit => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(_) => break None,
            }
        };
        let _ = feeder.join();
        let stdout = reader.join().unwrap_or_default();
        let stderr = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
        match status {
            Some(s) if s.success() => Ok(stdout),
            Some(_) => Err(Failed {
                stderr,
                timed_out: false,
            }),
            None => Err(Failed {
                stderr,
                timed_out: true,
            }),
        }
    }

    /// A local plumbing call; failures are `io`.
    fn local(&self, args: &[&str], input: Option<Vec<u8>>) -> Result<Vec<u8>> {
        self.run_limited(args, input, LOCAL_LIMIT).map_err(|f| {
            Error::new(
                ErrorCode::Io,
                format!(
                    "git {} failed in {}: {}",
                    args.first().copied().unwrap_or_default(),
                    self.dir.display(),
                    if f.timed_out {
                        "it took too long".to_owned()
                    } else {
                        f.stderr.trim().to_owned()
                    }
                ),
            )
        })
    }

    /// Point `origin` at `url`.
    pub fn set_remote(&self, url: &str) -> Result<()> {
        let current = self
            .local(&["config", "--get", "remote.origin.url"], None)
            .ok()
            .map(|o| String::from_utf8_lossy(&o).trim().to_owned());
        if current.as_deref() == Some(url) {
            return Ok(());
        }
        if current.is_some() {
            self.local(&["remote", "set-url", "origin", url], None)?;
        } else {
            self.local(&["remote", "add", "origin", url], None)?;
        }
        Ok(())
    }

    /// Fetch the remote's branch into `refs/remotes/origin/main` (absent when the remote has
    /// none yet).
    pub fn fetch(&self) -> Result<()> {
        let refspec = "+refs/heads/*:refs/remotes/origin/*";
        self.run_limited(
            &[
                "fetch",
                "--quiet",
                "--prune",
                "--no-tags",
                "origin",
                refspec,
            ],
            None,
            REMOTE_LIMIT,
        )
        .map(|_| ())
        .map_err(|f| remote_error("fetching from", &f))
    }

    /// Push `main` to the remote; `Ok(false)` when the remote moved on since the fetch (someone
    /// pushed first: fetch, merge and push again).
    pub fn push(&self) -> Result<bool> {
        let spec = format!("{LOCAL_REF}:refs/heads/{BRANCH}");
        match self.run_limited(&["push", "--quiet", "origin", &spec], None, REMOTE_LIMIT) {
            Ok(_) => {
                self.point_local_remote_head();
                Ok(true)
            }
            Err(f)
                if ["rejected", "non-fast-forward", "fetch first", "stale info"]
                    .iter()
                    .any(|w| f.stderr.contains(w)) =>
            {
                self.clear_remote_stale_lock(&f.stderr);
                Ok(false)
            }
            Err(f) => Err(remote_error("pushing to", &f)),
        }
    }

    /// A push refused because the remote's ref is locked (`Unable to create '….lock': File
    /// exists`): when the remote is a folder here and the lock is older than [`STALE_LOCK`] —
    /// git holds a ref lock for milliseconds — a git killed mid-push (a sync stopped with
    /// SIGKILL, a machine that lost power with the remote on a shared disk) left it, and it
    /// would refuse every push from every home. It is removed; the round then pushes again.
    fn clear_remote_stale_lock(&self, stderr: &str) {
        let Some(lock) = stderr
            .split("Unable to create '")
            .nth(1)
            .and_then(|rest| rest.split_once("': File exists"))
            .map(|(p, _)| PathBuf::from(p))
        else {
            return;
        };
        let Some(remote) = self.local_remote_dir() else {
            return;
        };
        let (Ok(remote), Some(parent), Some(name)) = (
            remote.canonicalize(),
            lock.parent().and_then(|p| p.canonicalize().ok()),
            lock.file_name(),
        ) else {
            return;
        };
        let lock = parent.join(name);
        let is_lock = lock.extension().is_some_and(|x| x == "lock");
        let Ok(meta) = std::fs::symlink_metadata(&lock) else {
            return;
        };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age >= STALE_LOCK);
        if is_lock && lock.starts_with(&remote) && meta.is_file() && old {
            if let Err(e) = std::fs::remove_file(&lock) {
                tracing::warn!(lock = %lock.display(), "a stale lock in the sync remote stays: {e}");
            } else {
                tracing::warn!(lock = %lock.display(), "removed a lock file a stopped git process left in the sync remote");
            }
        }
    }

    /// The remote's folder, when it is a repository on this machine.
    fn local_remote_dir(&self) -> Option<PathBuf> {
        let url = self
            .local(&["config", "--get", "remote.origin.url"], None)
            .ok()?;
        let url = String::from_utf8_lossy(&url).trim().to_owned();
        let remote = PathBuf::from(url.strip_prefix("file://").unwrap_or(&url));
        (remote.is_absolute() && remote.join("HEAD").is_file()).then_some(remote)
    }

    /// The branches the remote holds now (name → commit), without fetching: read from its
    /// folder for a remote on this machine (no process), else one `git ls-remote --heads`.
    /// `None` when they cannot be known (unreachable, a ref being written).
    #[must_use]
    pub fn remote_branches(&self, url: &str) -> Option<BTreeMap<String, String>> {
        let path = Path::new(url.strip_prefix("file://").unwrap_or(url));
        if path.is_absolute() {
            let gitdir = if path.join("HEAD").is_file() {
                path.to_path_buf()
            } else {
                path.join(".git")
            };
            return read_refs(&gitdir, "heads");
        }
        let out = self
            .run_limited(&["ls-remote", "--heads", "origin"], None, REMOTE_LIMIT)
            .ok()?;
        let mut refs = BTreeMap::new();
        for line in String::from_utf8_lossy(&out).lines() {
            let (id, name) = line.split_once('\t')?;
            refs.insert(name.strip_prefix("refs/heads/")?.to_owned(), id.to_owned());
        }
        Some(refs)
    }

    /// This repository's branch and what it last fetched of the remote's, as `(own, remote's)`
    /// (name → commit), read from its files.
    #[must_use]
    pub fn refs_on_disk(&self) -> Option<(BTreeMap<String, String>, BTreeMap<String, String>)> {
        let mut fetched = read_refs(&self.dir, "remotes/origin")?;
        fetched.remove("HEAD");
        Some((read_refs(&self.dir, "heads")?, fetched))
    }

    /// A bare remote on this machine made with a plain `git init --bare` names `master` as its
    /// HEAD while Mnemo pushes `main`, so a `git clone` of it checks out nothing. When the
    /// remote is a folder here and its HEAD names a branch it does not have, point it at
    /// Mnemo's (best effort; a hosted remote takes the first pushed branch as its default).
    fn point_local_remote_head(&self) {
        let Some(remote) = self.local_remote_dir() else {
            return;
        };
        let theirs = Self { dir: remote };
        let Ok(head) = theirs.local(&["symbolic-ref", "HEAD"], None) else {
            return;
        };
        let head = String::from_utf8_lossy(&head).trim().to_owned();
        let ours = format!("refs/heads/{BRANCH}");
        if head == ours || theirs.commit_of(&head).is_some() {
            return;
        }
        if let Err(e) = theirs.local(&["symbolic-ref", "HEAD", &ours], None) {
            tracing::debug!("could not point the remote's HEAD at {ours}: {e}");
        }
    }

    /// The commit a name points at, if it exists.
    #[must_use]
    pub fn commit_of(&self, name: &str) -> Option<String> {
        let spec = format!("{name}^{{commit}}");
        self.local(&["rev-parse", "--verify", "--quiet", &spec], None)
            .ok()
            .map(|o| String::from_utf8_lossy(&o).trim().to_owned())
            .filter(|s| !s.is_empty())
    }

    /// The remote's other branches as last fetched (name, commit): Mnemo syncs through `main`
    /// only, so memory committed to another branch is named, never taken silently.
    #[must_use]
    pub fn other_remote_branches(&self) -> Vec<(String, String)> {
        let Ok(out) = self.local(
            &[
                "for-each-ref",
                "--format=%(refname:strip=3) %(objectname)",
                "refs/remotes/origin/",
            ],
            None,
        ) else {
            return Vec::new();
        };
        String::from_utf8_lossy(&out)
            .lines()
            .filter_map(|l| l.split_once(' '))
            .filter(|(name, _)| *name != BRANCH && *name != "HEAD")
            .map(|(n, c)| (n.to_owned(), c.to_owned()))
            .collect()
    }

    /// This home's last synced commit.
    #[must_use]
    pub fn local_head(&self) -> Option<String> {
        self.commit_of(LOCAL_REF)
    }

    /// The remote's commit as last fetched.
    #[must_use]
    pub fn remote_head(&self) -> Option<String> {
        self.commit_of(REMOTE_REF)
    }

    /// The author name of a commit.
    #[must_use]
    pub fn author_of(&self, commit: &str) -> Option<String> {
        self.local(&["log", "-1", "--format=%an", commit], None)
            .ok()
            .map(|o| String::from_utf8_lossy(&o).trim().to_owned())
            .filter(|s| !s.is_empty())
    }

    /// Who made the commits on `to` since `from` (all of `to` without one), newest first, each
    /// name once (of the last 200 commits).
    #[must_use]
    pub fn authors(&self, from: Option<&str>, to: &str) -> Vec<String> {
        if from == Some(to) {
            return Vec::new();
        }
        let range = from.map_or_else(|| to.to_owned(), |f| format!("{f}..{to}"));
        let out = self
            .local(&["log", "-n", "200", "--format=%an", &range], None)
            .unwrap_or_default();
        let mut names: Vec<String> = Vec::new();
        for n in String::from_utf8_lossy(&out).lines() {
            let n = mnemo_store::fsutil::printable(n.trim());
            if !n.is_empty() && !names.contains(&n) {
                names.push(n);
            }
        }
        names
    }

    /// The best common ancestor of two commits (`None`: unrelated histories).
    ///
    /// Callers pass at least one commit that exists here (a commit is its own base).
    #[must_use]
    pub fn merge_base(&self, a: &str, b: &str) -> Option<String> {
        if a == b {
            return Some(a.to_owned());
        }
        self.local(&["merge-base", a, b], None)
            .ok()
            .map(|o| String::from_utf8_lossy(&o).trim().to_owned())
            .filter(|s| !s.is_empty())
    }

    /// Commits on `a` not on `b`, and on `b` not on `a`.
    #[must_use]
    pub fn ahead_behind(&self, a: &str, b: &str) -> (usize, usize) {
        if a == b {
            return (0, 0);
        }
        let range = format!("{a}...{b}");
        self.local(&["rev-list", "--left-right", "--count", &range], None)
            .ok()
            .and_then(|o| {
                let s = String::from_utf8_lossy(&o).into_owned();
                let mut it = s.split_whitespace().map(|n| n.parse().unwrap_or(0));
                Some((it.next()?, it.next()?))
            })
            .unwrap_or((0, 0))
    }

    /// Every blob and link of a commit's tree. A commit named by its full id always has the
    /// same tree, so the last few read are kept for the process (a sync round and the status
    /// after it read the same two or three trees several times).
    pub fn tree(&self, commit: &str) -> Result<Tree> {
        let by_id =
            matches!(commit.len(), 40 | 64) && commit.bytes().all(|b| b.is_ascii_hexdigit());
        if by_id
            && let Some(t) = TREES.lock().ok().and_then(|c| {
                c.iter()
                    .find(|(id, _)| id == commit)
                    .map(|(_, t)| Arc::clone(t))
            })
        {
            return Ok((*t).clone());
        }
        let tree = self.read_tree(commit)?;
        if by_id && let Ok(mut c) = TREES.lock() {
            if c.len() >= TREES_KEPT {
                c.remove(0);
            }
            c.push((commit.to_owned(), Arc::new(tree.clone())));
        }
        Ok(tree)
    }

    fn read_tree(&self, commit: &str) -> Result<Tree> {
        let out = self.local(&["ls-tree", "-r", "-z", "--full-tree", commit], None)?;
        let mut tree = Tree::new();
        for rec in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            // `<mode> SP <type> SP <id> TAB <path>`
            let Some(tab) = rec.iter().position(|b| *b == b'\t') else {
                continue;
            };
            let head = String::from_utf8_lossy(&rec[..tab]).into_owned();
            let path = String::from_utf8_lossy(&rec[tab + 1..]).into_owned();
            let mut f = head.split(' ');
            let (Some(mode), Some(_kind), Some(id)) = (f.next(), f.next(), f.next()) else {
                continue;
            };
            tree.insert(
                path,
                Item {
                    mode: mode.to_owned(),
                    id: id.to_owned(),
                },
            );
        }
        Ok(tree)
    }

    /// The contents of these blobs (one `cat-file --batch` for all). A blob over `cap` bytes
    /// is left out.
    pub fn blobs(&self, ids: &[String], cap: u64) -> Result<HashMap<String, Vec<u8>>> {
        let mut out = HashMap::new();
        if ids.is_empty() {
            return Ok(out);
        }
        // Sizes first: a blob over the cap is never read (a hostile remote's 50 MB blobs cost
        // nothing but their header line).
        let lines = |ids: &mut dyn Iterator<Item = &String>| {
            let mut input = Vec::new();
            for id in ids {
                input.extend_from_slice(id.as_bytes());
                input.push(b'\n');
            }
            input
        };
        let sizes = self.local(&["cat-file", "--batch-check"], Some(lines(&mut ids.iter())))?;
        let small: BTreeSet<String> = String::from_utf8_lossy(&sizes)
            .lines()
            .filter_map(|l| {
                let mut f = l.split(' ');
                let (id, kind, size) = (f.next()?, f.next()?, f.next()?.parse::<u64>().ok()?);
                (kind == "blob" && size <= cap).then(|| id.to_owned())
            })
            .collect();
        if small.is_empty() {
            return Ok(out);
        }
        let raw = self.local(&["cat-file", "--batch"], Some(lines(&mut small.iter())))?;
        let mut at = 0;
        while at < raw.len() {
            let Some(nl) = raw[at..].iter().position(|b| *b == b'\n') else {
                break;
            };
            let header = String::from_utf8_lossy(&raw[at..at + nl]).into_owned();
            at += nl + 1;
            let mut f = header.split(' ');
            let (Some(id), Some(kind), Some(size)) = (f.next(), f.next(), f.next()) else {
                continue; // `<id> missing`
            };
            let size: usize = size.parse().unwrap_or(0);
            let end = (at + size).min(raw.len());
            if kind == "blob" && size as u64 <= cap {
                out.insert(id.to_owned(), raw[at..end].to_vec());
            }
            at = end + 1;
        }
        Ok(out)
    }

    /// Write a commit: `parents` (first = the tree `changes` apply to), each change a path and
    /// its new content — a blob already in the repository (`Content::Id`), bytes, or removed.
    /// Returns the new commit's id; no branch moves.
    pub fn commit(
        &self,
        parents: &[String],
        changes: &[(String, Content)],
        message: &str,
        author: &str,
    ) -> Result<String> {
        let now = chrono::Utc::now().timestamp();
        let mut s: Vec<u8> = Vec::new();
        let line = |s: &mut Vec<u8>, l: String| {
            s.extend_from_slice(l.as_bytes());
            s.push(b'\n');
        };
        line(&mut s, format!("commit {PENDING_REF}"));
        line(&mut s, format!("author {author} {now} +0000"));
        line(&mut s, format!("committer {author} {now} +0000"));
        line(&mut s, format!("data {}", message.len()));
        line(&mut s, message.to_owned());
        if let Some(first) = parents.first() {
            line(&mut s, format!("from {first}"));
        }
        for p in parents.iter().skip(1) {
            line(&mut s, format!("merge {p}"));
        }
        for (path, c) in changes {
            let q = quote(path);
            match c {
                Content::Removed => line(&mut s, format!("D {q}")),
                Content::Id(item) => line(&mut s, format!("M {} {} {q}", item.mode, item.id)),
                Content::Bytes(b) => {
                    line(&mut s, format!("M 100644 inline {q}"));
                    line(&mut s, format!("data {}", b.len()));
                    s.extend_from_slice(b);
                    s.push(b'\n');
                }
            }
        }
        line(&mut s, "done".to_owned());
        self.local(
            &[
                "fast-import",
                "--quiet",
                "--force",
                "--done",
                "--date-format=raw",
            ],
            Some(s),
        )?;
        self.commit_of(PENDING_REF).ok_or_else(|| {
            Error::new(
                ErrorCode::Io,
                "git fast-import wrote no commit: try the sync again",
            )
        })
    }

    /// Move `main` to `commit` (atomically; refused if it moved since `old`).
    /// Whether this repository's history ever met a remote (see [`Git::mark_met`]).
    #[must_use]
    pub fn has_met(&self) -> bool {
        self.commit_of(MET_REF).is_some()
    }

    /// Record that this history met a remote at `commit`.
    pub fn mark_met(&self, commit: &str) -> Result<()> {
        self.local(&["update-ref", MET_REF, commit], None)
            .map(|_| ())
    }

    pub fn set_local_head(&self, commit: &str, old: Option<&str>) -> Result<()> {
        let zero = "0".repeat(40);
        self.local(
            &[
                "update-ref",
                "-m",
                "mnemo sync",
                LOCAL_REF,
                commit,
                old.unwrap_or(&zero),
            ],
            None,
        )
        .map(|_| ())
    }
}

/// New content of a path in a commit.
#[derive(Debug, Clone)]
pub enum Content {
    /// A blob (or link) the repository already holds, with its mode.
    Id(Item),
    /// New bytes.
    Bytes(Vec<u8>),
    /// The path goes.
    Removed,
}

/// A path as fast-import reads it: C-style quoted.
fn quote(path: &str) -> String {
    let mut q = String::with_capacity(path.len() + 2);
    q.push('"');
    for c in path.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// A failed talk with the remote, as a sentence and a code a client can act on.
fn remote_error(doing: &str, f: &Failed) -> Error {
    let e = f.stderr.trim();
    let low = e.to_ascii_lowercase();
    if f.timed_out {
        return Error::new(
            ErrorCode::RemoteUnreachable,
            format!(
                "{doing} the sync remote took more than {} s: local changes wait; sync again when the \
                 network is back",
                REMOTE_LIMIT.as_secs()
            ),
        );
    }
    let refused = [
        "authentication failed",
        "permission denied",
        "could not read username",
        "invalid username or password",
        "403",
        "401",
        "access denied",
    ];
    if refused.iter().any(|w| low.contains(w)) {
        return Error::new(
            ErrorCode::RemoteRefused,
            format!(
                "the sync remote refused the credentials ({}): check your access to it, then sync again",
                last_line(e)
            ),
        );
    }
    let missing = [
        "does not appear to be a git repository",
        "not found",
        "no such file or directory",
        "repository not found",
        "not a git repository",
    ];
    if missing.iter().any(|w| low.contains(w)) {
        return Error::new(
            ErrorCode::RemoteRefused,
            format!(
                "the sync remote is not a git repository Mnemo can use ({}): check the URL with \
                 `mnemo sync remote set URL`",
                last_line(e)
            ),
        );
    }
    Error::new(
        ErrorCode::RemoteUnreachable,
        format!(
            "{doing} the sync remote failed ({}): local changes wait; sync again later",
            last_line(e)
        ),
    )
}

/// What git said, whole (blank lines dropped, lines joined, at most 2,000 characters), with
/// secrets redacted and control characters escaped: the last line alone often says nothing
/// ("(and the repository exists.)").
fn last_line(s: &str) -> String {
    let lines: Vec<&str> = s.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if lines.is_empty() {
        return "no message".to_owned();
    }
    let mut said = lines.join(" / ");
    if said.chars().count() > 2000 {
        said = said.chars().take(2000).collect::<String>() + "…";
    }
    mnemo_store::fsutil::printable(&mnemo_store::secrets::redact(&said).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }

    #[test]
    fn paths_are_quoted_for_fast_import() {
        assert_eq!(quote("a b/\"c\".md"), "\"a b/\\\"c\\\".md\"");
    }
}
