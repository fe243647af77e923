//! [`McpHttpService`]: the endpoint as a hyper and tower `Service`, and its shutdown.

use super::connections::{Activity, RequestBody};
use super::replication::{Replication, Store};
use super::sessions::{Limits, Sessions};
use super::sse::{KeepAlive, StreamSettings};
use super::{HttpConfig, McpBody};
use crate::core::ServerCore;
use futures_util::FutureExt as _;
use hyper::body::{Body, Incoming};
use hyper::{Request, Response};
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

/// The MCP endpoint as a service, to serve with [`McpHttpService::serve`] or to mount in an
/// application of your own. Get one from
/// [`Server::into_http_service`](crate::Server::into_http_service). Clones share the sessions.
///
/// It implements both [`hyper::service::Service`] and [`tower_service::Service`] for
/// `Request<B>` with any body `B` (hyper's `Incoming`, axum's `Body`...), answering with an
/// [`McpBody`]. It checks the request path itself ([`HttpConfig::path`]), so mount it where
/// the full path reaches it: with axum, `Router::new().route_service("/mcp", service)` (not
/// `nest_service`, which strips the prefix). With hyper alone:
///
/// ```no_run
/// use hyper_util::rt::TokioIo;
/// use mcp_runtime::http::HttpConfig;
/// use mcp_runtime::prelude::*;
///
/// /// Add two numbers.
/// #[mcp_tool]
/// fn add(a: f64, b: f64) -> f64 {
///     a + b
/// }
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let service = server!().tools(tools![add]).into_http_service(HttpConfig::default())?;
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// loop {
///     let (stream, _) = listener.accept().await?;
///     let service = service.clone();
///     tokio::spawn(async move {
///         let _ = hyper::server::conn::http1::Builder::new()
///             .serve_connection(TokioIo::new(stream), service)
///             .await;
///     });
/// }
/// # }
/// ```
///
/// Serving it yourself, insert the peer's [`SocketAddr`] into each request's extensions (axum:
/// a middleware copying `ConnectInfo`), so [`HttpConfig::max_sessions_per_client`] knows
/// whom a session belongs to, and call [`shutdown`](Self::shutdown) when you stop, so requests in
/// flight can finish and open streams end.
#[derive(Clone)]
pub struct McpHttpService {
    pub(super) inner: Arc<Inner>,
}

impl std::fmt::Debug for McpHttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpService").field("path", &self.inner.config.path).finish_non_exhaustive()
    }
}

/// What every request to the endpoint shares.
pub(super) struct Inner {
    pub core: Arc<ServerCore>,
    pub config: HttpConfig,
    pub settings: StreamSettings,
    pub sessions: Sessions,
    #[cfg(feature = "auth")]
    pub guard: Option<super::auth::Guard>,
    /// The store shared with the other replicas of the server, if it has one: `None` costs the
    /// endpoint one test at each point that would need it.
    pub replication: Option<Replication>,
}

impl McpHttpService {
    /// Must run inside the tokio runtime when the server uses a Redis store.
    pub(crate) fn new(core: Arc<ServerCore>, config: HttpConfig) -> crate::Result<Self> {
        let settings = StreamSettings {
            capacity: config.replay_buffer,
            retry: config.sse_retry,
            keep_alive: config.keep_alive.map(KeepAlive::new),
        };
        let sessions = Sessions::new(Limits {
            max: config.max_sessions,
            per_client: config.sessions_per_client(),
            idle_timeout: config.idle_timeout,
            handshake_timeout: config.handshake_timeout,
        });
        #[cfg(feature = "auth")]
        let guard = config.auth.as_ref().map(|auth| super::auth::Guard::new(auth, &config.path));
        // The one place a shared store is made: the rest of the endpoint knows it as a
        // `Replication`.
        #[cfg(feature = "redis")]
        let replicas = match &core.settings.session_store.kind {
            crate::store::StoreKind::Memory => None,
            crate::store::StoreKind::Redis(store) => {
                if tokio::runtime::Handle::try_current().is_err() {
                    let message =
                        "a server with a Redis session store must be made into an HTTP service inside a tokio runtime";
                    return Err(crate::Error::new(crate::ErrorKind::Config, message));
                }
                Some(super::replicas::Replicas::start(
                    store,
                    settings.clone(),
                    config.idle_timeout,
                    config.handshake_timeout,
                )?)
            }
        };
        #[cfg(feature = "redis")]
        let store = replicas.clone().map(|replicas| replicas as Arc<dyn Store>);
        #[cfg(not(feature = "redis"))]
        let store: Option<Arc<dyn Store>> = None;
        let replication = store.map(|store| Replication::new(store, &core));
        let inner = Arc::new(Inner {
            core,
            config,
            settings,
            sessions,
            #[cfg(feature = "auth")]
            guard,
            replication,
        });
        #[cfg(feature = "redis")]
        if let Some(replicas) = &replicas {
            replicas.attach(Arc::downgrade(&inner) as std::sync::Weak<dyn super::replicas::LocalSessions>);
        }
        Ok(Self { inner })
    }

    /// The service of one connection [`serve`](Self::serve) accepted from `peer`: its requests
    /// carry the peer's address and report to the connection's `activity` (a request in flight,
    /// its body as it arrives). Its future is the
    /// handler's own type, which hyper keeps in the connection's state, where the `Service`
    /// impls below box a future for every request.
    pub(super) fn for_connection(
        &self,
        peer: SocketAddr,
        activity: Arc<Activity>,
    ) -> impl hyper::service::Service<Request<Incoming>, Response = Response<McpBody>, Error = Infallible, Future: Send>
    + Send
    + use<> {
        let inner = Arc::clone(&self.inner);
        hyper::service::service_fn(move |request| {
            let in_flight = activity.request();
            let request = request.map(|body| RequestBody::new(body, &activity));
            Arc::clone(&inner)
                .handle(request, Some(peer))
                .map(move |answer| Ok(answer.map(|body| body.in_flight(in_flight))))
        })
    }

    /// How many sessions are open.
    pub fn session_count(&self) -> usize {
        self.inner.sessions.len()
    }

    /// Refuses new sessions, lets requests in flight run for the server's shutdown grace
    /// period, cancels the rest and ends every session and stream.
    pub async fn shutdown(&self) {
        let sessions = self.inner.sessions.close();
        futures_util::future::join_all(sessions.iter().map(|s| s.connection.drain())).await;
        for session in &sessions {
            session.end();
        }
    }
}

/// What other replicas say about the sessions this one holds.
#[cfg(feature = "redis")]
impl super::replicas::LocalSessions for Inner {
    fn deliver(&self, session: &str, message: String) {
        let Some(session) = self.sessions.peek(session) else { return };
        tokio::spawn(async move {
            let (sink, _) = tokio::sync::mpsc::channel(1);
            session.connection.receive_bytes(message.as_bytes(), &sink).await;
        });
    }

    fn end(&self, session: &str) {
        if self.sessions.remove(session) {
            tracing::debug!(%session, "session ended on another replica");
        }
    }

    fn mark_stale(&self, session: &str) {
        if let Some(shared) = self.sessions.peek(session).as_deref().and_then(super::session::HttpSession::shared) {
            shared.mark_stale();
        }
    }

    fn mark_all_stale(&self) {
        for session in self.sessions.all() {
            if let Some(shared) = session.shared() {
                shared.mark_stale();
            }
        }
    }

    fn task_changed(&self, task: &crate::tasks::StoredTask) {
        self.core.tasks.announce(task);
    }

    fn signal_task(&self, task: &str, signal: crate::tasks::Signal) {
        if self.core.tasks.signal_here(task, signal).is_err() {
            tracing::debug!(%task, "a signal for a task that no longer runs here");
        }
    }
}

impl<B> hyper::service::Service<Request<B>> for McpHttpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<McpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<McpBody>, Infallible>> + Send>>;

    fn call(&self, request: Request<B>) -> Self::Future {
        // Boxed as it is: an `async` block around it would hold the request twice.
        Box::pin(Arc::clone(&self.inner).handle(request, None).map(Ok))
    }
}

impl<B> tower_service::Service<Request<B>> for McpHttpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<McpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<McpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        hyper::service::Service::call(self, request)
    }
}
