//! [`OAuthProxy`]: how the façade is configured.

use super::keys::SigningKey;
use super::store::{MemoryStore, ProxyStore};
use super::upstream::Upstream;
use crate::error::{Error, ErrorKind, Result};
use std::sync::Arc;
use std::time::Duration;

/// The MCP server as the OAuth authorization server its clients see, signing users in at an
/// [`Upstream`] provider. Serve it with [`HttpConfig::oauth_proxy`](crate::http::HttpConfig::oauth_proxy).
///
/// ```
/// use mcp_runtime::http::HttpConfig;
/// use mcp_runtime::oauth_proxy::{OAuthProxy, Upstream};
///
/// # fn main() -> mcp_runtime::Result<()> {
/// let proxy = OAuthProxy::new(Upstream::github("Iv1.client-id", "client-secret"), "https://mcp.example.com")?
///     .allow_redirect_prefix("https://claude.ai/");
/// let config = HttpConfig::default().oauth_proxy(proxy);
/// # let _ = config;
/// # Ok(())
/// # }
/// ```
///
/// Register `{public_url}/oauth/callback` as the redirect URI of the client you created at
/// the provider.
#[derive(Clone)]
pub struct OAuthProxy {
    pub(super) upstream: Upstream,
    pub(super) public_url: String,
    pub(super) scopes: Vec<String>,
    pub(super) redirect_prefixes: Vec<String>,
    pub(super) access_token_lifetime: Duration,
    pub(super) refresh_token_lifetime: Duration,
    pub(super) store: Arc<dyn ProxyStore>,
    pub(super) key: Arc<SigningKey>,
    pub(super) private_metadata_addresses: bool,
    pub(super) server_name: String,
}

impl std::fmt::Debug for OAuthProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthProxy")
            .field("upstream", &self.upstream)
            .field("public_url", &self.public_url)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl OAuthProxy {
    /// A façade for `upstream`, reached by clients at `public_url`: the origin the server is
    /// served at (`https://mcp.example.com`, or `http://127.0.0.1:8080` for development), which
    /// is the issuer of its tokens.
    pub fn new(upstream: Upstream, public_url: impl Into<String>) -> Result<Self> {
        let public_url = public_url.into().trim_end_matches('/').to_owned();
        let url = reqwest::Url::parse(&public_url).map_err(|err| {
            Error::new(ErrorKind::Auth, format!("OAuthProxy: `{public_url}` is not a URL")).with_source(err)
        })?;
        if !crate::auth::outbound::allowed(&url) || url.path() != "/" || url.query().is_some() {
            return Err(Error::new(
                ErrorKind::Auth,
                format!(
                    "OAuthProxy: the public URL `{public_url}` must be an https origin without a path \
                     (plain http only on a loopback address)"
                ),
            ));
        }
        Ok(Self {
            upstream,
            public_url,
            scopes: Vec::new(),
            redirect_prefixes: Vec::new(),
            access_token_lifetime: Duration::from_secs(10 * 60),
            refresh_token_lifetime: Duration::from_secs(30 * 24 * 3600),
            store: Arc::new(MemoryStore::new()),
            key: Arc::new(SigningKey::new(None)?),
            private_metadata_addresses: false,
            server_name: "this MCP server".to_owned(),
        })
    }

    /// Scopes clients may ask for (`scopes_supported`); a token carries those asked for among
    /// them, or all of them when none was asked for.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Accepts redirect URIs starting with `prefix` at registration; once one is given,
    /// `https` redirect URIs must start with one of them (loopback `http` redirects stay
    /// allowed, on any port). A custom scheme (`cursor://`) is accepted only this way.
    pub fn allow_redirect_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.redirect_prefixes.push(prefix.into());
        self
    }

    /// How long access tokens live (10 minutes by default).
    pub fn access_token_lifetime(mut self, lifetime: Duration) -> Self {
        self.access_token_lifetime = lifetime;
        self
    }

    /// How long a refresh token lives unused (30 days by default); each use rotates it.
    pub fn refresh_token_lifetime(mut self, lifetime: Duration) -> Self {
        self.refresh_token_lifetime = lifetime;
        self
    }

    /// Where clients, codes, consents and grants are kept ([`MemoryStore`] by default). Replicas
    /// behind one URL need a shared store, and the same [`signing_key`](Self::signing_key).
    pub fn store(mut self, store: impl ProxyStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// The ECDSA P-256 key tokens are signed with, as PKCS#8 DER; without it, a key is
    /// generated when the proxy is made (tokens then die with the process). An error if
    /// `pkcs8_der` is not such a key.
    pub fn signing_key(mut self, pkcs8_der: &[u8]) -> Result<Self> {
        self.key = Arc::new(SigningKey::new(Some(pkcs8_der))?);
        Ok(self)
    }

    /// Fetches Client ID Metadata Documents from private, loopback and link-local addresses too
    /// (and over plain http from a loopback address): for development only, since a client id
    /// naming an internal host would otherwise make the server request it.
    pub fn allow_private_metadata_addresses(mut self) -> Self {
        self.private_metadata_addresses = true;
        self
    }

    /// The name the consent page gives the server ("this MCP server" by default).
    pub fn server_name(mut self, name: impl Into<String>) -> Self {
        self.server_name = name.into();
        self
    }
}
