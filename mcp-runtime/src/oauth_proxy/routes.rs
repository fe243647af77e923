//! The façade's paths, its metadata (RFC 8414), and how it joins the HTTP transport:
//! [`HttpConfig::oauth_proxy`].

use super::answer::{self, Answer};
use super::config::OAuthProxy;
use super::facade::Facade;
use super::verifier::GrantVerifier;
use super::{authorize, clients, token};
use crate::auth::AuthConfig;
use crate::http::HttpConfig;
use crate::transport::http::routes::Routes;
use futures_util::future::BoxFuture;
use hyper::body::Bytes;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;
use std::sync::Arc;

const METADATA: &str = "/.well-known/oauth-authorization-server";
const JWKS: &str = "/oauth/jwks";
const REGISTER: &str = "/oauth/register";
const AUTHORIZE: &str = "/oauth/authorize";
const CONSENT: &str = "/oauth/consent";
const TOKEN: &str = "/oauth/token";
const REVOKE: &str = "/oauth/revoke";

const PATHS: [&str; 8] = [METADATA, JWKS, REGISTER, AUTHORIZE, authorize::CALLBACK_PATH, CONSENT, TOKEN, REVOKE];

impl HttpConfig {
    /// Makes the server the OAuth authorization server its clients see, signing users in at
    /// the proxy's upstream provider (feature `oauth-proxy`; see [`OAuthProxy`]). It serves the
    /// authorization-server metadata, registration, the sign-in and consent pages, and its
    /// tokens beside the MCP endpoint, requires its tokens there (as [`auth`](Self::auth)
    /// does), and allows the public URL's host. Set the endpoint's [`path`](Self::path) first:
    /// the tokens are issued for it.
    pub fn oauth_proxy(self, proxy: OAuthProxy) -> Self {
        let resource = format!("{}{}", proxy.public_url, self.endpoint_path());
        let issuer = proxy.public_url.clone();
        let host = reqwest::Url::parse(&issuer).ok().and_then(|url| url.host_str().map(str::to_owned));
        let scopes = proxy.scopes.clone();
        let facade = Arc::new(Facade::new(proxy, resource.clone()));
        let auth = AuthConfig::new(GrantVerifier(Arc::clone(&facade)))
            .resource(resource)
            .authorization_server(issuer)
            .scopes(scopes);
        let config = self.auth(auth).routes(Arc::new(FacadeRoutes(facade)));
        match host {
            Some(host) => config.allow_host(host),
            None => config,
        }
    }
}

/// The façade's pages, served by the transport.
struct FacadeRoutes(Arc<Facade>);

impl Routes for FacadeRoutes {
    fn serves(&self, path: &str) -> bool {
        PATHS.contains(&path)
    }

    fn answer(&self, request: Request<Bytes>) -> BoxFuture<'_, Response<Bytes>> {
        Box::pin(async move {
            let facade = &*self.0;
            let (parts, body) = request.into_parts();
            let query = parts.uri.query().unwrap_or_default();
            match (&parts.method, parts.uri.path()) {
                (&Method::GET, METADATA) => answer::public_json(&metadata(facade)),
                (&Method::GET, JWKS) => {
                    answer::public_json(&serde_json::from_str(&facade.key.jwks).unwrap_or_default())
                }
                (&Method::POST, REGISTER) => clients::register(facade, &body).await,
                (&Method::GET, AUTHORIZE) => authorize::authorize(facade, query).await,
                (&Method::GET, authorize::CALLBACK_PATH) => authorize::callback(facade, query).await,
                (&Method::POST, CONSENT) => authorize::consent(facade, &parts.headers, &body).await,
                (&Method::POST, TOKEN) => token::token(facade, &parts.headers, &body).await,
                (&Method::POST, REVOKE) => token::revoke(facade, &parts.headers, &body).await,
                _ => method_not_allowed(),
            }
        })
    }
}

fn method_not_allowed() -> Answer {
    answer::oauth_error(StatusCode::METHOD_NOT_ALLOWED, "invalid_request", "this method is not served here")
}

/// The authorization server's metadata (RFC 8414), with the MCP specification's additions.
fn metadata(facade: &Facade) -> serde_json::Value {
    let auth_methods = ["none", "client_secret_basic", "client_secret_post"];
    json!({
        "issuer": facade.issuer,
        "authorization_endpoint": facade.url(AUTHORIZE),
        "token_endpoint": facade.url(TOKEN),
        "registration_endpoint": facade.url(REGISTER),
        "revocation_endpoint": facade.url(REVOKE),
        "jwks_uri": facade.url(JWKS),
        "scopes_supported": facade.scopes,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": auth_methods,
        "revocation_endpoint_auth_methods_supported": auth_methods,
        "client_id_metadata_document_supported": true,
        "authorization_response_iss_parameter_supported": true,
    })
}
