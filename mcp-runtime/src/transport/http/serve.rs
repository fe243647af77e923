//! Serving the endpoint on a listener: the accept loop, graceful shutdown, and the sweeper
//! that ends idle sessions.

#[cfg(feature = "tls")]
use super::TlsConfig;
#[cfg(feature = "tls")]
use super::tls;
use super::{HttpConfig, McpHttpService};
use crate::core::ServerCore;
use crate::error::{Error, ErrorKind, Result};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

impl McpHttpService {
    /// Serves connections from `listener` until `shutdown` resolves, then shuts down
    /// gracefully: no new connections or sessions, requests in flight get the server's
    /// [`shutdown_grace`](crate::Server::shutdown_grace) to finish, then every stream ends.
    pub async fn serve(self, listener: TcpListener, shutdown: impl Future<Output = ()>) -> Result<()> {
        self.run(
            listener,
            shutdown,
            #[cfg(feature = "tls")]
            None,
        )
        .await
    }

    /// [`serve`](Self::serve) over HTTPS: each connection starts with a TLS handshake
    /// (feature `tls`).
    #[cfg(feature = "tls")]
    pub async fn serve_tls(
        self,
        listener: TcpListener,
        tls: TlsConfig,
        shutdown: impl Future<Output = ()>,
    ) -> Result<()> {
        self.run(listener, shutdown, Some(tls.acceptor())).await
    }

    async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
        #[cfg(feature = "tls")] tls: Option<tokio_rustls::TlsAcceptor>,
    ) -> Result<()> {
        #[cfg(feature = "tls")]
        let scheme = if tls.is_some() { "https" } else { "http" };
        #[cfg(not(feature = "tls"))]
        let scheme = "http";
        if let Ok(address) = listener.local_addr() {
            tracing::info!("serving MCP over HTTP at {scheme}://{address}{}", self.inner.config.path);
        }
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(hyper_util::rt::TokioTimer::new());
        let sweeper = tokio::spawn(sweep_idle_sessions(Arc::downgrade(&self.inner)));
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let (stream, peer) = match accepted {
                        Ok(accepted) => accepted,
                        Err(err) => {
                            // Out of file descriptors, or a connection reset before accept.
                            tracing::warn!("accepting a connection failed: {err}");
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    };
                    // An SSE answer is several small writes (priming event, then the message);
                    // with Nagle's algorithm the second waits for the client's delayed ACK
                    // (40 ms on Linux), so every call took 40+ ms (bench/, issue 8).
                    let _ = stream.set_nodelay(true);
                    #[cfg(feature = "tls")]
                    if let Some(acceptor) = &tls {
                        // The handshake runs on the connection's task, not in the accept loop.
                        let (acceptor, watcher, http, service) =
                            (acceptor.clone(), graceful.watcher(), http.clone(), self.for_peer(peer));
                        tokio::spawn(async move {
                            let Some(stream) = tls::handshake(&acceptor, stream).await else { return };
                            let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                            if let Err(err) = watcher.watch(connection).await {
                                tracing::debug!("HTTPS connection ended: {err}");
                            }
                        });
                        continue;
                    }
                    let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), self.for_peer(peer));
                    let connection = graceful.watch(connection);
                    tokio::spawn(async move {
                        if let Err(err) = connection.await {
                            tracing::debug!("HTTP connection ended: {err}");
                        }
                    });
                }
                () = &mut shutdown => break,
            }
        }
        drop(listener);
        sweeper.abort();
        tracing::info!("shutting down: finishing requests in flight");
        let connections_closed = async {
            let limit = self.inner.core.settings.shutdown_grace + Duration::from_secs(1);
            if tokio::time::timeout(limit, graceful.shutdown()).await.is_err() {
                tracing::debug!("some HTTP connections were still open after {limit:?}");
            }
        };
        tokio::join!(connections_closed, self.shutdown());
        Ok(())
    }
}

/// Ends idle sessions, and sessions whose handshake was never completed, even when no
/// request comes to do it.
async fn sweep_idle_sessions(inner: std::sync::Weak<super::service::Inner>) {
    let Some(interval) = inner.upgrade().map(|inner| inner.sessions.tick_interval()) else {
        return;
    };
    super::sse::every(interval, inner, |inner| inner.sessions.tick()).await;
}

/// [`Server::serve_http`](crate::Server::serve_http) and friends: binds, serves, stops.
pub(crate) async fn serve(
    core: Arc<ServerCore>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> Result<()> {
    McpHttpService::new(core, HttpConfig::default()).serve(listener, shutdown).await
}

/// [`Server::serve_https`](crate::Server::serve_https) and friends.
#[cfg(feature = "tls")]
pub(crate) async fn serve_tls(
    core: Arc<ServerCore>,
    listener: TcpListener,
    tls: TlsConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<()> {
    McpHttpService::new(core, HttpConfig::default()).serve_tls(listener, tls, shutdown).await
}

/// Binds `address`, naming it in the error.
pub(crate) async fn bind(address: impl tokio::net::ToSocketAddrs) -> Result<TcpListener> {
    TcpListener::bind(address)
        .await
        .map_err(|err| Error::new(ErrorKind::Bind, "cannot bind the HTTP address").with_source(err))
}
