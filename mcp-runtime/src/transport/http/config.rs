//! [`HttpConfig`]: the endpoint path, the Origin/Host allow-lists (the origins allowed are
//! also those CORS answers), and the session and stream limits of the Streamable HTTP transport.

use std::time::Duration;

/// How an [`McpHttpService`](super::McpHttpService) serves: build it with the methods below,
/// starting from [`HttpConfig::default()`].
///
/// The defaults suit a server on the local machine: the endpoint is `/mcp`; only requests whose
/// `Host` is `localhost`, `127.0.0.1` or `[::1]` (any port) are served, and a browser `Origin`
/// must name one of those hosts too (DNS-rebinding protection); at most 10 000 sessions, each
/// ended after 30 minutes without a request.
///
/// ```
/// use mcp_runtime::http::HttpConfig;
/// use std::time::Duration;
///
/// // Behind a reverse proxy that answers for mcp.example.com:
/// let config = HttpConfig::default()
///     .allow_host("mcp.example.com")
///     .allow_origin("https://app.example.com")
///     .idle_timeout(Duration::from_secs(600))
///     .max_sessions(1_000);
/// # let _ = config;
/// ```
#[derive(Clone, Debug)]
pub struct HttpConfig {
    pub(super) path: String,
    pub(super) hosts: AllowList,
    pub(super) origins: AllowList,
    pub(super) idle_timeout: Duration,
    pub(super) max_sessions: usize,
    pub(super) max_sessions_per_client: Option<usize>,
    pub(super) handshake_timeout: Duration,
    pub(super) body_timeout: Duration,
    pub(super) header_timeout: Duration,
    pub(super) max_connections: usize,
    pub(super) max_connections_per_client: Option<usize>,
    pub(super) sse_retry: Duration,
    pub(super) replay_buffer: usize,
    pub(super) keep_alive: Option<Duration>,
    pub(super) stateless: bool,
    #[cfg(feature = "auth")]
    pub(super) auth: Option<crate::auth::AuthConfig>,
    #[cfg(feature = "oauth-proxy")]
    pub(super) routes: Option<super::routes::SharedRoutes>,
}

/// Which `Host` or `Origin` values are served.
#[derive(Clone, Debug)]
pub(super) struct AllowList {
    /// No check at all.
    pub any: bool,
    /// `localhost`, `127.0.0.1` and `[::1]`, on any port.
    pub loopback: bool,
    /// More values, lower-cased.
    pub extra: Vec<String>,
}

impl AllowList {
    fn loopback() -> Self {
        Self { any: false, loopback: true, extra: Vec::new() }
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            path: "/mcp".to_owned(),
            hosts: AllowList::loopback(),
            origins: AllowList::loopback(),
            idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            max_sessions_per_client: None,
            handshake_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            header_timeout: Duration::from_secs(30),
            max_connections: 1_000,
            max_connections_per_client: None,
            sse_retry: Duration::from_secs(1),
            replay_buffer: 1024,
            keep_alive: Some(Duration::from_secs(15)),
            stateless: false,
            #[cfg(feature = "auth")]
            auth: None,
            #[cfg(feature = "oauth-proxy")]
            routes: None,
        }
    }
}

impl HttpConfig {
    /// The path of the MCP endpoint (default `/mcp`). Requests for other paths get 404.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.path = if path.starts_with('/') { path } else { format!("/{path}") };
        self
    }

    /// Also serves requests whose `Host` is `host`: a name (`mcp.example.com`, any port) or a
    /// name with a port (`mcp.example.com:8443`, that port only). Others get 403.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.hosts.extra.push(host.into().to_ascii_lowercase());
        self
    }

    /// Serves requests whatever their `Host` header, e.g. behind a proxy that checks it.
    /// Without a Host check, a server on localhost is open to DNS-rebinding attacks from
    /// web pages unless the Origin check stays on.
    pub fn allow_any_host(mut self) -> Self {
        self.hosts.any = true;
        self
    }

    /// Also serves browser requests from `origin`, e.g. `https://app.example.com` (scheme, host
    /// and port as the browser sends them). Requests with any other `Origin` get 403; requests
    /// without one (not from a browser) are not affected.
    ///
    /// Every allowed origin (the loopback ones included) also gets CORS answers, so a web app
    /// served from it can use the endpoint with `fetch`: preflights (`OPTIONS`) are answered
    /// without a token, with the endpoint's methods and the protocol's request headers (and the
    /// `Mcp-Param-*` headers a preflight asks for), and every answer, errors included, carries
    /// `Access-Control-Allow-Origin` and exposes `Mcp-Session-Id`, `MCP-Protocol-Version` and
    /// `WWW-Authenticate`. Credentials (cookies) are not allowed: a browser app sends its
    /// token in `Authorization`.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        let origin = origin.into().trim_end_matches('/').to_ascii_lowercase();
        self.origins.extra.push(origin);
        self
    }

    /// Serves requests whatever their `Origin` header, and gives every origin CORS answers
    /// (see [`allow_origin`](Self::allow_origin)): for a public server whose every request
    /// needs a token (`auth`, feature `auth`), never for one on localhost without it.
    pub fn allow_any_origin(mut self) -> Self {
        self.origins.any = true;
        self
    }

    /// Ends a session after this long without a request or an open stream (default 30
    /// minutes); its id then gets 404 and the client starts a new session.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// The most sessions open at once (default 10 000); a new `initialize` beyond that gets 503.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// The most sessions one client may hold at once (default: a tenth of
    /// [`max_sessions`](Self::max_sessions), so 1 000), so that one client cannot fill the
    /// table for everyone; a new `initialize` beyond that gets 429. A client is the peer's IP
    /// address (an IPv6 address by its /64 prefix), or with `auth` (feature `auth`) the user its
    /// token names. Every client behind one proxy or NAT shares one address: raise this when
    /// that is how yours arrive. A service you mount yourself learns the peer from a
    /// [`SocketAddr`](std::net::SocketAddr) request extension; without one only the
    /// table's cap applies.
    pub fn max_sessions_per_client(mut self, max: usize) -> Self {
        self.max_sessions_per_client = Some(max.max(1));
        self
    }

    /// Ends a new session that no request uses within this time of its `initialize` (default
    /// 10 s): a client sends `notifications/initialized` right after the handshake, so a
    /// session without it only holds a place in the table.
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.handshake_timeout = timeout;
        self
    }

    /// How long a client may take to send a request's body once its headers are in (default
    /// 30 s, as [`header_timeout`](Self::header_timeout)); then it gets 408 and its connection is
    /// closed, so a body sent a byte at a time cannot hold a connection forever.
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// How long a connection [`serve`](super::McpHttpService::serve) accepted may go without a
    /// request once it opens or its last answer is sent (default 30 s, to within a tenth of
    /// it): a client sending nothing, or a request's headers a byte at a time, has the
    /// connection closed. A connection with a request in flight (an SSE stream open) is kept.
    /// Zero closes a connection at the next tick of the sweeper (every 10 ms) that finds it
    /// with no request in flight.
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// The most connections [`serve`](super::McpHttpService::serve) keeps open at once (default
    /// 1 000), lowered at start to what the file-descriptor limit (`ulimit -n`) allows once a
    /// reserve is kept for everything else (an eighth of the limit, within 16 and 1 024; the log
    /// says so). A new connection past it waits in the listener's backlog while the server
    /// closes the open connection whose client sent least: a body stalled mid-way first, then
    /// one that never sent a whole request (each silent for at least a tenth of
    /// [`header_timeout`](Self::header_timeout)), then the newest of a client past its
    /// [share](Self::max_connections_per_client), then one idle between requests. A connection
    /// serving a request (an SSE stream open) of a client within its share is never closed for
    /// it: when every one is, the new one waits until one ends (the log says so at most once
    /// every 10 s).
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = max.max(1);
        self
    }

    /// How many connections one client may keep once [`max_connections`](Self::max_connections)
    /// is reached (default: a tenth of the cap in force, so 100), so that one client's streams
    /// cannot keep every other client out. Below the cap a client may open more. At the cap, a
    /// new connection from a client past its share is answered `503` with `Retry-After` and
    /// closed; one from another client closes the newest connection of a client past its
    /// share when no stalled or silent connection can go first. A client is the peer's IP
    /// address (an IPv6 address by its /64 prefix): every client behind one proxy or NAT, and
    /// every local client of a server on loopback, shares one; raise this when that is how
    /// yours arrive.
    pub fn max_connections_per_client(mut self, max: usize) -> Self {
        self.max_connections_per_client = Some(max.max(1));
        self
    }

    /// The cap of [`max_connections_per_client`](Self::max_connections_per_client), once
    /// defaulted from the connection cap in force, `cap`.
    pub(super) fn connections_per_client(&self, cap: usize) -> usize {
        self.max_connections_per_client.unwrap_or((cap / 10).max(1))
    }

    /// The cap of [`max_sessions_per_client`](Self::max_sessions_per_client), once defaulted.
    pub(super) fn sessions_per_client(&self) -> usize {
        self.max_sessions_per_client.unwrap_or((self.max_sessions / 10).max(1))
    }

    /// How long a client should wait before reconnecting to a stream the server closed (the
    /// SSE `retry:` field; default 1 s).
    pub fn sse_retry(mut self, retry: Duration) -> Self {
        self.sse_retry = retry;
        self
    }

    /// How many events each stream keeps for a client that reconnects with `Last-Event-ID`
    /// (default 1024), within the session's byte budget
    /// ([`Server::max_session_bytes`](crate::Server::max_session_bytes)). When a client reads
    /// slower than a request writes, the request waits.
    pub fn replay_buffer(mut self, events: usize) -> Self {
        self.replay_buffer = events.max(1);
        self
    }

    /// How often an idle SSE stream gets a comment line, so proxies keep it open and a gone
    /// client is noticed (default 15 s; `None`: never).
    pub fn keep_alive(mut self, interval: Option<Duration>) -> Self {
        self.keep_alive = interval;
        self
    }

    /// Serves HTTP without sessions (default `false`), for hosts that run each request on any
    /// instance and keep nothing between them: AWS Lambda, Cloud Run scaled to zero, several
    /// replicas behind a load balancer without a session store. The peers' names for it are
    /// `stateless_http` (the Python SDK, FastMCP), `WithStateLess` (mcp-go), `stateful_mode:
    /// false` (rmcp) and no `sessionIdGenerator` (the TypeScript SDK).
    ///
    /// 2026-07-28 requests are served the same either way: that era has no sessions. For a
    /// 2025-era client, in this mode:
    ///
    /// - `initialize` is answered without an `Mcp-Session-Id`, and nothing of it is kept;
    /// - every other `POST` stands alone, served as in a session the client opened at the
    ///   version its `MCP-Protocol-Version` header names (2025-03-26 without one), declaring no
    ///   capabilities; an `Mcp-Session-Id` it sends is ignored, notifications and answers get
    ///   `202` and change nothing;
    /// - a request's progress and log messages go on its own SSE stream (at the default level,
    ///   `info`: `logging/setLevel` lasts for its own request only), and closing that stream
    ///   cancels it;
    /// - `GET` and `DELETE` are answered `405`: there is no session stream to open or end, so
    ///   list changes and resource updates reach no 2025-era client;
    /// - a handler's requests to the client (sampling, elicitation, roots) fail at once with
    ///   [`ClientError::Sessionless`](crate::ClientError::Sessionless), which names the mode;
    /// - a call that became a task (2025-11-25's `task` param) belongs to whoever holds its id
    ///   (or, with `auth`, to its caller), as a 2026-07-28 one does: any later request reaches it.
    ///
    /// ```
    /// use mcp_runtime::http::HttpConfig;
    ///
    /// let config = HttpConfig::default().stateless(true);
    /// # let _ = config;
    /// ```
    #[doc(alias = "stateless_http")]
    #[doc(alias = "sessions")]
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// Requires a bearer token on every request to the MCP endpoint and serves the
    /// protected-resource metadata (feature `auth`; see [`AuthConfig`](crate::auth::AuthConfig)).
    /// Without it, anyone who can reach the port may use the server.
    #[cfg(feature = "auth")]
    pub fn auth(mut self, auth: crate::auth::AuthConfig) -> Self {
        self.auth = Some(auth);
        self
    }

    /// The endpoint's path, for what derives URLs from it.
    #[cfg(feature = "oauth-proxy")]
    pub(crate) fn endpoint_path(&self) -> &str {
        &self.path
    }

    /// Serves `routes` beside the endpoint (the authorization-server façade).
    #[cfg(feature = "oauth-proxy")]
    pub(crate) fn routes(mut self, routes: std::sync::Arc<dyn super::routes::Routes>) -> Self {
        self.routes = Some(super::routes::SharedRoutes(routes));
        self
    }

    /// Checks what cannot be checked as it is set.
    pub(crate) fn validate(&self) -> crate::error::Result<()> {
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.auth {
            auth.validated_resource()?;
        }
        Ok(())
    }
}
