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

pub use caller::{AuthInfo, Principal};
pub(crate) use caller::{SessionOwner, current_caller, with_caller};
pub use config::AuthConfig;
pub use exchange::{ExchangeRequest, ExchangedToken, TokenExchange};
pub use introspection::IntrospectionVerifier;
pub use jwt::{JwtKey, JwtVerifier};
pub use outbound::ClientCredentials;

use crate::context::{Context, FromContext};
use crate::tool::CallToolResult;
use futures_util::future::BoxFuture;
use std::future::Future;

/// Why a token was refused, or could not be checked. Its message goes to the client as the
/// `error_description` of the `401 invalid_token` answer (or in the `503`), so keep it short and
/// free of secrets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthError {
    message: String,
    unavailable: bool,
}

impl AuthError {
    /// A refused token (expired, wrong audience, bad signature...): `401 invalid_token`.
    pub fn invalid_token(message: impl Into<String>) -> Self {
        Self { message: message.into(), unavailable: false }
    }

    /// The token could not be checked because what checks it is down (the authorization
    /// server's keys or introspection endpoint unreachable, a store failing): `503` with
    /// `Retry-After`, so clients wait instead of signing in again.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self { message: message.into(), unavailable: true }
    }

    /// Whether the token could not be checked at all, rather than being refused.
    pub fn is_unavailable(&self) -> bool {
        self.unavailable
    }

    /// The reason.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AuthError {}

/// Checks a bearer token and says who it belongs to. [`JwtVerifier`] checks JWT access tokens
/// locally, [`IntrospectionVerifier`] asks the authorization server about opaque ones;
/// implement this trait for anything else (an opaque token table, a database...).
///
/// `resource` is the server's canonical URI ([`AuthConfig::resource`]): a verifier **must**
/// refuse tokens not issued for it (their audience), so that a token meant for another service
/// cannot be replayed here.
///
/// ```
/// use mcp_runtime::auth::{AuthError, AuthInfo, TokenVerifier};
///
/// /// Opaque tokens from a table (a test double).
/// struct Table(Vec<(&'static str, &'static str)>);
///
/// impl TokenVerifier for Table {
///     async fn verify(&self, token: &str, _resource: &str) -> Result<AuthInfo, AuthError> {
///         match self.0.iter().find(|(t, _)| *t == token) {
///             Some((_, user)) => Ok(AuthInfo::new(*user, token).with_scopes(["notes:read"])),
///             None => Err(AuthError::invalid_token("unknown token")),
///         }
///     }
/// }
/// ```
pub trait TokenVerifier: Send + Sync + 'static {
    /// The identity `token` proves, or why it proves none.
    fn verify(&self, token: &str, resource: &str) -> impl Future<Output = Result<AuthInfo, AuthError>> + Send;
}

/// [`TokenVerifier`] made object-safe, so [`AuthConfig`] can hold any verifier.
pub(crate) trait DynVerifier: Send + Sync {
    fn verify_dyn<'a>(&'a self, token: &'a str, resource: &'a str) -> BoxFuture<'a, Result<AuthInfo, AuthError>>;
}

impl<T: TokenVerifier> DynVerifier for T {
    fn verify_dyn<'a>(&'a self, token: &'a str, resource: &'a str) -> BoxFuture<'a, Result<AuthInfo, AuthError>> {
        Box::pin(self.verify(token, resource))
    }
}

// Kept out of "other types implement `FromContext`" hints, which list the core injected types.
#[diagnostic::do_not_recommend]
impl FromContext for AuthInfo {
    fn from_context(ctx: &Context) -> Result<Self, CallToolResult> {
        ctx.auth().cloned().ok_or_else(|| {
            CallToolResult::error(
                "this tool needs an authenticated caller, and the request carried no verified token \
                 (the server has no authorization configured, or runs over stdio)",
            )
        })
    }
}

#[diagnostic::do_not_recommend]
impl FromContext for Option<AuthInfo> {
    fn from_context(ctx: &Context) -> Result<Self, CallToolResult> {
        Ok(ctx.auth().cloned())
    }
}
