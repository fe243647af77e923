//! The authorization flow of one MCP endpoint, as the HTTP transport drives it: the token to
//! send ([`Authorizer::token`]), and what to do when the server refuses it
//! ([`Authorizer::challenged`]): refresh, or discover, register, choose scopes and run the grant.

use super::super::authorization::Credentials;
use super::super::error::ClientError;
use super::challenge::Challenge;
use super::config::{Grant, IdentityAssertion, OAuth};
use super::discovery::{Discovered, ServerMetadata, discover};
use super::dpop::{self, Dpop};
use super::fetch::{Fetch, auth_error, parse_url, printable, require_secure};
use super::pkce::{Pkce, random};
use super::registration::{Identity, Registration, register};
use super::store::Stored;
use super::token::{self, Tokens};
use super::user_agent::UserAgent;
use crate::sync::lock;
use reqwest::Url;
use reqwest::header::HeaderMap;
use std::sync::{Mutex, OnceLock};

const OFFLINE_ACCESS: &str = "offline_access";
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

pub(crate) struct Authorizer {
    oauth: OAuth,
    fetch: Fetch,
    /// The MCP endpoint, and its key in the store.
    server: Url,
    key: String,
    /// One flow at a time: requests refused together wait for the first one's tokens.
    flow: tokio::sync::Mutex<()>,
    /// Whether the JWT bearer assertion was already presented (it is never presented twice).
    asserted: Mutex<bool>,
    /// The DPoP key, made the first time an authorization server offers DPoP.
    dpop: OnceLock<Dpop>,
}

impl Authorizer {
    pub fn new(oauth: OAuth, client: reqwest::Client, server: &Url) -> Self {
        let fetch = Fetch { client, timeout: oauth.timeout, max_response: oauth.max_response };
        Self {
            oauth,
            fetch,
            key: server.as_str().to_owned(),
            server: server.clone(),
            flow: tokio::sync::Mutex::new(()),
            asserted: Mutex::new(false),
            dpop: OnceLock::new(),
        }
    }

    /// The credentials for a `method` request to `url`, the token refreshed first when it has
    /// expired (`None`: not signed in yet, the server's 401 will start the flow).
    pub async fn credentials(&self, method: &str, url: &Url) -> Result<Option<Credentials>, ClientError> {
        let Some(tokens) = self.usable_tokens().await else { return Ok(None) };
        if !tokens.dpop_bound {
            return Ok(Some(Credentials { scheme: "Bearer", token: tokens.access_token, proof: None }));
        }
        let Some(dpop) = self.dpop.get() else { return Ok(None) };
        let proof = dpop.proof(method, url, Some(&tokens.access_token))?;
        Ok(Some(Credentials { scheme: "DPoP", token: tokens.access_token, proof: Some(proof) }))
    }

    /// The stored tokens, refreshed if they expired; none that cannot be presented (bound to a
    /// DPoP key of another run of the client).
    async fn usable_tokens(&self) -> Option<Tokens> {
        let presentable = |tokens: &Tokens| !tokens.dpop_bound || self.dpop.get().is_some();
        let tokens = self.oauth.store.load(&self.key)?.tokens?;
        if !tokens.expired() {
            return presentable(&tokens).then_some(tokens);
        }
        let _flow = self.flow.lock().await;
        let mut stored = self.oauth.store.load(&self.key)?;
        let tokens = match stored.tokens.clone()? {
            tokens if !tokens.expired() => tokens,
            _ => match self.refresh(&mut stored).await {
                Ok(()) => stored.tokens?,
                Err(error) => {
                    tracing::info!(
                        "mcp client: the token expired and could not be refreshed ({error}); signing in again"
                    );
                    return None;
                }
            },
        };
        presentable(&tokens).then_some(tokens)
    }

    /// The DPoP key for tokens of `server`, if it binds them and the resource `wants` them
    /// bound (made the first time).
    fn dpop(&self, server: &ServerMetadata, wants: bool) -> Result<Option<&Dpop>, ClientError> {
        if !wants || !server.offers_dpop(dpop::ALGORITHM) {
            return Ok(None);
        }
        if let Some(dpop) = self.dpop.get() {
            return Ok(Some(dpop));
        }
        let made = Dpop::new()?;
        Ok(Some(self.dpop.get_or_init(|| made)))
    }

    /// The server refused the request sent with `sent` (401, or 403 `insufficient_scope`):
    /// obtains tokens that should do.
    pub async fn challenged(&self, headers: &HeaderMap, sent: Option<&str>) -> Result<(), ClientError> {
        let challenge = &Challenge::of(headers);
        // A DPoP nonce asked for (RFC 9449 §9): the next proof carries it; nothing else changes.
        if challenge.wants_nonce() && self.dpop.get().is_some_and(|dpop| dpop.remember_nonce(&self.server, headers)) {
            return Ok(());
        }
        let _flow = self.flow.lock().await;
        let stored = self.oauth.store.load(&self.key);
        let current = stored.as_ref().and_then(|stored| stored.tokens.as_ref());
        if !challenge.insufficient_scope() && current.map(|t| t.access_token.as_str()) != sent && current.is_some() {
            return Ok(()); // another request signed in meanwhile: its token is newer than the one refused
        }
        let discovered = discover(&self.fetch, &self.server, challenge).await?;
        let mut stored = match stored {
            // Tokens belong to the authorization server that issued them: after a move, sign in anew.
            Some(stored) if stored.server.issuer == discovered.issuer && stored.resource == discovered.resource => {
                stored
            }
            Some(moved) => Stored { registrations: moved.registrations, ..Stored::default() },
            None => Stored::default(),
        };
        let granted = stored.tokens.as_ref().and_then(|tokens| tokens.scope.clone());
        stored.resource = discovered.resource.clone();
        stored.server = discovered.server.clone();
        if !challenge.insufficient_scope() && stored.tokens.as_ref().is_some_and(|t| t.refresh_token.is_some()) {
            match self.refresh(&mut stored).await {
                Ok(()) => return Ok(()),
                Err(error) => {
                    tracing::info!("mcp client: the token could not be refreshed ({error}); signing in again")
                }
            }
        }
        stored.tokens = None;
        let scope = self.scope(challenge, &discovered, granted.as_deref());
        // DPoP only where both sides take it: a bound token sent to a server that does not
        // speak DPoP is refused.
        let dpop = challenge.dpop || discovered.resource_dpop;
        let tokens = self.grant(&mut stored, &discovered, scope.as_deref(), dpop).await?;
        stored.tokens = Some(tokens);
        self.oauth.store.save(&self.key, &stored);
        Ok(())
    }

    /// The scopes to ask for: the challenge's, else all the resource supports; with what was
    /// granted before (a step-up keeps what the client had), the client's own, and
    /// `offline_access` where a user signs in and the authorization server offers it.
    fn scope(&self, challenge: &Challenge, discovered: &Discovered, granted: Option<&str>) -> Option<String> {
        let mut scopes: Vec<String> = Vec::new();
        let mut asked: Vec<&str> = match (&challenge.scope, &discovered.resource_scopes) {
            (Some(asked), _) => asked.split(' ').collect(),
            (None, Some(supported)) => supported.iter().map(String::as_str).collect(),
            (None, None) => Vec::new(),
        };
        if challenge.insufficient_scope() {
            asked.extend(granted.unwrap_or_default().split(' '));
        }
        asked.extend(self.oauth.scopes.iter().map(String::as_str));
        let offers_offline =
            discovered.server.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == OFFLINE_ACCESS));
        if matches!(self.oauth.grant, Grant::AuthorizationCode(_)) && offers_offline && !asked.is_empty() {
            asked.push(OFFLINE_ACCESS);
        }
        for scope in asked {
            if !scope.is_empty() && !scopes.iter().any(|s| s == scope) {
                scopes.push(scope.to_owned());
            }
        }
        (!scopes.is_empty()).then(|| scopes.join(" "))
    }

    /// The client's registration with the discovered authorization server: the one kept for it
    /// (if it fits the redirect URI), else a new one.
    async fn registration(&self, stored: &mut Stored, redirect_uri: Option<&str>) -> Result<Registration, ClientError> {
        let issuer = stored.server.issuer.clone();
        if let Some(kept) = stored.registrations.get(&issuer)
            && kept.fits(redirect_uri)
            && self.oauth.client_id.as_ref().is_none_or(|id| *id == kept.client_id)
        {
            return Ok(kept.clone());
        }
        let grant_types: &[&str] = match self.oauth.grant {
            Grant::AuthorizationCode(_) | Grant::Stored => &["authorization_code", "refresh_token"],
            Grant::ClientCredentials => &["client_credentials"],
            Grant::JwtBearer(_) | Grant::Enterprise(_) => &[JWT_BEARER],
        };
        let identity = Identity {
            client_name: &self.oauth.client_name,
            client_id: self.oauth.client_id.as_deref(),
            secret: self.oauth.secret.as_ref(),
            metadata_url: self.oauth.metadata_url.as_deref(),
            grant_types,
        };
        let registration = register(&self.fetch, &identity, &stored.server, redirect_uri).await?;
        stored.registrations.insert(issuer, registration.clone());
        self.oauth.store.save(&self.key, stored);
        Ok(registration)
    }

    /// Runs the client's grant against the discovered authorization server.
    async fn grant(
        &self,
        stored: &mut Stored,
        discovered: &Discovered,
        scope: Option<&str>,
        dpop: bool,
    ) -> Result<Tokens, ClientError> {
        let resource = discovered.resource.clone();
        let mut fields = vec![("resource", resource.clone())];
        let redirect_uri = match &self.oauth.grant {
            Grant::AuthorizationCode(agent) => Some(agent.redirect_uri()),
            _ => None,
        };
        if let Grant::Stored = self.oauth.grant {
            return Err(not_signed_in());
        }
        let registration = self.registration(stored, redirect_uri.as_deref()).await?;
        match &self.oauth.grant {
            Grant::AuthorizationCode(agent) => {
                let redirect_uri = redirect_uri.unwrap_or_default();
                let (code, verifier) = self
                    .authorize(agent.as_ref(), &stored.server, &registration, &redirect_uri, &resource, scope)
                    .await?;
                fields.extend([
                    ("grant_type", "authorization_code".to_owned()),
                    ("code", code),
                    ("redirect_uri", redirect_uri),
                    ("code_verifier", verifier),
                ]);
            }
            Grant::ClientCredentials => fields.push(("grant_type", "client_credentials".to_owned())),
            Grant::Stored => return Err(not_signed_in()),
            Grant::Enterprise(identity) => {
                let grant = self.identity_assertion_grant(identity, &stored.server.issuer, &resource).await?;
                fields.extend([("grant_type", JWT_BEARER.to_owned()), ("assertion", grant)]);
            }
            Grant::JwtBearer(assertion) => {
                if std::mem::replace(&mut *lock(&self.asserted), true) {
                    return Err(auth_error("the workload's assertion was refused once; it is not presented again"));
                }
                fields.extend([("grant_type", JWT_BEARER.to_owned()), ("assertion", assertion.clone())]);
            }
        }
        if let Some(scope) = scope
            && !matches!(self.oauth.grant, Grant::AuthorizationCode(_))
        {
            fields.push(("scope", scope.to_owned()));
        }
        let secret = self.oauth.secret.as_ref();
        let dpop = self.dpop(&stored.server, dpop)?;
        token::request(&self.fetch, &stored.server, &registration, secret, fields, scope, dpop)
            .await
            .map_err(|refused| refused.error)
    }

    /// Exchanges the user's ID token at the identity provider for an identity assertion grant
    /// (ID-JAG) for the authorization server `issuer` and `resource` (RFC 8693, SEP-990).
    async fn identity_assertion_grant(
        &self,
        identity: &IdentityAssertion,
        issuer: &str,
        resource: &str,
    ) -> Result<String, ClientError> {
        let endpoint = parse_url(&identity.token_endpoint, "the identity provider's token endpoint")?;
        let form = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
            ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"),
            ("audience", issuer),
            ("resource", resource),
            ("subject_token", identity.id_token.as_str()),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
            ("client_id", identity.client_id.as_str()),
        ];
        #[derive(serde::Deserialize)]
        struct Exchanged {
            access_token: String,
        }
        let exchanged: Exchanged =
            self.fetch.post_form(&endpoint, &form, &[]).await?.parse("the identity provider's token exchange")?;
        Ok(exchanged.access_token)
    }

    /// Sends the user to the authorization endpoint and checks what comes back (`state`, `iss`,
    /// `error`); returns the code and the PKCE verifier that goes with it.
    async fn authorize(
        &self,
        agent: &dyn UserAgent,
        server: &ServerMetadata,
        registration: &Registration,
        redirect_uri: &str,
        resource: &str,
        scope: Option<&str>,
    ) -> Result<(String, String), ClientError> {
        if !server.code_challenge_methods_supported.as_ref().is_some_and(|m| m.iter().any(|m| m == "S256")) {
            return Err(auth_error(
                "the authorization server does not advertise PKCE with S256 (code_challenge_methods_supported): \
                 refusing to authorize without it",
            ));
        }
        let mut url = server.endpoint("authorization")?;
        require_secure(&url)?;
        let pkce = Pkce::new()?;
        let state = random()?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &registration.client_id)
                .append_pair("redirect_uri", redirect_uri)
                .append_pair("state", &state)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("resource", resource);
            if let Some(scope) = scope {
                query.append_pair("scope", scope);
            }
        }
        let reached = agent.authorize(url.as_str()).await?;
        let reached = parse_url(&reached, "the redirect")?;
        let expected = parse_url(redirect_uri, "the redirect URI")?;
        if reached.origin() != expected.origin() || reached.path() != expected.path() {
            return Err(auth_error("the authorization server redirected somewhere else than the redirect URI"));
        }
        let param =
            |name: &str| reached.query_pairs().find(|(key, _)| key == name).map(|(_, value)| value.into_owned());
        if param("state").as_deref() != Some(state.as_str()) {
            return Err(auth_error("the authorization response's state does not match the request's: refused"));
        }
        // RFC 9207: the response names its issuer where the server says it does (and wherever it
        // does, it must be exactly the issuer asked: a mix-up attack sends another's).
        match param("iss") {
            Some(iss) if iss != server.issuer => {
                return Err(auth_error(format!(
                    "the authorization response comes from the issuer {:?}, not {:?}: refused",
                    printable(&iss),
                    printable(&server.issuer)
                )));
            }
            None if server.authorization_response_iss_parameter_supported => {
                return Err(auth_error("the authorization response lacks the iss its server promises: refused"));
            }
            _ => {}
        }
        if let Some(error) = param("error") {
            let description = param("error_description").map(|d| format!(" ({})", printable(&d))).unwrap_or_default();
            return Err(auth_error(format!("authorization refused: {}{description}", printable(&error))));
        }
        let code = param("code").ok_or_else(|| auth_error("the authorization response has no code"))?;
        Ok((code, pkce.verifier))
    }

    /// Refreshes the tokens in `stored` (keeping the refresh token when a new one is not issued,
    /// replacing it when it is: rotation), and saves them.
    async fn refresh(&self, stored: &mut Stored) -> Result<(), ClientError> {
        let Some(tokens) = stored.tokens.clone() else { return Err(auth_error("no tokens")) };
        let Some(refresh_token) = tokens.refresh_token.clone() else { return Err(auth_error("no refresh token")) };
        let registration = stored
            .registrations
            .get(&stored.server.issuer)
            .cloned()
            .ok_or_else(|| auth_error("no registration with the authorization server"))?;
        let fields = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh_token.clone()),
            ("resource", stored.resource.clone()),
        ];
        let secret = self.oauth.secret.as_ref();
        let dpop = self.dpop(&stored.server, tokens.dpop_bound)?;
        match token::request(&self.fetch, &stored.server, &registration, secret, fields, tokens.scope.as_deref(), dpop)
            .await
        {
            Ok(mut fresh) => {
                fresh.refresh_token = fresh.refresh_token.or(Some(refresh_token));
                stored.tokens = Some(fresh);
                self.oauth.store.save(&self.key, stored);
                Ok(())
            }
            Err(refused) => {
                // A refresh token refused for good (revoked, expired, rotated away) is forgotten;
                // one that merely could not be sent is kept for the next try.
                if refused.code.is_some() {
                    stored.tokens = None;
                    self.oauth.store.save(&self.key, stored);
                }
                Err(refused.error)
            }
        }
    }
}

fn not_signed_in() -> ClientError {
    auth_error("not signed in to this server (no valid token is stored, and this client signs in only on request)")
}

impl super::super::authorization::Authorization for Authorizer {
    fn credentials<'a>(
        &'a self,
        method: &'a str,
        url: &'a Url,
    ) -> futures_util::future::BoxFuture<'a, Result<Option<Credentials>, ClientError>> {
        Box::pin(Authorizer::credentials(self, method, url))
    }

    fn challenged<'a>(
        &'a self,
        headers: &'a reqwest::header::HeaderMap,
        sent: Option<&'a str>,
    ) -> futures_util::future::BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(Authorizer::challenged(self, headers, sent))
    }

    fn refused(&self, status: u16, headers: &reqwest::header::HeaderMap) -> bool {
        status == 401 || (status == 403 && Challenge::of(headers).insufficient_scope())
    }

    fn max_authorizations(&self) -> u32 {
        self.oauth.max_authorizations
    }
}
