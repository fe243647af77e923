//! Streamable HTTP (protocol 2025-11-25 sessions, and 2026-07-28 stateless requests): one
//! endpoint; `POST` carries client messages, `GET` opens the session's own SSE stream,
//! `DELETE` ends the session.
//!
//! A request answered at once (most are) is answered with JSON when the client accepts it.
//! One that sends first or waits gets a stream of its own (SSE when the client accepts it):
//! its progress, logs and requests to the client, then its response, which ends the stream.
//! Messages tied to no request (`list_changed`...) go on the `GET` stream. Every stream is a
//! bounded log ([`sse`]), so a client that lost its connection resumes with `GET` and
//! `Last-Event-ID` and receives what it missed, from that stream only.
//!
//! | Module | Owns |
//! |---|---|
//! | `service.rs` | [`McpHttpService`]: the hyper and tower `Service`, shutdown |
//! | `serve.rs` | the accept loop and its cap on open connections, graceful shutdown, the session sweeper |
//! | `connections.rs` | the open connections: each client's share, what each is doing (a body arriving, requests sent whole) |
//! | `idle.rs` | the connections' head timeout: one sweeper on a coarse clock, no timer per request |
//! | `shed.rs` | whom to close when a connection waits for a place: the one whose client sent least |
//! | `fd_limit.rs` | the connection cap the file-descriptor limit allows |
//! | `endpoint.rs` | the endpoint's methods: `POST` (sessions), `GET`, `DELETE` |
//! | `policy.rs` | what is decided on a decoded message before the engine runs it: scopes, mirrored headers, the era |
//! | `mirrored.rs` | header values that mirror the body: the Base64 sentinel form, a tool's `Mcp-Param-*` headers against its arguments |
//! | `headers.rs` | reading the request's headers, in one pass: `Accept`, `Content-Type`, `MCP-Protocol-Version`... |
//! | `media.rs` | media types: `Accept` ranges and their q-values, `Content-Type` and its charset |
//! | `stateless.rs` | 2026-07-28 `POST`s: no session, the status of an error answer |
//! | `sessionless.rs` | 2025-era `POST`s to a server without sessions ([`HttpConfig::stateless`]): each message alone |
//! | `config.rs` | [`HttpConfig`] |
//! | `security.rs` | the Origin/Host allow-lists (DNS-rebinding protection) |
//! | `cors.rs` | CORS for the allowed origins: preflights, the headers a page may read |
//! | `replication/` | the seam to a store shared by several replicas: what the endpoint does at the few points that need one, the store's side of it, a session's part in it |
//! | `replicas/` | that store in Redis (feature `redis`): records, streams, the bus between replicas |
//! | `client.rs` | who a client is to the per-client shares of sessions and connections: its address, or its verified caller |
//! | `sessions.rs` | the session table: ids, the caps (in all, per client), the handshake and idle timeouts |
//! | `session.rs` | one session: its engine connection and its streams |
//! | `sse.rs` | event encoding, event ids, the per-stream replay log |
//! | `body.rs` | [`McpBody`] and the shapes of the answers |
//! | `code.rs` | the JSON-RPC codes of the transport's own errors |
//! | `failure.rs` | why a request is refused, as data (`body.rs` makes its answer) |
//! | `auth.rs` | bearer tokens, `401`/`403` challenges, protected-resource metadata (feature `auth`) |
//! | `routes.rs` | the seam for pages served beside the endpoint: the authorization-server façade (feature `oauth-proxy`) |
//! | `tls.rs` | [`TlsConfig`] and HTTPS connections (feature `tls`) |

#[cfg(feature = "auth")]
mod auth;
mod body;
mod client;
mod code;
mod config;
mod connections;
mod cors;
mod endpoint;
mod failure;
mod fd_limit;
mod headers;
mod idle;
mod media;
mod mirrored;
mod policy;
#[cfg(feature = "redis")]
mod replicas;
mod replication;
#[cfg(feature = "oauth-proxy")]
pub(crate) mod routes;
mod security;
mod serve;
mod service;
mod session;
mod sessionless;
mod sessions;
mod shed;
mod sse;
mod stateless;
mod ticker;
#[cfg(feature = "tls")]
mod tls;

pub use body::McpBody;
pub use config::HttpConfig;
#[cfg(feature = "tls")]
pub(crate) use serve::serve_tls;
pub(crate) use serve::{bind, serve};
pub use service::McpHttpService;
#[cfg(feature = "tls")]
pub use tls::TlsConfig;
