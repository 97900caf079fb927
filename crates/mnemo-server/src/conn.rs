//! The accept loop, with the limits `axum::serve` does not set.
//!
//! - At most [`MAX_CONNECTIONS`] connections at once.
//! - A connection must finish a request's headers within [`HEADER_READ_TIMEOUT`] (hyper's timer).
//! - A connection that has not yet sent one whole request head is *pending*. It must send one
//!   within [`FIRST_REQUEST_TIMEOUT`]. Once it has been pending for [`PENDING_GRACE`] it may be
//!   closed to make room: when its address holds more than [`MAX_PENDING_PER_IP`] pending
//!   connections, when more than [`MAX_PENDING`] are pending in all, or when every slot is taken
//!   and a new connection waits — the oldest goes first. So slow-header clients cannot hold the
//!   slots a real request needs, while a burst of real clients (whose heads arrive at once) is
//!   never cut. Refusals before login also close their connection (see `refused` in the crate
//!   root): a client that is not logged in never holds a slot between requests.
//! - On shutdown, open connections finish what they serve.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use hyper::service::Service as _;

use crate::{HEADER_READ_TIMEOUT, MAX_CONNECTIONS};

/// A new connection must send its first whole request head within this, or it is closed.
pub const FIRST_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a pending connection is left alone before it may be closed to make room.
pub const PENDING_GRACE: Duration = Duration::from_secs(2);
/// Pending connections (no request head yet) kept from one address.
pub const MAX_PENDING_PER_IP: usize = 8;
/// Pending connections kept in all (half of [`MAX_CONNECTIONS`]: the rest serve requests).
pub const MAX_PENDING: usize = MAX_CONNECTIONS / 2;

/// A pending connection: its id, address, when it came, and the switch that closes it.
struct Waiting {
    id: u64,
    ip: IpAddr,
    since: Instant,
    close: tokio::sync::oneshot::Sender<()>,
}

/// The pending connections, oldest first.
#[derive(Default)]
struct Pending {
    next: u64,
    conns: VecDeque<Waiting>,
}

impl Pending {
    /// Close the oldest pending connection (of `ip`, if given) that is past its grace.
    fn close_oldest(&mut self, ip: Option<IpAddr>, now: Instant) -> bool {
        let found = self.conns.iter().position(|w| {
            ip.is_none_or(|ip| w.ip == ip) && now.duration_since(w.since) >= PENDING_GRACE
        });
        match found.and_then(|i| self.conns.remove(i)) {
            Some(w) => {
                let _ = w.close.send(());
                true
            }
            None => false,
        }
    }

    /// Admit a new connection from `ip`, first making room under the caps (see the module).
    /// The receiver fires when this one is closed in turn.
    fn admit(&mut self, ip: IpAddr, now: Instant) -> (u64, tokio::sync::oneshot::Receiver<()>) {
        while self.conns.iter().filter(|w| w.ip == ip).count() >= MAX_PENDING_PER_IP
            && self.close_oldest(Some(ip), now)
        {}
        while self.conns.len() >= MAX_PENDING && self.close_oldest(None, now) {}
        let id = self.next;
        self.next += 1;
        let (close, rx) = tokio::sync::oneshot::channel();
        self.conns.push_back(Waiting {
            id,
            ip,
            since: now,
            close,
        });
        (id, rx)
    }

    /// The connection sent a request head (or ended): it is no longer pending.
    fn settle(&mut self, id: u64) {
        self.conns.retain(|w| w.id != id);
    }
}

fn settle(pending: &Mutex<Pending>, id: u64) {
    pending
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .settle(id);
}

/// Serve `app` on `listener` until `shutdown` completes.
pub(crate) async fn serve_bounded(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let pending = Arc::new(Mutex::new(Pending::default()));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            p = Arc::clone(&slots).acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            // Every slot taken: make room by closing a connection that has sent nothing.
            () = tokio::time::sleep(PENDING_GRACE / 4) => {
                pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .close_oldest(None, Instant::now());
                continue;
            }
        };
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            a = listener.accept() => match a {
                Ok(a) => a,
                Err(e) => {
                    tracing::warn!("accepting a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let (id, mut closed) = pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .admit(peer.ip(), Instant::now());
        let asked = Arc::new(AtomicBool::new(false));
        let inner = hyper_util::service::TowerToHyperService::new(app.clone());
        let service = {
            let (pending, asked) = (Arc::clone(&pending), Arc::clone(&asked));
            hyper::service::service_fn(move |req| {
                if !asked.swap(true, Ordering::AcqRel) {
                    settle(&pending, id);
                }
                inner.call(req)
            })
        };
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_READ_TIMEOUT)
            .serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        let pending = Arc::clone(&pending);
        tokio::spawn(async move {
            let first_deadline = async {
                tokio::time::sleep(FIRST_REQUEST_TIMEOUT).await;
                if asked.load(Ordering::Acquire) {
                    std::future::pending::<()>().await;
                }
            };
            tokio::select! {
                r = conn => {
                    if let Err(e) = r {
                        tracing::debug!("connection ended: {e}");
                    }
                }
                Ok(()) = &mut closed => {
                    tracing::debug!(%peer, "closed a connection that sent no request, to make room for a newer one");
                }
                () = first_deadline => {
                    tracing::debug!(%peer, "closed a connection that sent no request within {FIRST_REQUEST_TIMEOUT:?}");
                }
            }
            settle(&pending, id);
            drop(permit);
        });
    }
    graceful.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_connections_past_their_grace_are_closed_for_room_oldest_first() {
        let mut p = Pending::default();
        let a: IpAddr = [127, 0, 0, 1].into();
        let t0 = Instant::now();
        let mut rx: Vec<_> = (0..MAX_PENDING_PER_IP).map(|_| p.admit(a, t0)).collect();
        // A burst: all within their grace, so the cap waits rather than cutting a real client.
        rx.push(p.admit(a, t0));
        assert!(rx.iter_mut().all(|(_, r)| r.try_recv().is_err()));
        // Later, the next one closes the oldest of its address — one only, while under the cap.
        let later = t0 + PENDING_GRACE;
        rx.push(p.admit(a, later));
        assert_eq!(
            rx[0].1.try_recv(),
            Ok(()),
            "the oldest of the address closed"
        );
        assert_eq!(
            rx[1].1.try_recv(),
            Ok(()),
            "and the next, to get under the cap"
        );
        assert!(rx[2].1.try_recv().is_err());
        // A settled connection (it sent a request) is never closed for room.
        p.settle(rx[2].0);
        assert!(!p.close_oldest(None, t0), "nothing is past its grace at t0");
        for i in 0..MAX_PENDING {
            let ip: IpAddr = [127, 0, 1, u8::try_from(i % 250).unwrap_or(0)].into();
            let _ = p.admit(ip, later);
        }
        assert!(p.conns.len() <= MAX_PENDING + 1);
        assert!(!p.conns.iter().any(|w| w.id == rx[2].0));
    }
}
