//! The supervisor of the local model server. One `llama-server` per home, shared by every Mnemo
//! process of that home (the app, `mnemo serve`, `mnemo chat`, `mnemo mcp`): started on demand
//! on 127.0.0.1 with a free port and a fresh key only Mnemo holds, in its own process group (a
//! Ctrl-C meant for the terminal does not reach it), its output appended to
//! `$MNEMO_HOME/local-model/server.log`. `server.json` there says where it runs (pid, port, key,
//! when it was started); `start.lock` keeps two processes from starting it at once;
//! `leases/<pid>` names each process that uses it; `last-used` is touched at each use. Before
//! each use [`Supervisor::ensure`] checks it is alive and healthy and starts it again when it is
//! not — at most [`MAX_STARTS`] starts in [`START_WINDOW`], then it says so.
//!
//! The server runs under a small shell watchdog, the leader of its process group, so it is
//! stopped even when every Mnemo process was killed: when no live process has held a lease for
//! [`Timing::grace`] (the last one exited), or nothing used it for [`Timing::idle`].

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::install::installed;
use crate::manifest::LocalModel;
use crate::{LocalError, Result, io, size_words};

/// Starts allowed within [`START_WINDOW`] since the server last stopped on purpose (the first
/// and three restarts after crashes): a stop by the watchdog or [`Supervisor::stop`] clears the
/// record, a crash keeps it.
pub const MAX_STARTS: usize = 4;
/// The window [`MAX_STARTS`] counts in.
pub const START_WINDOW: Duration = Duration::from_secs(600);
/// How long a starting server may take to load its model.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(240);
/// The log is started afresh past this size.
const MAX_LOG_BYTES: u64 = 4 * 1024 * 1024;

/// When the watchdog stops the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Stop when no live Mnemo process holds a lease and nothing used it for this long.
    pub grace: Duration,
    /// Stop when nothing used it for this long.
    pub idle: Duration,
    /// How often the watchdog looks.
    pub every: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            grace: Duration::from_secs(60),
            idle: Duration::from_secs(15 * 60),
            every: Duration::from_secs(10),
        }
    }
}

/// The watchdog: starts the server (its arguments follow), and stops it when it is idle or no
/// live process holds a lease; exits when the server does. `$1` is the state folder, `$2` the
/// grace and `$3` the idle time in seconds, `$4` the period.
const WATCHDOG: &str = r#"dir=$1; grace=$2; idle=$3; every=$4; shift 4
"$@" &
srv=$!
trap 'kill $srv 2>/dev/null; wait $srv; exit 0' TERM INT HUP
while kill -0 $srv 2>/dev/null; do
  sleep "$every" & wait $!
  if [ ! -d "$dir" ]; then
    # The home was removed (a test's temporary home, a deleted profile): nobody can use it.
    echo "mnemo: stopping the local model server (its state folder $dir is gone)"
    kill $srv 2>/dev/null
    break
  fi
  now=$(date +%s)
  used=$(stat -c %Y "$dir/last-used" 2>/dev/null || echo "$now")
  quiet=$((now - used))
  live=0
  for f in "$dir"/leases/*; do
    [ -e "$f" ] || continue
    if [ -d "/proc/${f##*/}" ]; then live=1; else rm -f "$f"; fi
  done
  if [ "$quiet" -ge "$idle" ] || { [ "$live" = 0 ] && [ "$quiet" -ge "$grace" ]; }; then
    echo "mnemo: stopping the local model server (unused for ${quiet}s, $live live Mnemo processes)"
    # A stop on purpose, not a crash: the record goes, so the next start is counted afresh.
    rm -f "$dir/server.json"
    kill $srv 2>/dev/null
    break
  fi
done
wait $srv
"#;

/// Where the server runs, as `server.json` records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerState {
    /// Its process id (and process group).
    pub pid: u32,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// The key its API asks for.
    pub key: String,
    /// The model it serves.
    pub model: String,
    /// Unix seconds of each start within the window (oldest first).
    pub starts: Vec<u64>,
}

/// A server ready for requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    /// `http://127.0.0.1:<port>/v1`.
    pub base_url: String,
    /// Its key.
    pub key: String,
    /// The model name to send.
    pub model: String,
    /// Its process id.
    pub pid: u32,
    /// This call started it.
    pub started: bool,
}

/// The supervisor of one home's local model server.
#[derive(Debug, Clone)]
pub struct Supervisor {
    dir: PathBuf,
    server: PathBuf,
    gguf: PathBuf,
    model: LocalModel,
    threads: usize,
    timing: Timing,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `llama-server`: `$MNEMO_LLAMA_SERVER`, else where `scripts/llama.sh` builds it, else the one
/// the Linux package ships ([`packaged`]), else `PATH`.
#[must_use]
pub fn find_server() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MNEMO_LLAMA_SERVER").map(PathBuf::from) {
        return p.is_file().then_some(p);
    }
    // Each place in turn: a missing one (no cache folder yet) must not end the search.
    let built = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(dirs::cache_dir)
        .and_then(|cache| fs::read_dir(cache.join("mnemo")).ok())
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("llama-server"))
        .filter(|p| {
            p.parent()
                .and_then(Path::file_name)
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("llama-server-"))
                && p.is_file()
        })
        .max();
    built.or_else(packaged).or_else(|| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("llama-server"))
                .find(|p| p.is_file())
        })
    })
}

/// The `llama-server` the Linux package ships: `<prefix>/lib/mnemo/llama-server` beside the
/// running `<prefix>/bin/mnemo` (or `mnemo-app`).
fn packaged() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let p = exe.parent()?.parent()?.join("lib/mnemo/llama-server");
    p.is_file().then_some(p)
}

/// Whether `pid` is a live (not zombie) `llama-server`.
fn alive(pid: u32) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the parenthesised command name.
    let state = stat
        .rsplit(')')
        .next()
        .and_then(|s| s.split_whitespace().next());
    if matches!(state, Some("Z" | "X")) {
        return false;
    }
    fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|c| String::from_utf8_lossy(&c).contains("llama-server"))
}

fn free_port() -> Result<u16> {
    let l = std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(io("finding a free port"))?;
    Ok(l.local_addr().map_err(io("finding a free port"))?.port())
}

fn new_key() -> String {
    let mut b = [0_u8; 24];
    if getrandom::fill(&mut b).is_err() {
        // No entropy source: the time and pid still make a key no other program knows.
        let seed = format!("{:?}{}", SystemTime::now(), std::process::id());
        for (i, c) in seed.bytes().enumerate() {
            b[i % b.len()] ^= c;
        }
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Supervisor {
    /// The supervisor for the home at `home`, running `model` from `models`.
    ///
    /// # Errors
    /// The model is not installed, or `llama-server` is not found.
    pub fn new(home: &Path, model: LocalModel, models: &Path) -> Result<Self> {
        if !installed(&model, models) {
            return Err(LocalError::NotInstalled {
                size: size_words(model.size()),
            });
        }
        let server = find_server().ok_or(LocalError::NoServer)?;
        Ok(Self::with(home, model, model.path(models), server))
    }

    /// A supervisor with every part named (tests run another GGUF).
    #[must_use]
    pub fn with(home: &Path, model: LocalModel, gguf: PathBuf, server: PathBuf) -> Self {
        let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        Self {
            dir: home.join("local-model"),
            server,
            gguf,
            model,
            threads,
            timing: Timing::default(),
        }
    }

    /// This supervisor with other stop times (tests).
    #[must_use]
    pub fn timing(mut self, timing: Timing) -> Self {
        self.timing = timing;
        self
    }

    /// Note a use now (the watchdog's idle clock).
    fn touch(&self) {
        let _ = fs::create_dir_all(&self.dir);
        let _ = fs::write(self.dir.join("last-used"), b"");
    }

    /// The server's log.
    #[must_use]
    pub fn log_path(&self) -> PathBuf {
        self.dir.join("server.log")
    }

    fn state_path(&self) -> PathBuf {
        self.dir.join("server.json")
    }

    /// What `server.json` says (`None`: never started, or stopped).
    #[must_use]
    pub fn state(&self) -> Option<ServerState> {
        fs::read(self.state_path())
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
    }

    fn save(&self, s: &ServerState) -> Result<()> {
        fs::create_dir_all(&self.dir).map_err(io(format!("creating {}", self.dir.display())))?;
        let tmp = self.dir.join("server.json.tmp");
        let body = serde_json::to_vec_pretty(s).unwrap_or_default();
        let mut f = File::create(&tmp).map_err(io(format!("writing {}", tmp.display())))?;
        f.write_all(&body)
            .and_then(|()| f.sync_all())
            .map_err(io(format!("writing {}", tmp.display())))?;
        fs::rename(&tmp, self.state_path()).map_err(io("saving the local model's state"))
    }

    /// The running server, if its process is alive (health not checked).
    #[must_use]
    pub fn running(&self) -> Option<ServerState> {
        self.state().filter(|s| alive(s.pid))
    }

    /// Hold the start lock of this home (released when the file is closed).
    fn start_lock(&self) -> Result<File> {
        fs::create_dir_all(&self.dir).map_err(io(format!("creating {}", self.dir.display())))?;
        let f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("start.lock"))
            .map_err(io("opening the local model's start lock"))?;
        rustix::fs::flock(&f, rustix::fs::FlockOperation::LockExclusive).map_err(|e| {
            LocalError::Io {
                what: "taking the local model's start lock".to_owned(),
                source: e.into(),
            }
        })?;
        Ok(f)
    }

    /// Make sure the server runs and answers; start it (again) when it does not.
    ///
    /// # Errors
    /// It cannot be started, crashed too often, or did not load in time.
    pub async fn ensure(&self) -> Result<Running> {
        let dir = self.dir.clone();
        let lock = tokio::task::spawn_blocking({
            let me = self.clone();
            move || me.start_lock()
        })
        .await
        .map_err(|e| {
            LocalError::Server(
                format!("could not be started: {e}"),
                dir.display().to_string(),
            )
        })??;
        let result = self.ensure_locked().await;
        drop(lock);
        result
    }

    async fn ensure_locked(&self) -> Result<Running> {
        let previous = self.state();
        if let Some(s) = previous.as_ref().filter(|s| alive(s.pid)) {
            // Alive: healthy now, or still loading (another process just started it).
            if self.wait_healthy(s, LOAD_TIMEOUT).await.is_ok() {
                self.touch();
                return Ok(self.running_of(s, false));
            }
            tracing::warn!(
                "the local model server (pid {}) does not answer: restarting it",
                s.pid
            );
        }
        if let Some(s) = &previous {
            // Whatever is left of its process group (a server whose watchdog was killed).
            kill_group(s.pid);
        }
        let t = now();
        let mut starts: Vec<u64> = previous
            .map(|s| s.starts)
            .unwrap_or_default()
            .into_iter()
            .filter(|&at| t.saturating_sub(at) < START_WINDOW.as_secs())
            .collect();
        if starts.len() >= MAX_STARTS {
            return Err(LocalError::Server(
                format!(
                    "stopped {} times in {} minutes, so it is not started again for now; try again in a few minutes",
                    starts.len(),
                    START_WINDOW.as_secs() / 60
                ),
                self.log_path().display().to_string(),
            ));
        }
        starts.push(t);
        let state = ServerState {
            pid: 0,
            port: free_port()?,
            key: new_key(),
            model: self.model.name.to_owned(),
            starts,
        };
        self.touch();
        let pid = self.spawn(&state)?;
        let state = ServerState { pid, ..state };
        self.save(&state)?;
        self.wait_healthy(&state, LOAD_TIMEOUT).await?;
        Ok(self.running_of(&state, true))
    }

    fn running_of(&self, s: &ServerState, started: bool) -> Running {
        Running {
            base_url: format!("http://127.0.0.1:{}/v1", s.port),
            key: s.key.clone(),
            model: self.model.name.to_owned(),
            pid: s.pid,
            started,
        }
    }

    fn spawn(&self, s: &ServerState) -> Result<u32> {
        fs::create_dir_all(&self.dir).map_err(io(format!("creating {}", self.dir.display())))?;
        let log_path = self.log_path();
        if fs::metadata(&log_path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
            let _ = fs::rename(&log_path, self.dir.join("server.log.1"));
        }
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(io(format!("opening {}", log_path.display())))?;
        let err = log.try_clone().map_err(io("opening the server log"))?;
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(WATCHDOG)
            .arg("mnemo-local-model")
            .arg(&self.dir)
            .arg(self.timing.grace.as_secs().to_string())
            .arg(self.timing.idle.as_secs().to_string())
            .arg(self.timing.every.as_secs().max(1).to_string())
            .arg(&self.server)
            .arg("-m")
            .arg(&self.gguf)
            .args(["--host", "127.0.0.1", "--port", &s.port.to_string()])
            .args(["--api-key", &s.key])
            .args(["-c", &self.model.context.to_string()])
            .args(["-t", &self.threads.to_string()])
            .args(["-np", "1", "--cache-reuse", "256", "--jinja"])
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err);
        // Its own process group: a terminal's Ctrl-C meant for Mnemo does not reach it, and
        // stopping it stops everything it runs.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        if let Some(lib) = self.server.parent() {
            let mut path = std::ffi::OsString::from(lib);
            if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
                path.push(":");
                path.push(old);
            }
            cmd.env("LD_LIBRARY_PATH", path);
        }
        let child = cmd.spawn().map_err(|e| {
            LocalError::Server(
                format!("could not be started from {}: {e}", self.server.display()),
                log_path.display().to_string(),
            )
        })?;
        let pid = child.id();
        // Reaped by a thread, so a crash does not leave a zombie that looks alive.
        std::thread::spawn(move || {
            let mut child = child;
            let _ = child.wait();
        });
        tracing::info!("local model server started (pid {pid}, port {})", s.port);
        Ok(pid)
    }

    async fn wait_healthy(&self, s: &ServerState, limit: Duration) -> Result<()> {
        let url = format!("http://127.0.0.1:{}/health", s.port);
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| {
                LocalError::Server(
                    format!("could not be reached: {e}"),
                    self.log_path().display().to_string(),
                )
            })?;
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            // Whoever waits for it uses it: the idle clock does not run while it loads (on a
            // loaded machine loading can outlast a short idle time).
            self.touch();
            if let Ok(r) = http.get(&url).send().await
                && r.status().is_success()
            {
                return Ok(());
            }
            if !alive(s.pid) {
                return Err(LocalError::Server(
                    format!("exited while loading: {}", self.log_tail()),
                    self.log_path().display().to_string(),
                ));
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(LocalError::Server(
                    format!("did not load its model within {} s", limit.as_secs()),
                    self.log_path().display().to_string(),
                ));
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// The log's last line that says something.
    fn log_tail(&self) -> String {
        let Ok(mut f) = File::open(self.log_path()) else {
            return "no log".to_owned();
        };
        let len = f.metadata().map_or(0, |m| m.len());
        let _ = f.seek(SeekFrom::Start(len.saturating_sub(4096)));
        let mut tail = String::new();
        let _ = f.read_to_string(&mut tail);
        tail.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("the log is empty")
            .chars()
            .take(300)
            .collect()
    }

    /// Stop the server (its whole process group). Returns whether one was running.
    pub fn stop(&self) -> bool {
        let Some(s) = self.state() else {
            return false;
        };
        let was = alive(s.pid);
        if was {
            kill_group(s.pid);
        }
        let _ = fs::remove_file(self.state_path());
        was
    }

    /// Note that this process uses the server: the last lease to go stops it.
    ///
    /// # Errors
    /// The lease file cannot be written.
    pub fn lease(&self) -> Result<Lease> {
        let dir = self.dir.join("leases");
        fs::create_dir_all(&dir).map_err(io(format!("creating {}", dir.display())))?;
        let path = dir.join(std::process::id().to_string());
        fs::write(&path, b"").map_err(io(format!("writing {}", path.display())))?;
        Ok(Lease { path })
    }
}

/// SIGTERM to the group, then SIGKILL after 5 s.
fn kill_group(pid: u32) {
    let Some(p) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return;
    };
    let _ = rustix::process::kill_process_group(p, rustix::process::Signal::TERM);
    for _ in 0..50 {
        if !alive(pid) {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
}

/// A process's use of the local model server; dropping it lets go (a process that ends without
/// dropping it lets go too: the watchdog sees it is gone).
#[derive(Debug)]
pub struct Lease {
    path: PathBuf,
}

impl Drop for Lease {
    fn drop(&mut self) {
        // The watchdog stops the server once no live process holds a lease.
        let _ = fs::remove_file(&self.path);
    }
}
