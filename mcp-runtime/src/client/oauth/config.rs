//! How a client signs in ([`OAuth`]): the grant, who the client is, where tokens are kept, and
//! the limits of the flow.

use super::registration::ClientSecret;
use super::store::{MemoryStore, TokenStore};
use super::user_agent::UserAgent;
use std::sync::Arc;
use std::time::Duration;

/// How a client signs in to OAuth-protected servers; given to
/// [`ClientBuilder::oauth`](crate::client::ClientBuilder::oauth).
#[derive(Clone)]
pub struct OAuth {
    pub(super) grant: Grant,
    pub(super) client_name: String,
    pub(super) client_id: Option<String>,
    pub(super) secret: Option<ClientSecret>,
    pub(super) metadata_url: Option<String>,
    pub(super) scopes: Vec<String>,
    pub(super) store: Arc<dyn TokenStore>,
    pub(super) max_authorizations: u32,
    pub(super) timeout: Duration,
    pub(super) max_response: usize,
}

/// How the client obtains tokens.
#[derive(Clone)]
pub(crate) enum Grant {
    /// A user signs in through a browser ([`UserAgent`]).
    AuthorizationCode(Arc<dyn UserAgent>),
    /// The client acts for itself (no user): `client_credentials`.
    ClientCredentials,
    /// An assertion (a workload identity's JWT) exchanged for a token (RFC 7523).
    JwtBearer(String),
    /// No grant: the tokens of an earlier sign-in, refreshed.
    Stored,
    /// The enterprise's identity provider vouches for the user (SEP-990).
    Enterprise(IdentityAssertion),
}

impl OAuth {
    /// A user signs in: the authorization code flow, with `user_agent` sending them to the
    /// authorization page and bringing back its redirect ([`Loopback`](super::Loopback) for a desktop or a CLI).
    pub fn authorization_code(user_agent: impl UserAgent + 'static) -> Self {
        Self::with_grant(Grant::AuthorizationCode(Arc::new(user_agent)))
    }

    /// The client acts on its own behalf (machine to machine): the `client_credentials` grant,
    /// with the client's id and its secret or private key
    /// ([`ClientSecret::Shared`], [`ClientSecret::PrivateKeyJwt`]).
    pub fn client_credentials(client_id: impl Into<String>, secret: ClientSecret) -> Self {
        Self::with_grant(Grant::ClientCredentials).client_id(client_id, Some(secret))
    }

    /// Only the tokens a sign-in kept in `store` earlier (refreshed as they expire): this client
    /// never signs in by itself. When the server wants a sign-in that a refresh cannot give, the
    /// request fails with [`ClientError::Auth`](crate::client::ClientError::Auth). For a CLI whose
    /// `login` command signed in before.
    pub fn stored(store: impl TokenStore + 'static) -> Self {
        Self::with_grant(Grant::Stored).store(store)
    }

    /// Enterprise-managed authorization (SEP-990): the user signed in to the enterprise's
    /// identity provider, whose ID token `assertion` holds; the provider exchanges it (RFC 8693)
    /// for an identity assertion grant for the MCP server's authorization server, which that
    /// server exchanges for an access token (the JWT bearer grant), the client authenticated
    /// with `client_id` and `secret`. No browser, no consent page.
    pub fn enterprise(
        assertion: IdentityAssertion,
        client_id: impl Into<String>,
        secret: Option<ClientSecret>,
    ) -> Self {
        Self::with_grant(Grant::Enterprise(assertion)).client_id(client_id, secret)
    }

    /// A workload identity: the JWT `assertion` (issued to this workload by its platform) is
    /// exchanged for an access token with the JWT bearer grant (RFC 7523). A refused assertion
    /// is an error; the grant is not retried or replaced by another.
    pub fn jwt_bearer(client_id: impl Into<String>, assertion: impl Into<String>) -> Self {
        Self::with_grant(Grant::JwtBearer(assertion.into())).client_id(client_id, None)
    }

    fn with_grant(grant: Grant) -> Self {
        Self {
            grant,
            client_name: "mcp-runtime-client".into(),
            client_id: None,
            secret: None,
            metadata_url: None,
            scopes: Vec::new(),
            store: Arc::new(MemoryStore::default()),
            max_authorizations: 3,
            timeout: Duration::from_secs(30),
            max_response: 256 * 1024,
        }
    }

    /// The name shown to the user on the consent page (`client_name` of the registration).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Credentials registered beforehand with the authorization server: no registration is
    /// attempted. `secret` is `None` for a public client.
    pub fn client_id(mut self, client_id: impl Into<String>, secret: Option<ClientSecret>) -> Self {
        self.client_id = Some(client_id.into());
        self.secret = secret;
        self
    }

    /// The HTTPS URL of this client's metadata document (a Client ID Metadata Document), used
    /// as the `client_id` where the authorization server supports them, instead of registering.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_url = Some(url.into());
        self
    }

    /// Scopes always asked for, beside those the server asks for.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Where registrations and tokens are kept (default: in memory, for the client's life).
    pub fn store(mut self, store: impl TokenStore + 'static) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// How many times one request may send the user to authorize (or ask for a token) before
    /// it fails (default 3): a server that refuses every token cannot loop the client.
    pub fn max_authorizations(mut self, times: u32) -> Self {
        self.max_authorizations = times.max(1);
        self
    }

    /// How long each request to an authorization server may take (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// The user's sign-in at the enterprise's identity provider, for [`OAuth::enterprise`].
#[derive(Clone)]
pub struct IdentityAssertion {
    /// The identity provider's token endpoint.
    pub token_endpoint: String,
    /// The client's id at the identity provider.
    pub client_id: String,
    /// The user's ID token, issued by the identity provider to that client.
    pub id_token: String,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("client_name", &self.client_name)
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}
