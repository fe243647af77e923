//! Serving the endpoint on a listener: the accept loop (with its cap on open connections, which
//! the file-descriptor limit lowers, each client's share of it, and room made under pressure),
//! graceful shutdown, and the sweeper that ends idle and unfinished sessions.

#[cfg(feature = "tls")]
use super::TlsConfig;
use super::connections::{Connections, Watched};
#[cfg(feature = "tls")]
use super::tls;
use super::{HttpConfig, McpHttpService, fd_limit};
use crate::core::ServerCore;
use crate::error::{Error, ErrorKind, Result};
use crate::transport::Serving;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

impl McpHttpService {
    /// Serves connections from `listener` until `shutdown` resolves, then shuts down
    /// gracefully: no new connections or sessions, requests in flight get the server's
    /// [`shutdown_grace`](crate::Server::shutdown_grace) to finish, then every stream ends.
    pub async fn serve(self, listener: TcpListener, shutdown: impl Future<Output = ()> + Send) -> Result<()> {
        self.serving(
            listener,
            Box::pin(shutdown),
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
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<()> {
        self.serving(listener, Box::pin(shutdown), Some(tls.acceptor())).await
    }

    /// The accept loop's future, boxed here (see [`Serving`]).
    #[inline(never)]
    fn serving<'a>(
        self,
        listener: TcpListener,
        shutdown: Shutdown<'a>,
        #[cfg(feature = "tls")] tls: Option<tokio_rustls::TlsAcceptor>,
    ) -> Serving<'a> {
        Box::pin(self.run(
            listener,
            shutdown,
            #[cfg(feature = "tls")]
            tls,
        ))
    }

    async fn run(
        self,
        listener: TcpListener,
        shutdown: Shutdown<'_>,
        #[cfg(feature = "tls")] tls: Option<tokio_rustls::TlsAcceptor>,
    ) -> Result<()> {
        #[cfg(feature = "tls")]
        let scheme = if tls.is_some() { "https" } else { "http" };
        #[cfg(not(feature = "tls"))]
        let scheme = "http";
        let url = listener.local_addr().map(|address| format!("{scheme}://{address}{}", self.inner.config.path));
        let url = url.as_deref().unwrap_or("a listener");
        tracing::info!("serving MCP over HTTP at {url}");
        if tokio::runtime::Handle::current().runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread {
            tracing::warn!(
                "serving {url} on a current-thread runtime, where every connection shares one thread: \
                 for HTTP, use `#[mcp_runtime::main]` without `flavor = \"current_thread\"`"
            );
        }
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        // No timer for hyper: its header timeout made one per request; `idle.rs` times heads.
        let http = hyper::server::conn::http1::Builder::new();
        let max_connections = fd_limit::connection_cap(self.inner.config.max_connections);
        let share = self.inner.config.connections_per_client(max_connections);
        let connections = Connections::new(self.inner.config.header_timeout, share);
        let sweeper = tokio::spawn(sweep_idle_sessions(Arc::downgrade(&self.inner)));
        let idle_sweeper = tokio::spawn(Connections::sweep(Arc::downgrade(&connections)));
        let open = Arc::new(Semaphore::new(max_connections));
        let mut at_cap = ThrottledWarning::default();
        let mut accept_failed = ThrottledWarning::default();
        let mut over_share = ThrottledWarning::default();
        tokio::pin!(shutdown);
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = &mut shutdown => break,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    accept_failed.warn(format_args!("accepting a connection failed: {err}"));
                    // Out of file descriptors, the connection stays in the backlog: free one
                    // by shedding, else wait for one to close. Anything else (a connection
                    // reset before accept) is retried soon.
                    let pause = if !out_of_descriptors(&err) {
                        RETRY_PAUSE
                    } else if connections.shed_one() {
                        SHED_PAUSE
                    } else {
                        connections.tick()
                    };
                    tokio::select! {
                        () = tokio::time::sleep(pause) => continue,
                        () = &mut shutdown => break,
                    }
                }
            };
            let activity = connections.open(Some(peer));
            // A place for it. Past the cap, a client holding more than its share is refused;
            // for another, the connection whose client sent least makes room, else this one
            // waits (and the rest in the listener's backlog) until one closes.
            let place = match Arc::clone(&open).try_acquire_owned() {
                Ok(place) => place,
                Err(_) if connections.over_share(&activity) => {
                    over_share.warn(format_args!(
                        "{max_connections} connections open and {} holds more than its share \
                         ({share}, HttpConfig::max_connections_per_client): refusing its new ones",
                        peer.ip()
                    ));
                    refuse_over_share(stream);
                    continue;
                }
                Err(_) => {
                    at_cap.warn(format_args!(
                        "{max_connections} connections open (HttpConfig::max_connections): closing those \
                         whose clients sent least, else new ones wait"
                    ));
                    match make_room(&open, &connections, &mut shutdown).await {
                        Some(place) => place,
                        None => break,
                    }
                }
            };
            connections.serve(&activity);
            // An SSE answer is several small writes (priming event, then the message);
            // with Nagle's algorithm the second waits for the client's delayed ACK
            // (40 ms on Linux), so every call took 40+ ms (bench/, issue 8).
            let _ = stream.set_nodelay(true);
            let service = self.for_connection(peer, Arc::clone(&activity));
            #[cfg(feature = "tls")]
            if let Some(acceptor) = &tls {
                // The handshake runs on the connection's task, not in the accept loop, watched
                // like the rest: a stalled handshake is a client that sent nothing.
                let (acceptor, watcher, http) = (acceptor.clone(), graceful.watcher(), http.clone());
                let connection = async move {
                    let Some(stream) = tls::handshake(&acceptor, stream).await else { return Ok(()) };
                    watcher.watch(http.serve_connection(hyper_util::rt::TokioIo::new(stream), service)).await
                };
                let connection = Watched::new(connection, activity);
                tokio::spawn(async move {
                    let _place = place;
                    ended("HTTPS", connection.await);
                });
                continue;
            }
            let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            let connection = Watched::new(graceful.watch(connection), activity);
            tokio::spawn(async move {
                let _place = place;
                ended("HTTP", connection.await);
            });
        }
        drop(listener);
        sweeper.abort();
        idle_sweeper.abort();
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

/// Logs how a connection ended, when not by the client closing it.
fn ended(scheme: &str, result: Option<std::result::Result<(), hyper::Error>>) {
    match result {
        Some(Ok(())) => {}
        Some(Err(err)) => tracing::debug!("{scheme} connection ended: {err}"),
        None => tracing::debug!("{scheme} connection closed by the server: idle, or shed to make room"),
    }
}

/// After shedding a connection to free a file descriptor: time for its task to close it.
const SHED_PAUSE: Duration = Duration::from_millis(5);

/// After an `accept` error that is not the process running out of descriptors.
const RETRY_PAUSE: Duration = Duration::from_millis(50);

/// Whether `accept` failed for want of a file descriptor (the process's, or the system's).
fn out_of_descriptors(err: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        use rustix::io::Errno;
        matches!(Errno::from_io_error(err), Some(Errno::MFILE | Errno::NFILE))
    }
    #[cfg(not(unix))]
    {
        let _ = err;
        false
    }
}

/// A place for a connection accepted past the cap: sheds the connection whose client sent
/// least and waits for the place it frees; with none to shed, waits for a connection to end,
/// looking again every tick (a stalled one becomes a candidate once quiet for a tick).
/// `None` on shutdown.
async fn make_room(
    open: &Arc<Semaphore>,
    connections: &Connections,
    shutdown: &mut std::pin::Pin<&mut impl Future<Output = ()>>,
) -> Option<OwnedSemaphorePermit> {
    loop {
        connections.shed_one();
        tokio::select! {
            place = Arc::clone(open).acquire_owned() => return place.ok(),
            () = tokio::time::sleep(connections.tick()) => {}
            () = shutdown.as_mut() => return None,
        }
    }
}

/// Answers a connection from a client past its share, at the cap: `503` with `Retry-After`, then
/// closed. Written at once without waiting (a fresh socket's send buffer has room) and
/// without reading the request: a refusal costs no place and no task. (Written on the plain
/// socket: the runtime's `try_write` refuses until the reactor has seen the socket writable.)
fn refuse_over_share(stream: TcpStream) {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":{},"message":"{}"}}}}"#,
        super::code::BAD_REQUEST,
        "Service Unavailable: this client has too many connections open"
    );
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n\
         connection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    if let Ok(stream) = stream.into_std() {
        let _ = std::io::Write::write(&mut &stream, answer.as_bytes());
    }
}

/// How often a warning of the accept loop may be logged: a loop that fails or waits on every
/// attempt must not flood the log (it once logged every 50 ms while out of file descriptors).
const WARNING_INTERVAL: Duration = Duration::from_secs(10);

/// A warning logged at most once per [`WARNING_INTERVAL`], saying how many were held back.
#[derive(Default)]
struct ThrottledWarning {
    last: Option<Instant>,
    held_back: u64,
}

impl ThrottledWarning {
    fn warn(&mut self, message: std::fmt::Arguments<'_>) {
        let now = Instant::now();
        if self.last.is_some_and(|last| now.saturating_duration_since(last) < WARNING_INTERVAL) {
            self.held_back += 1;
            return;
        }
        match std::mem::take(&mut self.held_back) {
            0 => tracing::warn!("{message}"),
            held_back => tracing::warn!("{message} (and {held_back} more times since the last such warning)"),
        }
        self.last = Some(now);
    }
}

/// Ends idle sessions, and sessions whose handshake was never completed, even when no
/// request comes to do it.
async fn sweep_idle_sessions(inner: std::sync::Weak<super::service::Inner>) {
    let Some(interval) = inner.upgrade().map(|inner| inner.sessions.tick_interval()) else {
        return;
    };
    super::ticker::every(interval, inner, |inner| inner.sessions.tick()).await;
}

/// What ends serving, boxed by the caller so that the accept loop is one type.
pub(crate) type Shutdown<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// [`Server::serve_http`](crate::Server::serve_http) and friends: serves, stops.
pub(crate) async fn serve(core: Arc<ServerCore>, listener: TcpListener, shutdown: Shutdown<'_>) -> Result<()> {
    let service = McpHttpService::new(core, HttpConfig::default())?;
    service
        .serving(
            listener,
            shutdown,
            #[cfg(feature = "tls")]
            None,
        )
        .await
}

/// [`Server::serve_https`](crate::Server::serve_https) and friends.
#[cfg(feature = "tls")]
pub(crate) async fn serve_tls(
    core: Arc<ServerCore>,
    listener: TcpListener,
    tls: TlsConfig,
    shutdown: Shutdown<'_>,
) -> Result<()> {
    McpHttpService::new(core, HttpConfig::default())?.serving(listener, shutdown, Some(tls.acceptor())).await
}

/// Binds `address`, naming it in the error.
pub(crate) async fn bind(address: impl tokio::net::ToSocketAddrs) -> Result<TcpListener> {
    TcpListener::bind(address)
        .await
        .map_err(|err| Error::new(ErrorKind::Bind, "cannot bind the HTTP address").with_source(err))
}
