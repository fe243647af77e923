//! Authorization (feature `auth`): the OAuth 2.1 resource-server side of the HTTP transport.
//!
//! A server that is reachable by others verifies a bearer token on every HTTP request:
//! configure it with [`HttpConfig::auth`](crate::http::HttpConfig::auth) and an
//! [`AuthConfig`], built on a [`TokenVerifier`] such as the built-in [`JwtVerifier`]. A tool
//! sees who called it through an [`AuthInfo`] parameter, and `#[mcp_tool(scopes = [...])]`
//! names the scopes a caller needs.
//!
//! | Module | Owns |
//! |---|---|
//! | `mod.rs` | [`AuthInfo`], [`TokenVerifier`], [`AuthError`], the request's caller |
//! | `config.rs` | [`AuthConfig`]: the canonical resource URI, authorization servers, scopes |
//! | `jwt.rs` | [`JwtVerifier`]: JWT access tokens checked by a key or a JWKS |
//! | `scopes.rs` | which tools a caller may see and call |
//!
//! The HTTP side (401/403 answers, `WWW-Authenticate`, the protected-resource metadata) lives
//! with the transport, in `transport/http/auth.rs`.

mod config;
mod jwt;
pub(crate) mod scopes;

pub use config::AuthConfig;
pub use jwt::{JwtKey, JwtVerifier};

use crate::context::{Context, FromContext};
use crate::tool::CallToolResult;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use std::future::Future;
use std::sync::Arc;

/// Who made a request: the identity a [`TokenVerifier`] established from its bearer token.
///
/// Take it as a handler parameter; like [`Context`] it is injected and never part of the
/// tool's input schema. `AuthInfo` requires a verified caller (a call without one gets an error
/// result, e.g. over stdio or on an HTTP server without auth); `Option<AuthInfo>` is `None`
/// there instead.
///
/// ```
/// use mcp_runtime::auth::AuthInfo;
/// use mcp_runtime::prelude::*;
///
/// /// Who am I?
/// #[mcp_tool]
/// fn whoami(caller: Option<AuthInfo>) -> String {
///     match caller {
///         Some(caller) => format!("{} with scopes {:?}", caller.subject(), caller.scopes()),
///         None => "anonymous".to_owned(),
///     }
/// }
/// ```
///
/// [`token`](Self::token) is the raw access token, to call a downstream API *as this user*
/// only when that API is the token's audience too; the MCP specification forbids passing a
/// token on to services it was not issued for: get a token of their own for those.
#[derive(Clone, PartialEq)]
pub struct AuthInfo {
    subject: String,
    scopes: Vec<String>,
    claims: Map<String, Value>,
    token: String,
}

impl std::fmt::Debug for AuthInfo {
    /// The token stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthInfo")
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .field("claims", &self.claims)
            .field("token", &"<redacted>")
            .finish()
    }
}

impl AuthInfo {
    /// The identity of `subject`, established from `token` (for verifiers of your own).
    pub fn new(subject: impl Into<String>, token: impl Into<String>) -> Self {
        Self { subject: subject.into(), scopes: Vec::new(), claims: Map::new(), token: token.into() }
    }

    /// With these granted scopes.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// With these claims (a JWT's payload, an introspection response...).
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// The subject: the user (or client) the token was issued for (`sub`).
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The granted scopes.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// Every claim of the token.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }

    /// One claim, e.g. `email`.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }

    /// The OAuth client the token was issued to (`client_id`, else `azp`), if the token says.
    pub fn client_id(&self) -> Option<&str> {
        self.claim("client_id").or_else(|| self.claim("azp")).and_then(Value::as_str)
    }

    /// The raw bearer token.
    pub fn token(&self) -> &str {
        &self.token
    }
}

/// Why a token was refused. Its message goes to the client as the `error_description` of the
/// `401 invalid_token` answer, so keep it short and free of secrets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthError {
    message: String,
}

impl AuthError {
    /// A refused token (expired, wrong audience, bad signature...).
    pub fn invalid_token(message: impl Into<String>) -> Self {
        Self { message: message.into() }
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
/// locally; implement this trait for anything else (token introspection, an opaque token
/// table...).
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

tokio::task_local! {
    /// The verified caller of the HTTP request being handled. The transport sets it around the
    /// engine's handling of the request; [`Context`] captures it when a handler starts, and the
    /// router reads it to list only the tools the caller may use.
    static CALLER: Arc<AuthInfo>;
}

/// Runs `future` (the handling of one request) with `caller` as its verified caller.
pub(crate) async fn with_caller<F: Future>(caller: Arc<AuthInfo>, future: F) -> F::Output {
    CALLER.scope(caller, future).await
}

/// The verified caller of the request being handled, if there is one.
pub(crate) fn current_caller() -> Option<Arc<AuthInfo>> {
    CALLER.try_with(Arc::clone).ok()
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
