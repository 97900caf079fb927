//! Who may call the server. Programs send the bearer token from `$MNEMO_HOME/server.token` in
//! the `Authorization` header — the only place the token is accepted. A browser logs in once:
//! `mnemo serve` prints a URL carrying a one-time nonce (random, valid for its first use only and
//! only until the server stops); that use exchanges it for a random session id with an expiry,
//! set as an `HttpOnly; SameSite=Strict` cookie. Browsers do not scope cookies by port, so the
//! cookie is named after the server's port (`mnemo_session_<port>`) and only that name is read:
//! another local service the browser visits is sent a cookie this server would not take from it,
//! and a server on another port ignores this one's. The cookie never carries the token. Login
//! redirects only to a path of this server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, header};
use mnemo_core::{Error, ErrorCode, Result};

/// The browser session's cookie, before the port: `mnemo_session_<port>`.
pub const SESSION_COOKIE: &str = "mnemo_session";
/// How long a browser session lasts after its login.
pub const SESSION_TTL: Duration = Duration::from_secs(12 * 60 * 60);
/// Sessions kept at most (the oldest goes first).
pub const MAX_SESSIONS: usize = 64;

/// `n` random bytes as hex.
pub fn random_hex(n: usize) -> Result<String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::new(ErrorCode::Io, format!("no randomness: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The server's credentials: the bearer token, the login nonce (until used), the sessions.
#[derive(Clone)]
pub struct Auth {
    token: String,
    nonce: Arc<Mutex<Option<String>>>,
    sessions: Arc<Mutex<HashMap<String, Instant>>>,
    cookie_name: String,
    /// When recent attempts with wrong credentials were made (the last [`FAILURE_WINDOW`]).
    failures: Arc<Mutex<std::collections::VecDeque<Instant>>>,
}

/// Wrong credentials allowed within [`FAILURE_WINDOW`] before every credentialed request is
/// refused until the window has passed (a token or login link is not guessed by trying).
pub const MAX_FAILURES: usize = 20;
/// See [`MAX_FAILURES`].
pub const FAILURE_WINDOW: Duration = Duration::from_secs(60);

fn eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Auth {
    /// Credentials with this token and login nonce, for a server on `port`.
    #[must_use]
    pub fn new(token: String, nonce: String, port: u16) -> Self {
        Self {
            token,
            nonce: Arc::new(Mutex::new(Some(nonce))),
            sessions: Arc::default(),
            cookie_name: format!("{SESSION_COOKIE}_{port}"),
            failures: Arc::default(),
        }
    }

    /// Whether wrong credentials came too often: how long until attempts are taken again.
    #[must_use]
    pub fn locked_for(&self) -> Option<Duration> {
        let now = Instant::now();
        let mut f = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        while f
            .front()
            .is_some_and(|t| now.duration_since(*t) > FAILURE_WINDOW)
        {
            f.pop_front();
        }
        (f.len() >= MAX_FAILURES).then(|| {
            f.front().map_or(FAILURE_WINDOW, |t| {
                FAILURE_WINDOW.saturating_sub(now.duration_since(*t))
            })
        })
    }

    /// Count one attempt with wrong credentials.
    pub fn failed(&self) {
        let mut f = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        f.push_back(Instant::now());
        while f.len() > MAX_FAILURES {
            f.pop_front();
        }
    }

    /// Whether a request offers credentials at all (a bearer token, a session cookie of this
    /// server or a login link): only those count as attempts.
    #[must_use]
    pub fn offers_credentials(&self, headers: &HeaderMap, query: Option<&str>) -> bool {
        headers.contains_key(header::AUTHORIZATION)
            || headers
                .get_all(header::COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .any(|v| v.contains(self.cookie_name.as_str()))
            || query.is_some_and(|q| q.split('&').any(|kv| kv.starts_with("login=")))
    }

    /// The session cookie's name on this server.
    #[must_use]
    pub fn cookie_name(&self) -> &str {
        &self.cookie_name
    }

    /// `Authorization: Bearer <token>`.
    #[must_use]
    pub fn bearer_ok(&self, headers: &HeaderMap) -> bool {
        headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|t| eq(t.trim().as_bytes(), self.token.as_bytes()))
    }

    /// A session cookie of a live session.
    #[must_use]
    pub fn session_ok(&self, headers: &HeaderMap) -> bool {
        let now = Instant::now();
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|_, expires| *expires > now);
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|kv| kv.trim().strip_prefix(self.cookie_name.as_str()))
            .filter_map(|rest| rest.strip_prefix('='))
            .any(|id| sessions.keys().any(|k| eq(k.as_bytes(), id.as_bytes())))
    }

    /// Exchange the login nonce for a new session id — once. `None` when `nonce` is not the
    /// current one (wrong, or already used).
    pub fn redeem(&self, nonce: &str) -> Option<String> {
        let mut slot = self.nonce.lock().unwrap_or_else(PoisonError::into_inner);
        let ok = slot
            .as_deref()
            .is_some_and(|n| eq(n.as_bytes(), nonce.as_bytes()));
        if !ok {
            return None;
        }
        *slot = None;
        let id = random_hex(32).ok()?;
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        if sessions.len() >= MAX_SESSIONS
            && let Some(oldest) = sessions
                .iter()
                .min_by_key(|(_, e)| **e)
                .map(|(k, _)| k.clone())
        {
            sessions.remove(&oldest);
        }
        sessions.insert(id.clone(), Instant::now() + SESSION_TTL);
        Some(id)
    }

    /// The `Set-Cookie` value for a session.
    #[must_use]
    pub fn cookie(&self, id: &str) -> String {
        format!(
            "{}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}",
            self.cookie_name,
            SESSION_TTL.as_secs()
        )
    }
}

/// Where a login may send the browser: a path of this server only — never `//host…` or
/// `/\host…` (which browsers read as another site), else `/`.
#[must_use]
pub fn same_origin_path(path: &str) -> &str {
    let bad = !path.starts_with('/')
        || path.starts_with("//")
        || path.starts_with("/\\")
        || path.chars().any(char::is_control);
    if bad { "/" } else { path }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn the_nonce_works_once_and_the_session_is_not_the_token() {
        let a = Auth::new("t".repeat(64), "n0nce".into(), 4517);
        assert!(a.redeem("wrong").is_none());
        let id = a.redeem("n0nce").unwrap();
        assert_ne!(id, "t".repeat(64));
        assert!(a.redeem("n0nce").is_none(), "a second use is refused");
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_str(&format!("other=1; {SESSION_COOKIE}_4517={id}")).unwrap(),
        );
        assert!(a.session_ok(&h));
        // The same session under another port's name (or the bare name) is not this server's.
        for other in [format!("{SESSION_COOKIE}_4518"), SESSION_COOKIE.to_owned()] {
            let mut o = HeaderMap::new();
            o.insert(
                header::COOKIE,
                HeaderValue::from_str(&format!("{other}={id}")).unwrap(),
            );
            assert!(!a.session_ok(&o), "{other}");
        }
        assert!(a.cookie(&id).starts_with("mnemo_session_4517="));
        assert!(!a.bearer_ok(&h));
        let mut t = HeaderMap::new();
        t.insert(
            header::COOKIE,
            HeaderValue::from_str(&format!("mnemo_token={}", "t".repeat(64))).unwrap(),
        );
        assert!(!a.session_ok(&t), "the token is not a cookie");
        t.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&format!("Bearer {}", "t".repeat(64))).unwrap(),
        );
        assert!(a.bearer_ok(&t));
    }

    #[test]
    fn login_redirects_stay_on_this_server() {
        assert_eq!(same_origin_path("/memories/x"), "/memories/x");
        assert_eq!(same_origin_path("//evil.example/"), "/");
        assert_eq!(same_origin_path("/\\evil.example"), "/");
        assert_eq!(same_origin_path("evil"), "/");
        assert_eq!(same_origin_path("/a\nb"), "/");
    }
}
