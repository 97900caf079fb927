//! The extraction schedule, pure: one run per workspace at a time, and a request that arrives
//! meanwhile replaces the waiting one (coalescing, never piling up).

use std::collections::{HashMap, HashSet};

/// What the scheduler should do with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// Nothing runs for this workspace: start now.
    Start,
    /// One is running: this request waits (replacing any request already waiting).
    Queued {
        /// Whether an older waiting request was replaced.
        replaced: bool,
    },
}

/// One extraction per workspace at a time; at most one waiting request per workspace.
#[derive(Debug)]
pub struct ExtractQueue<R> {
    running: HashSet<String>,
    waiting: HashMap<String, R>,
}

impl<R> Default for ExtractQueue<R> {
    fn default() -> Self {
        Self {
            running: HashSet::new(),
            waiting: HashMap::new(),
        }
    }
}

impl<R> ExtractQueue<R> {
    /// A request arrives.
    pub fn request(&mut self, workspace: &str, req: R) -> Admission {
        if self.running.insert(workspace.to_owned()) {
            return Admission::Start;
        }
        let replaced = self.waiting.insert(workspace.to_owned(), req).is_some();
        Admission::Queued { replaced }
    }

    /// Like [`Self::request`], but a request arriving while one waits is combined with it by
    /// `merge(waiting, new)` instead of replacing it (e.g. to keep one waiting job per session).
    pub fn request_merge(
        &mut self,
        workspace: &str,
        req: R,
        merge: impl FnOnce(R, R) -> R,
    ) -> Admission {
        if self.running.insert(workspace.to_owned()) {
            return Admission::Start;
        }
        let (next, replaced) = match self.waiting.remove(workspace) {
            Some(old) => (merge(old, req), true),
            None => (req, false),
        };
        self.waiting.insert(workspace.to_owned(), next);
        Admission::Queued { replaced }
    }

    /// A run finished: the waiting request to start next, if any (it is now running).
    pub fn finished(&mut self, workspace: &str) -> Option<R> {
        match self.waiting.remove(workspace) {
            Some(next) => Some(next),
            None => {
                self.running.remove(workspace);
                None
            }
        }
    }

    /// The request waiting for a workspace, to change in place (e.g. to drop a cancelled job).
    pub fn waiting_mut(&mut self, workspace: &str) -> Option<&mut R> {
        self.waiting.get_mut(workspace)
    }

    /// Whether a run is under way for the workspace.
    #[must_use]
    pub fn is_running(&self, workspace: &str) -> bool {
        self.running.contains(workspace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_run_per_workspace_and_requests_coalesce() {
        let mut q = ExtractQueue::default();
        assert_eq!(q.request("w", 1), Admission::Start);
        assert_eq!(
            q.request("other", 9),
            Admission::Start,
            "workspaces are independent"
        );
        assert_eq!(q.request("w", 2), Admission::Queued { replaced: false });
        assert_eq!(q.request("w", 3), Admission::Queued { replaced: true });
        assert_eq!(
            q.finished("w"),
            Some(3),
            "the newest waiting request runs next"
        );
        assert!(q.is_running("w"));
        assert_eq!(q.finished("w"), None);
        assert!(!q.is_running("w"));
        assert_eq!(q.request("w", 4), Admission::Start);
    }

    #[test]
    fn merged_requests_keep_what_the_merge_keeps() {
        let mut q: ExtractQueue<Vec<&str>> = ExtractQueue::default();
        let merge = |mut a: Vec<&'static str>, b: Vec<&'static str>| {
            for x in b {
                if !a.contains(&x) {
                    a.push(x);
                }
            }
            a
        };
        assert_eq!(q.request_merge("w", vec!["s1"], merge), Admission::Start);
        assert_eq!(
            q.request_merge("w", vec!["s2"], merge),
            Admission::Queued { replaced: false }
        );
        assert_eq!(
            q.request_merge("w", vec!["s3"], merge),
            Admission::Queued { replaced: true }
        );
        assert_eq!(
            q.request_merge("w", vec!["s2"], merge),
            Admission::Queued { replaced: true }
        );
        assert_eq!(q.finished("w"), Some(vec!["s2", "s3"]));
        assert_eq!(q.finished("w"), None);
    }
}
