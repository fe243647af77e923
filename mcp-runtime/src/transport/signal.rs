//! The process's shutdown signals (SIGINT, SIGTERM), shared by the transports that serve until
//! told to stop.

use std::future::Future;
use tokio_util::task::AbortOnDropHandle;

/// Resolves on SIGINT or SIGTERM (Ctrl-C elsewhere).
///
/// The signals are awaited on a task of their own, and the future returned only waits for
/// that task: a serve loop polls it at every wake-up, and polling the signal streams themselves
/// cost about 1.3k instructions each time, more than a tenth of a call. Dropping the future
/// stops listening.
pub(crate) fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    let listener = AbortOnDropHandle::new(tokio::spawn(signals()));
    async move {
        // An error means the listener ended without a signal: only when the runtime shuts down.
        let _ = listener.await;
    }
}

async fn signals() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = match signal(SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
