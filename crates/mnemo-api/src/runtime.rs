//! The runtime model work and background memory tasks run on. The API stays synchronous for
//! its transports: work runs here, and a command waits for its result on the caller's
//! (blocking) thread.

use std::future::Future;
use std::sync::OnceLock;

use mnemo_core::{Error, ErrorCode, Result};

/// A runtime that may be dropped anywhere (also inside another runtime).
struct BgRuntime(Option<tokio::runtime::Runtime>);

impl Drop for BgRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// Started on first use; one worker thread (the machine may have two cores in all).
#[derive(Default)]
pub(crate) struct Runtime(OnceLock<std::result::Result<BgRuntime, String>>);

impl Runtime {
    pub(crate) fn get(&self) -> Result<&tokio::runtime::Runtime> {
        let rt = self.0.get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("mnemo-model")
                .enable_all()
                .build()
                .map(|rt| BgRuntime(Some(rt)))
                .map_err(|e| e.to_string())
        });
        match rt {
            Ok(BgRuntime(Some(rt))) => Ok(rt),
            Ok(BgRuntime(None)) => Err(Error::new(ErrorCode::Io, "the model runtime stopped")),
            Err(e) => Err(Error::new(
                ErrorCode::Io,
                format!("cannot start the model runtime: {e}"),
            )),
        }
    }

    /// Run a future here and wait for it on this (blocking) thread.
    pub(crate) fn block_on<F>(&self, fut: F) -> Result<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::channel();
        self.get()?.spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv()
            .map_err(|_| Error::new(ErrorCode::Io, "the model task stopped unexpectedly"))
    }
}
