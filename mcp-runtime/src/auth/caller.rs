//! [`AuthInfo`], and the verified caller of the request being handled: set by the HTTP
//! transport, captured by the request's context.

use serde_json::{Map, Value};
use std::future::Future;
use std::sync::Arc;

/// Who made a request: the identity a [`TokenVerifier`](super::TokenVerifier) established from its bearer token.
///
/// Take it as a handler parameter; like [`Context`](crate::Context) it is injected and never part of the
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
/// token on to services it was not issued for: get a token of their own for those, e.g. with
/// [`TokenExchange::token_for`](super::TokenExchange::token_for).
#[derive(Clone, PartialEq)]
pub struct AuthInfo {
    principal: Principal,
    scopes: Vec<String>,
    claims: Map<String, Value>,
    token: String,
    /// The upstream provider's access token, kept on the server (an OAuth façade's callers).
    upstream_token: Option<String>,
}

/// Whose token it is: a user's, or a client's acting for itself (OAuth client credentials,
/// where no user is involved). The two never compare equal, even under the same name: a client
/// registered as `alice` is not the user `alice`, and cannot use her session.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Principal {
    /// A user, by the token's subject (`sub`).
    User(String),
    /// A client acting on its own behalf (a machine identity), by its `client_id`.
    Client(String),
}

impl Principal {
    /// The user's subject or the client's id.
    pub fn name(&self) -> &str {
        match self {
            Self::User(name) | Self::Client(name) => name,
        }
    }
}

impl std::fmt::Debug for AuthInfo {
    /// The token stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthInfo")
            .field("principal", &self.principal)
            .field("scopes", &self.scopes)
            .field("claims", &self.claims)
            .field("token", &"<redacted>")
            .field("upstream_token", &self.upstream_token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl AuthInfo {
    /// The identity of the user `subject`, established from `token` (for verifiers of your own).
    pub fn new(subject: impl Into<String>, token: impl Into<String>) -> Self {
        Self::of(Principal::User(subject.into()), token)
    }

    /// The identity of `principal` (a user or a client acting for itself), established from `token`.
    pub fn of(principal: Principal, token: impl Into<String>) -> Self {
        Self { principal, scopes: Vec::new(), claims: Map::new(), token: token.into(), upstream_token: None }
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

    /// With the access token the user's identity provider gave the server for them (set by the
    /// authorization-server façade, feature `oauth-proxy`).
    pub fn with_upstream_token(mut self, token: impl Into<String>) -> Self {
        self.upstream_token = Some(token.into());
        self
    }

    /// The access token of the user's identity provider (GitHub, Google...), when the server
    /// signed the user in through its authorization-server façade (feature `oauth-proxy`): for
    /// calling that provider's APIs as the user. It never leaves the server: the MCP client
    /// holds only the façade's own token.
    pub fn upstream_token(&self) -> Option<&str> {
        self.upstream_token.as_deref()
    }

    /// The name of whom the token was issued for: the user's subject (`sub`), or, for a client
    /// acting for itself, its client id. A name alone does not say which: to key data by caller
    /// or compare callers, use [`principal`](Self::principal).
    pub fn subject(&self) -> &str {
        self.principal.name()
    }

    /// Whom the token was issued for: a user or a client acting for itself.
    pub fn principal(&self) -> &Principal {
        &self.principal
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

    /// The same identity, established from `token` (a cached identity given back to the token
    /// that proved it).
    pub(crate) fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = token.into();
        self
    }
}

tokio::task_local! {
    /// The verified caller of the HTTP request being handled. The transport sets it around the
    /// engine's handling of the request; `Context` captures it when a handler starts, and the
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

/// Who owns a session: the issuer of the token that started it and whom it was issued for (a
/// user or a client acting for itself: never equal, whatever their names). A session store
/// keeps it with the session.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) struct SessionOwner {
    issuer: Option<String>,
    principal: Principal,
}

impl SessionOwner {
    /// The owner `caller` would be.
    pub(crate) fn of(caller: &AuthInfo) -> Self {
        let issuer = caller.claim("iss").and_then(serde_json::Value::as_str).map(str::to_owned);
        Self { issuer, principal: caller.principal().clone() }
    }
}

impl std::fmt::Display for SessionOwner {
    /// `user:NAME` or `client:NAME`, then ` (ISSUER)` when the token named its issuer.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.principal {
            Principal::User(name) => write!(f, "user:{name}")?,
            Principal::Client(name) => write!(f, "client:{name}")?,
        }
        match &self.issuer {
            Some(issuer) => write!(f, " ({issuer})"),
            None => Ok(()),
        }
    }
}
