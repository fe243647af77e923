//! [`IntrospectionVerifier`]: opaque tokens checked by the authorization server's introspection
//! endpoint (RFC 7662), with a short cache of the tokens it found active.

use super::caller::AuthInfo;
use super::jwt;
use super::outbound::{self, ClientCredentials, without_query};
use super::token_cache::{self, TokenCache};
use super::verifier::{AuthError, TokenVerifier};
use crate::error::Result;
use reqwest::Url;
use serde_json::{Map, Value};
use std::time::{Duration, Instant};

/// Verifies opaque access tokens (or any token the authorization server issued) by asking its
/// introspection endpoint (RFC 7662), authenticated as this server's OAuth client.
///
/// A token is accepted when the answer says `"active": true`, names this server among its
/// audiences (`aud`: the canonical URI, or [`audience`](Self::audience); a token without `aud`
/// is refused, since the MCP specification forbids accepting tokens not issued for the server),
/// comes from the [`issuer`](Self::issuer) when one is set, and is within its `exp` and `nbf`.
/// The caller is the user `sub`, else the client `client_id` (a
/// [`Principal::Client`](super::Principal::Client)); scopes come from `scope`; every member of
/// the answer is a claim ([`AuthInfo::claims`]).
///
/// An active token's identity is cached for [`cache_for`](Self::cache_for) (30 s by default,
/// never past the token's `exp`), keyed by a SHA-256 hash of the token, at most
/// [`cache_capacity`](Self::cache_capacity) tokens (10,000). A token revoked meanwhile is still
/// accepted until its entry ends: keep the time short. Tokens found inactive are not cached.
/// When the endpoint cannot be reached or refuses the request, the token is refused (`401`,
/// "the token could not be checked") and the failure is logged with `tracing`.
///
/// ```
/// use mcp_runtime::auth::{AuthConfig, ClientCredentials, IntrospectionVerifier};
/// use std::time::Duration;
///
/// # fn main() -> mcp_runtime::Result<()> {
/// let verifier = IntrospectionVerifier::new(
///     "https://auth.example.com/oauth2/introspect",
///     ClientCredentials::basic("mcp-server", std::env::var("CLIENT_SECRET").unwrap_or_default()),
/// )?
/// .issuer("https://auth.example.com")
/// .cache_for(Duration::from_secs(15));
/// let auth = AuthConfig::new(verifier)
///     .resource("https://mcp.example.com/mcp")
///     .authorization_server("https://auth.example.com");
/// # let _ = auth;
/// # Ok(())
/// # }
/// ```
pub struct IntrospectionVerifier {
    endpoint: Url,
    credentials: ClientCredentials,
    issuers: Vec<String>,
    audiences: Vec<String>,
    leeway: Duration,
    ttl: Duration,
    timeout: Duration,
    cache: TokenCache<AuthInfo>,
}

impl std::fmt::Debug for IntrospectionVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionVerifier")
            .field("endpoint", &without_query(&self.endpoint))
            .field("credentials", &self.credentials)
            .field("issuers", &self.issuers)
            .field("audiences", &self.audiences)
            .field("cache_for", &self.ttl)
            .finish_non_exhaustive()
    }
}

const DEFAULT_CAPACITY: usize = 10_000;

impl IntrospectionVerifier {
    /// Asks the introspection endpoint at `endpoint`, authenticated with `credentials`.
    ///
    /// An error if `endpoint` is not a URL, or not `https` (plain `http` only to a loopback
    /// address).
    pub fn new(endpoint: impl AsRef<str>, credentials: ClientCredentials) -> Result<Self> {
        let endpoint = outbound::checked_url("IntrospectionVerifier::new", endpoint.as_ref())?;
        Ok(Self {
            endpoint,
            credentials,
            issuers: Vec::new(),
            audiences: Vec::new(),
            leeway: Duration::from_secs(30),
            ttl: Duration::from_secs(30),
            timeout: outbound::DEFAULT_TIMEOUT,
            cache: TokenCache::new(DEFAULT_CAPACITY),
        })
    }

    /// Accepts tokens whose `iss` is this issuer (call again for several). Without one, the
    /// answer's `iss` is not checked (the endpoint speaks for its own tokens).
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuers.push(issuer.into());
        self
    }

    /// Accepts tokens for this audience instead of the server's canonical URI (call again for
    /// several), for authorization servers that name resources otherwise.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// How much clock skew `exp` and `nbf` tolerate (default 30 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How long an active token's identity is kept before the endpoint is asked again (default
    /// 30 s; never past the token's `exp`). `Duration::ZERO` asks for every request.
    pub fn cache_for(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How many tokens the cache holds at most (default 10,000).
    pub fn cache_capacity(mut self, capacity: usize) -> Self {
        self.cache = TokenCache::new(capacity);
        self
    }

    /// How long one request to the endpoint may take (default 10 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn introspect(&self, token: &str) -> std::result::Result<Map<String, Value>, AuthError> {
        let unavailable = || AuthError::invalid_token("the token could not be checked");
        let form = [("token", token), ("token_type_hint", "access_token")];
        let response =
            outbound::post_form(&self.endpoint, &self.credentials, &form, self.timeout).await.map_err(|err| {
                tracing::warn!(error = %err, cause = ?std::error::Error::source(&err).map(ToString::to_string),
                    "token introspection failed");
                // Unreachable: the authorization server is down, not the token bad.
                AuthError::unavailable("the token could not be checked")
            })?;
        if response.status.is_server_error() {
            tracing::warn!(endpoint = %without_query(&self.endpoint), status = %response.status, "the introspection endpoint is failing");
            return Err(AuthError::unavailable("the token could not be checked"));
        }
        if !response.status.is_success() {
            tracing::warn!(
                endpoint = %without_query(&self.endpoint),
                answer = %outbound::oauth_error(&response),
                "the introspection endpoint refused the request"
            );
            return Err(unavailable());
        }
        match response.json::<Value>("the introspection response") {
            Ok(Value::Object(answer)) => Ok(answer),
            _ => {
                tracing::warn!(endpoint = %without_query(&self.endpoint), "the introspection response is not a JSON object");
                Err(unavailable())
            }
        }
    }

    /// The identity in an introspection answer, and until when it may be cached.
    fn identity(
        &self,
        token: &str,
        answer: Map<String, Value>,
        resource: &str,
    ) -> std::result::Result<(AuthInfo, Instant), AuthError> {
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(AuthError::invalid_token("the token is not active"));
        }
        let audiences: Vec<&str> = match answer.get("aud") {
            Some(Value::String(one)) => vec![one.as_str()],
            Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let for_us = if self.audiences.is_empty() {
            audiences.contains(&resource)
        } else {
            self.audiences.iter().any(|wanted| audiences.contains(&wanted.as_str()))
        };
        if !for_us {
            return Err(AuthError::invalid_token("the token was not issued for this server"));
        }
        if !self.issuers.is_empty() {
            let issuer = answer.get("iss").and_then(Value::as_str);
            if !issuer.is_some_and(|issuer| self.issuers.iter().any(|i| i == issuer)) {
                return Err(AuthError::invalid_token("the token's issuer is not trusted"));
            }
        }
        let now = token_cache::unix_now();
        let leeway = self.leeway.as_secs();
        let exp = answer.get("exp").and_then(Value::as_u64);
        if exp.is_some_and(|exp| exp.saturating_add(leeway) <= now) {
            return Err(AuthError::invalid_token("the token has expired"));
        }
        if answer.get("nbf").and_then(Value::as_u64).is_some_and(|nbf| nbf > now.saturating_add(leeway)) {
            return Err(AuthError::invalid_token("the token is not valid yet"));
        }
        let mut until = token_cache::after(self.ttl);
        if let Some(exp) = exp {
            until = until.min(token_cache::instant_of_unix(exp).unwrap_or_else(Instant::now));
        }
        Ok((jwt::identity(token, answer)?, until))
    }
}

impl TokenVerifier for IntrospectionVerifier {
    async fn verify(&self, token: &str, resource: &str) -> std::result::Result<AuthInfo, AuthError> {
        // The resource is part of the key: one verifier behind two resources checks each.
        let key = token_cache::key(&[token, resource]);
        if let Some(cached) = self.cache.get(&key) {
            return Ok(cached.with_token(token));
        }
        let answer = self.introspect(token).await?;
        let (caller, until) = self.identity(token, answer, resource)?;
        self.cache.insert(key, until, caller.clone().with_token(String::new()));
        Ok(caller)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const RESOURCE: &str = "https://mcp.example.com/mcp";

    fn verifier() -> IntrospectionVerifier {
        IntrospectionVerifier::new("https://auth.example.com/introspect", ClientCredentials::basic("id", "secret"))
            .unwrap()
    }

    fn answer(patch: Value) -> Map<String, Value> {
        let mut answer = json!({"active": true, "aud": RESOURCE, "sub": "alice", "scope": "a b",
            "exp": token_cache::unix_now() + 600, "iss": "https://auth.example.com"});
        answer.as_object_mut().unwrap().append(&mut patch.as_object().unwrap().clone());
        answer.as_object().unwrap().clone()
    }

    #[test]
    fn answers_are_checked() {
        let refused = |v: &IntrospectionVerifier, patch: Value| {
            v.identity("t", answer(patch), RESOURCE).err().map(|e| e.message().to_owned())
        };
        let v = verifier();
        let (caller, _) = v.identity("t", answer(json!({})), RESOURCE).unwrap();
        assert_eq!((caller.subject(), caller.scopes()), ("alice", &["a".to_owned(), "b".to_owned()][..]));
        assert_eq!(refused(&v, json!({"active": false})).as_deref(), Some("the token is not active"));
        assert_eq!(refused(&v, json!({"active": "true"})).as_deref(), Some("the token is not active"));
        assert_eq!(
            refused(&v, json!({"aud": "https://other"})).as_deref(),
            Some("the token was not issued for this server")
        );
        assert_eq!(refused(&v, json!({"aud": null})).as_deref(), Some("the token was not issued for this server"));
        assert_eq!(refused(&v, json!({"aud": ["https://other", RESOURCE]})), None);
        assert_eq!(refused(&v, json!({"exp": token_cache::unix_now() - 60})).as_deref(), Some("the token has expired"));
        assert_eq!(
            refused(&v, json!({"nbf": token_cache::unix_now() + 600})).as_deref(),
            Some("the token is not valid yet")
        );
        let v = verifier().issuer("https://auth.example.com");
        assert_eq!(refused(&v, json!({"iss": "https://evil"})).as_deref(), Some("the token's issuer is not trusted"));
        let v = verifier().audience("api://mcp");
        assert_eq!(refused(&v, json!({})).as_deref(), Some("the token was not issued for this server"));
        assert_eq!(refused(&v, json!({"aud": "api://mcp"})), None);
    }
}
