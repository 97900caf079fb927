//! When an automatic dream may run, pure: the gates, cheapest first, each a skip
//! reason. The two that cost IO — counting the sessions touched since the last dream, and looking
//! at the lock — are closures, called only when every cheaper gate passed.

use chrono::{DateTime, Duration, Utc};
use mnemo_core::TaskReason;

/// Hours between automatic dreams at least.
pub const MIN_HOURS: i64 = 24;
/// Sessions touched since the last dream at least.
pub const MIN_SESSIONS: usize = 5;
/// Minutes between transcript scans at least.
pub const SCAN_INTERVAL_MINUTES: i64 = 10;

/// Why an automatic dream did not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// Auto-dream is off for the workspace.
    Disabled,
    /// This session dreamed last.
    SameSession,
    /// Less than [`MIN_HOURS`] since the last dream.
    MinHours,
    /// The transcripts were scanned less than [`SCAN_INTERVAL_MINUTES`] ago.
    ScanThrottled,
    /// Fewer than [`MIN_SESSIONS`] sessions touched since the last dream (how many).
    MinSessions(usize),
    /// A live process holds the consolidation lock.
    Locked,
    /// A dream of the workspace is already queued or running (its task id).
    Running(String),
}

impl Skip {
    /// The recorded reason.
    #[must_use]
    pub fn reason(&self) -> TaskReason {
        match self {
            Self::Disabled => TaskReason::Disabled,
            Self::SameSession => TaskReason::SameSession,
            Self::MinHours => TaskReason::MinHours,
            Self::ScanThrottled => TaskReason::ScanThrottled,
            Self::MinSessions(_) => TaskReason::MinSessions,
            Self::Locked => TaskReason::Locked,
            Self::Running(_) => TaskReason::Running,
        }
    }

    /// For people.
    #[must_use]
    pub fn explain(&self) -> String {
        match self {
            Self::Disabled => "auto-dream is off for this workspace".to_owned(),
            Self::SameSession => "this chat dreamed last".to_owned(),
            Self::MinHours => format!("less than {MIN_HOURS} h since the last dream"),
            Self::ScanThrottled => {
                format!("transcripts were scanned less than {SCAN_INTERVAL_MINUTES} min ago")
            }
            Self::MinSessions(n) => format!(
                "{n} session{} since the last dream; {MIN_SESSIONS} needed",
                if *n == 1 { "" } else { "s" }
            ),
            Self::Locked => "another process is consolidating this workspace".to_owned(),
            Self::Running(id) => format!("a dream of this workspace is already under way ({id})"),
        }
    }
}

/// What the cheap gates look at.
#[derive(Debug, Clone)]
pub struct Facts<'a> {
    /// Auto-dream on for the workspace.
    pub enabled: bool,
    /// The session whose turn asks.
    pub session: Option<&'a str>,
    /// The session that dreamed last.
    pub last_dream_session: Option<&'a str>,
    /// When the last dream was.
    pub last_dream_at: Option<DateTime<Utc>>,
    /// When this process last scanned the workspace's transcripts.
    pub last_scan_at: Option<DateTime<Utc>>,
    /// A dream of the workspace queued or running here (its task id).
    pub running: Option<String>,
    /// Now.
    pub now: DateTime<Utc>,
}

/// The verdict, and whether the transcripts were scanned (the caller records when).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `None`: dream.
    pub skip: Option<Skip>,
    /// The transcript scan ran.
    pub scanned: bool,
}

/// Run the gates in order. `sessions_since` counts the sessions touched since a time (all of
/// them when `None`); `locked` says whether a live process holds the lock.
pub fn check(
    f: &Facts<'_>,
    sessions_since: impl FnOnce(Option<DateTime<Utc>>) -> usize,
    locked: impl FnOnce() -> bool,
) -> Verdict {
    let skip = |s| Verdict {
        skip: Some(s),
        scanned: false,
    };
    if !f.enabled {
        return skip(Skip::Disabled);
    }
    if f.session.is_some() && f.session == f.last_dream_session {
        return skip(Skip::SameSession);
    }
    if f.last_dream_at
        .is_some_and(|t| f.now - t < Duration::hours(MIN_HOURS))
    {
        return skip(Skip::MinHours);
    }
    if f.last_scan_at
        .is_some_and(|t| f.now - t < Duration::minutes(SCAN_INTERVAL_MINUTES))
    {
        return skip(Skip::ScanThrottled);
    }
    let n = sessions_since(f.last_dream_at);
    if n < MIN_SESSIONS {
        return Verdict {
            skip: Some(Skip::MinSessions(n)),
            scanned: true,
        };
    }
    let after_scan = |s| Verdict {
        skip: Some(s),
        scanned: true,
    };
    if locked() {
        return after_scan(Skip::Locked);
    }
    if let Some(id) = &f.running {
        return after_scan(Skip::Running(id.clone()));
    }
    Verdict {
        skip: None,
        scanned: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(now: DateTime<Utc>) -> Facts<'static> {
        Facts {
            enabled: true,
            session: Some("s2"),
            last_dream_session: Some("s1"),
            last_dream_at: Some(now - Duration::hours(25)),
            last_scan_at: None,
            running: None,
            now,
        }
    }

    fn reason(f: &Facts<'_>, sessions: usize, locked: bool) -> Option<&'static str> {
        check(f, |_| sessions, || locked)
            .skip
            .map(|s| s.reason().as_str())
    }

    #[test]
    fn each_gate_in_order() {
        let now = Utc::now();
        let ok = facts(now);
        assert_eq!(reason(&ok, 5, false), None);
        assert_eq!(
            reason(
                &Facts {
                    enabled: false,
                    ..ok.clone()
                },
                9,
                true
            ),
            Some("disabled")
        );
        assert_eq!(
            reason(
                &Facts {
                    session: Some("s1"),
                    ..ok.clone()
                },
                9,
                true
            ),
            Some("same_session")
        );
        assert_eq!(
            reason(
                &Facts {
                    last_dream_at: Some(now - Duration::hours(23)),
                    ..ok.clone()
                },
                9,
                true
            ),
            Some("min_hours")
        );
        assert_eq!(
            reason(
                &Facts {
                    last_scan_at: Some(now - Duration::minutes(9)),
                    ..ok.clone()
                },
                9,
                true
            ),
            Some("scan_throttled")
        );
        assert_eq!(reason(&ok, 4, true), Some("min_sessions"));
        assert_eq!(reason(&ok, 5, true), Some("locked"));
        assert_eq!(
            reason(
                &Facts {
                    running: Some("t1".into()),
                    ..ok.clone()
                },
                5,
                false
            ),
            Some("running")
        );
        // Never dreamed: the time gate passes; a scan 11 minutes ago no longer throttles.
        let fresh = Facts {
            last_dream_at: None,
            last_scan_at: Some(now - Duration::minutes(11)),
            ..ok
        };
        assert_eq!(reason(&fresh, 5, false), None);
    }

    #[test]
    fn costly_checks_run_only_when_cheaper_gates_pass() {
        let now = Utc::now();
        let f = Facts {
            last_dream_at: Some(now),
            ..facts(now)
        };
        let v = check(&f, |_| panic!("scanned"), || panic!("lock read"));
        assert_eq!(v.skip, Some(Skip::MinHours));
        assert!(!v.scanned);
        let v = check(&facts(now), |_| 1, || panic!("lock read"));
        assert_eq!(v.skip, Some(Skip::MinSessions(1)));
        assert!(v.scanned);
    }
}
