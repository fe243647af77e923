//! The state every page of the façade shares, and the records it keeps between requests.

use super::config::OAuthProxy;
use super::keys::SigningKey;
use super::redirect::RedirectPolicy;
use super::store::ProxyStore;
use super::upstream::{Identity, Upstream};
use crate::auth::JwtVerifier;
use crate::error::Result;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::sync::Arc;
use std::time::Duration;

/// How long a sign-in may take, from `/oauth/authorize` to the consent (the upstream's login).
pub(super) const SIGN_IN_LIFETIME: Duration = Duration::from_secs(10 * 60);
/// How long an authorization code lives (OAuth 2.1 recommends at most 10 minutes).
pub(super) const CODE_LIFETIME: Duration = Duration::from_secs(60);

/// The façade, ready to serve.
pub(super) struct Facade {
    /// Our issuer: the public URL.
    pub issuer: String,
    /// The MCP endpoint's canonical URI: the audience of every token (RFC 8707).
    pub resource: String,
    pub upstream: Upstream,
    pub store: Arc<dyn ProxyStore>,
    pub key: Arc<SigningKey>,
    /// Checks the access tokens the key signed.
    pub jwt: JwtVerifier,
    pub redirects: RedirectPolicy,
    pub scopes: Vec<String>,
    pub access_lifetime: Duration,
    pub refresh_lifetime: Duration,
    pub private_metadata_addresses: bool,
    pub server_name: String,
}

impl Facade {
    pub fn new(config: OAuthProxy, resource: String) -> Self {
        let jwt = JwtVerifier::new(config.key.verifying.clone()).issuer(config.public_url.clone()).access_tokens_only();
        Self {
            key: config.key,
            jwt,
            issuer: config.public_url,
            resource,
            upstream: config.upstream,
            store: config.store,
            redirects: RedirectPolicy { allowed_prefixes: config.redirect_prefixes },
            scopes: config.scopes,
            access_lifetime: config.access_token_lifetime,
            refresh_lifetime: config.refresh_token_lifetime,
            private_metadata_addresses: config.private_metadata_addresses,
            server_name: config.server_name,
        }
    }

    /// `{issuer}{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.issuer)
    }

    pub async fn put<T: Serialize>(&self, key: &str, record: &T, ttl: Duration) -> Result<()> {
        let value = serde_json::to_string(record).map_err(|err| {
            crate::Error::new(crate::ErrorKind::Auth, "OAuthProxy: a record could not be encoded").with_source(err)
        })?;
        self.store.put(key, value, ttl).await
    }

    pub async fn get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>> {
        Ok(self.store.get(key).await?.and_then(|value| serde_json::from_str(&value).ok()))
    }

    pub async fn take<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>> {
        Ok(self.store.take(key).await?.and_then(|value| serde_json::from_str(&value).ok()))
    }
}

/// A client's authorization request, once checked.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub(super) struct AuthorizationRequest {
    pub client_id: String,
    pub client_name: Option<String>,
    pub redirect_uri: String,
    pub state: Option<String>,
    pub code_challenge: String,
    pub scope: Vec<String>,
}

/// A sign-in at the upstream in progress, under `signin:{upstream state}`.
#[derive(Debug, Serialize, serde::Deserialize)]
pub(super) struct PendingSignIn {
    pub request: AuthorizationRequest,
    /// Our PKCE verifier for the upstream.
    pub verifier: String,
}

/// A consent page shown, under `consent-page:{id}`.
#[derive(Debug, Serialize, serde::Deserialize)]
pub(super) struct PendingConsent {
    pub request: AuthorizationRequest,
    pub grant: Grant,
    /// The form's CSRF token.
    pub csrf: String,
    /// The digest of the browser's cookie the page was shown with.
    pub browser: String,
}

/// What a user granted a client: alive while its refresh tokens are, under `grant:{id}`.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub(super) struct Grant {
    pub client_id: String,
    pub identity: Identity,
    pub scope: Vec<String>,
    /// The upstream's access token for the user: never sent to the client.
    pub upstream_token: String,
}

/// An authorization code, under `code:{digest}`.
#[derive(Debug, Serialize, serde::Deserialize)]
pub(super) struct IssuedCode {
    pub request: AuthorizationRequest,
    pub grant_id: String,
}

/// Where a refresh token leads, under `refresh:{digest}` (and `used-refresh:{digest}` once rotated).
#[derive(Debug, Serialize, serde::Deserialize)]
pub(super) struct RefreshRecord {
    pub grant_id: String,
    pub client_id: String,
}

/// The store's keys.
pub(super) mod key {
    pub fn client(id: &str) -> String {
        format!("client:{id}")
    }
    pub fn sign_in(state: &str) -> String {
        format!("signin:{state}")
    }
    pub fn consent_page(id: &str) -> String {
        format!("consent-page:{id}")
    }
    pub fn consent(client: &str, subject: &str) -> String {
        format!("consent:{}:{client}", super::super::random::digest(subject))
    }
    pub fn grant(id: &str) -> String {
        format!("grant:{id}")
    }
    pub fn code(digest: &str) -> String {
        format!("code:{digest}")
    }
    pub fn used_code(digest: &str) -> String {
        format!("used-code:{digest}")
    }
    pub fn refresh(digest: &str) -> String {
        format!("refresh:{digest}")
    }
    pub fn used_refresh(digest: &str) -> String {
        format!("used-refresh:{digest}")
    }
}
