//! Authorization (feature `auth`): the OAuth 2.1 resource-server side of the HTTP transport.
//!
//! A server that is reachable by others verifies a bearer token on every HTTP request:
//! configure it with [`HttpConfig::auth`](crate::http::HttpConfig::auth) and an
//! [`AuthConfig`], built on a [`TokenVerifier`] such as the built-in [`JwtVerifier`]. A tool
//! sees who called it through an [`AuthInfo`] parameter, and `scopes = [...]` on
//! `#[mcp_tool]`, `#[mcp_resource]` or `#[mcp_prompt]` names the scopes a caller needs.
//!
//! | Module | Owns |
//! |---|---|
//! | `mod.rs` | [`TokenVerifier`], [`AuthError`], [`AuthInfo`] as an injected parameter |
//! | `caller.rs` | [`AuthInfo`], [`Principal`] (a user or a client) and the caller of the request being handled |
//! | `config.rs` | [`AuthConfig`]: the canonical resource URI, authorization servers, scopes |
//! | `jwt.rs` | [`JwtVerifier`]: JWT access tokens checked by a key or a JWKS |
//! | `jwks.rs` | the keys a [`JwtVerifier`] fetches: a JWKS URL or the issuer's metadata, cached, refetched, kept through outages |
//! | `introspection.rs` | [`IntrospectionVerifier`]: opaque tokens checked by the authorization server (RFC 7662) |
//! | `exchange.rs` | [`TokenExchange`]: tokens for downstream APIs, in the caller's name (RFC 8693) |
//! | `outbound.rs` | requests to the authorization server: the HTTP client, [`ClientCredentials`] |
//! | `token_cache.rs` | a bounded cache keyed by token hashes, each entry until its deadline |
//! | `scopes.rs` | which item (tool, resource, prompt) a request acts on, and which items a caller may see and use |
//!
//! The HTTP side (401/403 answers, `WWW-Authenticate`, the protected-resource metadata) lives
//! with the transport, in `transport/http/auth.rs`.

mod caller;
mod config;
mod exchange;
mod introspection;
mod jwks;
mod jwt;
pub(crate) mod outbound;
pub(crate) mod scopes;
mod token_cache;
mod verifier;

pub use caller::{AuthInfo, Principal};
pub(crate) use caller::{SessionOwner, current_caller, with_caller};
pub use config::AuthConfig;
pub use exchange::{ExchangeRequest, ExchangedToken, TokenExchange};
pub use introspection::IntrospectionVerifier;
pub use jwt::{JwtKey, JwtVerifier};
pub use outbound::ClientCredentials;
pub use verifier::{AuthError, TokenVerifier};
