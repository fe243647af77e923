//! [`TokenExchange`]: tokens for downstream APIs in the caller's name (RFC 8693 token exchange),
//! cached per caller's token and target until they expire.

use super::caller::AuthInfo;
use super::outbound::{self, ClientCredentials, without_query};
use super::token_cache::{self, TokenCache};
use crate::error::{Error, ErrorKind, Result};
use reqwest::Url;
use serde_json::Value;
use std::time::{Duration, Instant};

/// The `grant_type` of a token exchange.
const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The type of the token a caller presents, and of the token asked for by default.
const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";

/// Gets tokens for downstream APIs on the caller's behalf, by RFC 8693 token exchange at the
/// authorization server's token endpoint: the caller's token (the one [`AuthInfo`] holds) goes
/// in as the `subject_token`, and a token for the API (its `resource` or `audience`) comes back.
///
/// The MCP specification forbids passing the caller's token on to other services: it was issued
/// for this server. A tool that calls an API as the user gets a token of the API's own with
/// [`token_for`](Self::token_for) (or [`request`](Self::request) for an audience, scopes or
/// another token type). Configure it once and hand it to tools as state:
///
/// ```
/// use mcp_runtime::State;
/// use mcp_runtime::auth::{AuthInfo, ClientCredentials, TokenExchange};
/// use mcp_runtime::prelude::*;
///
/// /// The caller's invoices, from the billing API.
/// #[mcp_tool(scopes = ["billing:read"])]
/// async fn invoices(caller: AuthInfo, State(exchange): State<TokenExchange>) -> Result<String, mcp_runtime::Error> {
///     // A token for the billing API, in the caller's name (cached until it expires).
///     let token = exchange.token_for(&caller, "https://billing.example.com").await?;
///     // ... GET https://billing.example.com/invoices with `Authorization: Bearer {token}`
///     # let _ = token;
///     Ok("no invoices".to_owned())
/// }
///
/// # fn main() -> mcp_runtime::Result<()> {
/// let exchange = TokenExchange::new(
///     "https://auth.example.com/oauth2/token",
///     ClientCredentials::basic("mcp-server", std::env::var("CLIENT_SECRET").unwrap_or_default()),
/// )?;
/// let server = server!().tools(tools![invoices]).state(exchange);
/// # let _ = server;
/// # Ok(())
/// # }
/// ```
///
/// Exchanged tokens are cached per caller's token (by its SHA-256 hash) and request, until
/// shortly before their `expires_in` ends (30 s before, or half their life when that is
/// shorter); a token without `expires_in` is not cached. The cache holds at most
/// [`cache_capacity`](Self::cache_capacity) tokens (10,000).
pub struct TokenExchange {
    endpoint: Url,
    credentials: ClientCredentials,
    timeout: Duration,
    cache: TokenCache<ExchangedToken>,
}

impl std::fmt::Debug for TokenExchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenExchange")
            .field("endpoint", &without_query(&self.endpoint))
            .field("credentials", &self.credentials)
            .finish_non_exhaustive()
    }
}

impl TokenExchange {
    /// Exchanges tokens at the token endpoint `token_endpoint`, authenticated with `credentials`
    /// (this server's OAuth client, which the authorization server must allow to exchange).
    ///
    /// An error if `token_endpoint` is not a URL, or not `https` (plain `http` only to a loopback
    /// address).
    pub fn new(token_endpoint: impl AsRef<str>, credentials: ClientCredentials) -> Result<Self> {
        let endpoint = outbound::checked_url("TokenExchange::new", token_endpoint.as_ref())?;
        Ok(Self { endpoint, credentials, timeout: outbound::DEFAULT_TIMEOUT, cache: TokenCache::new(10_000) })
    }

    /// How long one request to the token endpoint may take (default 10 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How many exchanged tokens the cache holds at most (default 10,000; 0 caches none).
    pub fn cache_capacity(mut self, capacity: usize) -> Self {
        self.cache = TokenCache::new(capacity);
        self
    }

    /// An access token for the API at `resource` (an absolute URI, sent as the RFC 8707
    /// `resource`), in `caller`'s name: from the cache while it lasts, else exchanged.
    pub async fn token_for(&self, caller: &AuthInfo, resource: &str) -> Result<String> {
        let token = self.request(caller).resource(resource).send().await?;
        Ok(token.access_token)
    }

    /// An exchange of `caller`'s token, to refine before [`send`](ExchangeRequest::send)ing it.
    ///
    /// ```
    /// # use mcp_runtime::auth::{AuthInfo, TokenExchange};
    /// # async fn example(exchange: &TokenExchange, caller: &AuthInfo) -> mcp_runtime::Result<()> {
    /// let token = exchange.request(caller).audience("billing").scope("invoices:read").send().await?;
    /// let (bearer, expires_in) = (token.access_token(), token.expires_in());
    /// # let _ = (bearer, expires_in);
    /// # Ok(())
    /// # }
    /// ```
    pub fn request<'a>(&'a self, caller: &'a AuthInfo) -> ExchangeRequest<'a> {
        ExchangeRequest {
            exchange: self,
            caller,
            resources: Vec::new(),
            audiences: Vec::new(),
            scope: None,
            requested_token_type: None,
        }
    }

    async fn exchange(&self, request: &ExchangeRequest<'_>) -> Result<ExchangedToken> {
        let subject = request.caller.token();
        let mut form: Vec<(&str, &str)> =
            vec![("grant_type", GRANT_TYPE), ("subject_token", subject), ("subject_token_type", ACCESS_TOKEN_TYPE)];
        form.extend(request.resources.iter().map(|r| ("resource", r.as_str())));
        form.extend(request.audiences.iter().map(|a| ("audience", a.as_str())));
        if let Some(scope) = &request.scope {
            form.push(("scope", scope));
        }
        if let Some(kind) = &request.requested_token_type {
            form.push(("requested_token_type", kind));
        }
        let response = outbound::post_form(&self.endpoint, &self.credentials, &form, self.timeout).await?;
        if !response.status.is_success() {
            return Err(Error::new(
                ErrorKind::Auth,
                format!("the token exchange was refused ({})", outbound::oauth_error(&response)),
            ));
        }
        let answer: Value = response.json("the token exchange response")?;
        let text = |name: &str| answer.get(name).and_then(Value::as_str).map(str::to_owned);
        let Some(access_token) = text("access_token").filter(|t| !t.is_empty()) else {
            return Err(Error::new(ErrorKind::Auth, "the token exchange response has no `access_token`"));
        };
        let expires_in = answer.get("expires_in").and_then(Value::as_u64).map(Duration::from_secs);
        Ok(ExchangedToken {
            access_token,
            issued_token_type: text("issued_token_type").unwrap_or_else(|| ACCESS_TOKEN_TYPE.to_owned()),
            token_type: text("token_type").unwrap_or_else(|| "Bearer".to_owned()),
            scope: text("scope"),
            expires_at: expires_in.and_then(|d| Instant::now().checked_add(d)),
        })
    }
}

/// One token exchange: what is asked for, in whose name. Made by [`TokenExchange::request`].
#[must_use = "a request does nothing until it is sent"]
pub struct ExchangeRequest<'a> {
    exchange: &'a TokenExchange,
    caller: &'a AuthInfo,
    resources: Vec<String>,
    audiences: Vec<String>,
    scope: Option<String>,
    requested_token_type: Option<String>,
}

impl std::fmt::Debug for ExchangeRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExchangeRequest")
            .field("caller", self.caller.principal())
            .field("resources", &self.resources)
            .field("audiences", &self.audiences)
            .field("scope", &self.scope)
            .field("requested_token_type", &self.requested_token_type)
            .finish()
    }
}

impl ExchangeRequest<'_> {
    /// For the API at this URI (RFC 8693 `resource`, an absolute URI); call again for several.
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.resources.push(resource.into());
        self
    }

    /// For this audience, a name the authorization server knows the API by (RFC 8693
    /// `audience`); call again for several.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// With these scopes (space-separated, the `scope` field).
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// A token of this type (`requested_token_type`, e.g.
    /// `urn:ietf:params:oauth:token-type:jwt`) rather than the server's default.
    pub fn requested_token_type(mut self, token_type: impl Into<String>) -> Self {
        self.requested_token_type = Some(token_type.into());
        self
    }

    /// The token: from the cache while it lasts, else exchanged. An error of kind
    /// [`ErrorKind::Auth`](crate::ErrorKind::Auth) when the endpoint cannot be reached or
    /// refuses (its OAuth `error`, such as `invalid_target`, is in the message).
    pub async fn send(self) -> Result<ExchangedToken> {
        let joined = |items: &[String]| items.join(" ");
        let key = token_cache::key(&[
            self.caller.token(),
            &joined(&self.resources),
            &joined(&self.audiences),
            self.scope.as_deref().unwrap_or(""),
            self.requested_token_type.as_deref().unwrap_or(""),
        ]);
        if let Some(token) = self.exchange.cache.get(&key) {
            return Ok(token);
        }
        let token = self.exchange.exchange(&self).await?;
        if let Some(expires_at) = token.expires_at {
            let life = expires_at.saturating_duration_since(Instant::now());
            let margin = (life / 2).min(Duration::from_secs(30));
            self.exchange.cache.insert(key, expires_at - margin, token.clone());
        }
        Ok(token)
    }
}

/// A token a [`TokenExchange`] obtained.
#[derive(Clone)]
pub struct ExchangedToken {
    access_token: String,
    issued_token_type: String,
    token_type: String,
    scope: Option<String>,
    expires_at: Option<Instant>,
}

impl std::fmt::Debug for ExchangedToken {
    /// The token stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExchangedToken")
            .field("issued_token_type", &self.issued_token_type)
            .field("token_type", &self.token_type)
            .field("scope", &self.scope)
            .field("expires_in", &self.expires_in())
            .field("access_token", &"<redacted>")
            .finish()
    }
}

impl ExchangedToken {
    /// The token (the response's `access_token`, whatever its type).
    pub fn access_token(&self) -> &str {
        &self.access_token
    }

    /// How to present it (`token_type`): `Bearer` mostly, `N_A` for a token that is not an
    /// access token.
    pub fn token_type(&self) -> &str {
        &self.token_type
    }

    /// What it is (`issued_token_type`, e.g. `urn:ietf:params:oauth:token-type:access_token`).
    pub fn issued_token_type(&self) -> &str {
        &self.issued_token_type
    }

    /// The scopes granted, when the authorization server says.
    pub fn scope(&self) -> Option<&str> {
        self.scope.as_deref()
    }

    /// How long it is still valid for, when the authorization server said (`expires_in`).
    pub fn expires_in(&self) -> Option<Duration> {
        self.expires_at.map(|at| at.saturating_duration_since(Instant::now()))
    }
}
