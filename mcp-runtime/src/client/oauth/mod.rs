//! Signing in to an OAuth-protected MCP server (feature `oauth`): the authorization flow of the
//! MCP specification, run by the client the first time a server answers 401 (or 403 with
//! `insufficient_scope`), then again only when a token expires, is revoked, or lacks a scope.
//!
//! ```no_run
//! use mcp_runtime::client::Client;
//! use mcp_runtime::client::oauth::{FileStore, Loopback, OAuth};
//!
//! # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
//! let oauth = OAuth::authorization_code(Loopback::bind().await?)
//!     .client_name("my-agent")
//!     .store(FileStore::new("tokens.json"));
//! let client = Client::builder().oauth(oauth).connect_http("https://example.com/mcp").await?;
//! # Ok(()) }
//! ```
//!
//! What happens, in the order of the specification:
//! - **Discovery** (`discovery.rs`): the `WWW-Authenticate` challenge (`challenge.rs`) names the
//!   protected resource metadata (RFC 9728), else it is looked up at the path-based, then the
//!   root well-known URL; its `resource` must be this server. The first authorization server
//!   it names is asked for its metadata (RFC 8414, then OpenID discovery), whose `issuer` must be
//!   the one asked.
//! - **Who the client is** (`registration.rs`): pre-registered credentials; else a Client ID
//!   Metadata Document (an HTTPS `client_id`) where the server supports it; else Dynamic Client
//!   Registration (RFC 7591). Registrations belong to one authorization server: a resource that
//!   moves to another registers anew.
//! - **The grant** (`authorizer.rs`, `token.rs`): authorization code with PKCE S256, `state`,
//!   `iss` (RFC 9207) and `resource` (RFC 8707), the user sent to the authorization page by a
//!   [`UserAgent`] ([`Loopback`]: the browser and a listener on 127.0.0.1); or client
//!   credentials; or a JWT bearer assertion. Token endpoint authentication `none`,
//!   `client_secret_basic`, `client_secret_post` or `private_key_jwt`.
//! - **Scopes**: those of the challenge, else those the resource supports, plus `offline_access`
//!   where the authorization server offers it; on `insufficient_scope` the union of what was
//!   granted and what is asked, at most [`OAuth::max_authorizations`] times for one request.
//! - **Tokens** (`store.rs`): kept in a [`TokenStore`] keyed by resource and authorization
//!   server, refreshed (with rotation) before they expire or when refused.
//!
//! Every response of a server or an authorization server is read within a size limit and a time
//! limit; every endpoint must be `https` (or `http` on a loopback address, for development).
//! Tokens, codes and secrets never appear in a log line or an error message.

mod authorizer;
mod challenge;
mod clock;
mod config;
mod discovery;
mod dpop;
mod fetch;
mod pkce;
mod registration;
mod store;
mod token;
mod user_agent;

pub(crate) use authorizer::Authorizer;
pub use config::{IdentityAssertion, OAuth};
pub use registration::ClientSecret;
pub use store::{FileStore, MemoryStore, Stored, TokenStore};
pub use token::Tokens;
pub use user_agent::{Loopback, UserAgent};
