//! How a bearer token becomes a caller: the [`TokenVerifier`] trait every verifier implements,
//! its object-safe form, and [`AuthError`], the reason a token is refused.

use super::caller::AuthInfo;
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

/// Checks a bearer token and says who it belongs to. [`JwtVerifier`](super::JwtVerifier) checks JWT access tokens
/// locally, [`IntrospectionVerifier`](super::IntrospectionVerifier) asks the authorization server about opaque ones;
/// implement this trait for anything else (an opaque token table, a database...).
///
/// `resource` is the server's canonical URI ([`AuthConfig::resource`](super::AuthConfig::resource)): a verifier **must**
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

/// [`TokenVerifier`] made object-safe, so [`AuthConfig`](super::AuthConfig) can hold any verifier.
pub(crate) trait DynVerifier: Send + Sync {
    fn verify_dyn<'a>(&'a self, token: &'a str, resource: &'a str) -> BoxFuture<'a, Result<AuthInfo, AuthError>>;
}

impl<T: TokenVerifier> DynVerifier for T {
    fn verify_dyn<'a>(&'a self, token: &'a str, resource: &'a str) -> BoxFuture<'a, Result<AuthInfo, AuthError>> {
        Box::pin(self.verify(token, resource))
    }
}
