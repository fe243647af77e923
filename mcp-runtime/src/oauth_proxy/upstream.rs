//! [`Upstream`]: the provider users sign in at, where the façade holds one client: its
//! endpoints (presets, or OpenID discovery), the exchange of its code and the user's identity.

use crate::auth::ClientCredentials;
use crate::auth::outbound::{self, checked_url, oauth_error};
use reqwest::Url;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::OnceCell;

/// How long a call to the provider may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The identity provider users sign in at, and the client the server holds there.
///
/// The provider redirects back to `{public_url}/oauth/callback`: register that URL with the client.
#[derive(Clone)]
pub struct Upstream {
    kind: Kind,
    client_id: String,
    client_secret: String,
    pub(super) scopes: Vec<String>,
    endpoints: Arc<OnceCell<Endpoints>>,
}

#[derive(Clone, Debug)]
enum Kind {
    /// An OpenID provider found by discovery; the identity from its `userinfo_endpoint`.
    Oidc { issuer: String },
    /// GitHub: OAuth 2.0 apps and GitHub Apps; the identity from `api.github.com/user`.
    GitHub,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream").field("kind", &self.kind).field("client_id", &self.client_id).finish_non_exhaustive()
    }
}

/// Where the provider's pages and APIs are.
#[derive(Clone, Debug)]
struct Endpoints {
    authorization: Url,
    token: Url,
    userinfo: Url,
    /// How the token endpoint wants the client authenticated.
    basic_auth: bool,
}

/// Who signed in, as the provider says.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub(super) struct Identity {
    /// The provider's stable id for the user.
    pub subject: String,
    /// The login name (GitHub `login`, OpenID `preferred_username`, else the email).
    pub login: Option<String>,
    pub email: Option<String>,
    pub name: Option<String>,
    pub groups: Vec<String>,
}

/// What the provider gave for the user, kept on the server.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct SignedIn {
    pub identity: Identity,
    pub access_token: String,
}

/// Why a call to the provider failed.
#[derive(Debug)]
pub(super) enum UpstreamError {
    /// Down or unreachable (a connection failure, a 5xx): try again later (`503`).
    Unavailable(String),
    /// It answered, and refused (a bad code, a token without access to the user).
    Refused(String),
}

impl Upstream {
    /// Any OpenID provider, by its issuer URL: its endpoints come from
    /// `{issuer}/.well-known/openid-configuration`. Asks for `openid email profile`.
    pub fn oidc(issuer: impl Into<String>, client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        let issuer = issuer.into().trim_end_matches('/').to_owned();
        Self::of(Kind::Oidc { issuer }, client_id, client_secret, ["openid", "email", "profile"])
    }

    /// Google (`https://accounts.google.com`, by discovery): an OAuth client of type "Web
    /// application" from the Google Cloud console.
    pub fn google(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self::oidc("https://accounts.google.com", client_id, client_secret)
    }

    /// GitHub: an OAuth app's or a GitHub App's client. Asks for `read:user user:email`.
    pub fn github(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        let endpoints = Endpoints {
            authorization: Url::parse("https://github.com/login/oauth/authorize").expect("a valid URL"),
            token: Url::parse("https://github.com/login/oauth/access_token").expect("a valid URL"),
            userinfo: Url::parse("https://api.github.com/user").expect("a valid URL"),
            basic_auth: false,
        };
        let upstream = Self::of(Kind::GitHub, client_id, client_secret, ["read:user", "user:email"]);
        let _ = upstream.endpoints.set(endpoints);
        upstream
    }

    fn of<S: Into<String>>(
        kind: Kind,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            kind,
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            scopes: scopes.into_iter().map(Into::into).collect(),
            endpoints: Arc::new(OnceCell::new()),
        }
    }

    /// The scopes asked of the provider, instead of the preset's.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The provider's endpoints, discovered once (a failure is retried on the next sign-in).
    async fn endpoints(&self) -> Result<&Endpoints, UpstreamError> {
        self.endpoints.get_or_try_init(|| self.discover()).await
    }

    async fn discover(&self) -> Result<Endpoints, UpstreamError> {
        let Kind::Oidc { issuer } = &self.kind else {
            return Err(UpstreamError::Unavailable("no endpoints".to_owned()));
        };
        let url = checked_url("the upstream issuer", &format!("{issuer}/.well-known/openid-configuration"))
            .map_err(|err| UpstreamError::Refused(err.to_string()))?;
        let response = outbound::get(&url, TIMEOUT).await.map_err(|err| UpstreamError::Unavailable(err.to_string()))?;
        if !response.status.is_success() {
            return Err(UpstreamError::Unavailable(format!("discovery at {url}: HTTP {}", response.status.as_u16())));
        }
        let metadata: Map<String, Value> =
            response.json("the upstream's metadata").map_err(|err| UpstreamError::Unavailable(err.to_string()))?;
        if metadata.get("issuer").and_then(Value::as_str) != Some(issuer.as_str()) {
            return Err(UpstreamError::Refused(format!("the metadata at {url} names another issuer")));
        }
        let endpoint = |name: &str| {
            let value = metadata.get(name).and_then(Value::as_str).unwrap_or_default();
            checked_url(&format!("the upstream's {name}"), value).map_err(|err| UpstreamError::Refused(err.to_string()))
        };
        let methods = metadata.get("token_endpoint_auth_methods_supported").and_then(Value::as_array);
        let basic_auth = methods.is_none_or(|methods| methods.iter().any(|m| m == "client_secret_basic"));
        Ok(Endpoints {
            authorization: endpoint("authorization_endpoint")?,
            token: endpoint("token_endpoint")?,
            userinfo: endpoint("userinfo_endpoint")?,
            basic_auth,
        })
    }

    /// The provider's authorization URL for one sign-in, with its own `state` and PKCE challenge.
    pub(super) async fn authorization_url(
        &self,
        redirect_uri: &str,
        state: &str,
        challenge: &str,
    ) -> Result<Url, UpstreamError> {
        let mut url = self.endpoints().await?.authorization.clone();
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", &self.client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("scope", &self.scopes.join(" "))
            .append_pair("state", state)
            .append_pair("code_challenge", challenge)
            .append_pair("code_challenge_method", "S256");
        Ok(url)
    }

    /// The provider's code exchanged for its token, and the user's identity read with it.
    pub(super) async fn sign_in(
        &self,
        code: &str,
        redirect_uri: &str,
        verifier: &str,
    ) -> Result<SignedIn, UpstreamError> {
        let endpoints = self.endpoints().await?;
        let credentials = if endpoints.basic_auth {
            ClientCredentials::basic(&self.client_id, &self.client_secret)
        } else {
            ClientCredentials::post(&self.client_id, &self.client_secret)
        };
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
        ];
        let response =
            outbound::post_form(&endpoints.token, &credentials, &form, TIMEOUT).await.map_err(unreachable)?;
        let tokens: Map<String, Value> = answered(&response, "token")?;
        // GitHub answers a refused code with 200 and an `error`.
        let Some(access_token) = tokens.get("access_token").and_then(Value::as_str).map(str::to_owned) else {
            return Err(UpstreamError::Refused(format!(
                "the token endpoint gave no token: {}",
                oauth_error(&response)
            )));
        };
        let response =
            outbound::get_authorized(&endpoints.userinfo, &access_token, TIMEOUT).await.map_err(unreachable)?;
        let user: Map<String, Value> = answered(&response, "user")?;
        let identity = self.identity(&user)?;
        Ok(SignedIn { identity, access_token })
    }

    fn identity(&self, user: &Map<String, Value>) -> Result<Identity, UpstreamError> {
        let text = |name: &str| user.get(name).and_then(Value::as_str).map(str::to_owned);
        let (subject, login) = match self.kind {
            Kind::GitHub => (user.get("id").and_then(Value::as_u64).map(|id| id.to_string()), text("login")),
            Kind::Oidc { .. } => (text("sub"), text("preferred_username").or_else(|| text("nickname"))),
        };
        let Some(subject) = subject.filter(|s| !s.is_empty()) else {
            return Err(UpstreamError::Refused("the provider named no user".to_owned()));
        };
        let email = text("email");
        let groups = user
            .get("groups")
            .and_then(Value::as_array)
            .map(|groups| groups.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        Ok(Identity { login: login.or_else(|| email.clone()), subject, email, name: text("name"), groups })
    }
}

fn unreachable(err: crate::Error) -> UpstreamError {
    UpstreamError::Unavailable(err.to_string())
}

/// The JSON of a `2xx` answer; a `5xx` is an outage, another status a refusal.
fn answered(response: &outbound::Response, what: &str) -> Result<Map<String, Value>, UpstreamError> {
    if response.status.is_server_error() {
        return Err(UpstreamError::Unavailable(format!("the {what} endpoint: {}", oauth_error(response))));
    }
    if !response.status.is_success() {
        return Err(UpstreamError::Refused(format!("the {what} endpoint: {}", oauth_error(response))));
    }
    response.json(what).map_err(|err| UpstreamError::Refused(err.to_string()))
}
