//! [`AuthConfig`]: how the HTTP transport authorizes requests, and what its protected-resource
//! metadata (RFC 9728) tells clients.

use super::verifier::{DynVerifier, TokenVerifier};
use crate::error::{Error, ErrorKind, Result};
use std::sync::Arc;

/// Authorization for the HTTP transport: every request to the MCP endpoint must carry an
/// `Authorization: Bearer <token>` header that `verifier` accepts for this server's canonical
/// URI. Set it with [`HttpConfig::auth`](crate::http::HttpConfig::auth).
///
/// ```
/// use mcp_runtime::auth::{AuthConfig, JwtKey, JwtVerifier};
/// use mcp_runtime::http::HttpConfig;
///
/// # fn main() -> mcp_runtime::Result<()> {
/// // Tokens signed by the authorization server's key (`JwtKey::rsa_pem`, `JwtKey::jwks`...).
/// let verifier = JwtVerifier::new(JwtKey::hmac_secret("a secret shared with the issuer")?)
///     .issuer("https://auth.example.com");
/// let config = HttpConfig::default().allow_host("mcp.example.com").auth(
///     AuthConfig::new(verifier)
///         .resource("https://mcp.example.com/mcp")
///         .authorization_server("https://auth.example.com")
///         .scopes(["notes:read"]),
/// );
/// # let _ = config;
/// # Ok(())
/// # }
/// ```
///
/// Without a token, or with one the verifier refuses, a request gets `401` and a
/// `WWW-Authenticate: Bearer resource_metadata="..."` header that points clients to the
/// protected-resource metadata, served without authentication at
/// `/.well-known/oauth-protected-resource` (and at that path followed by the resource URI's
/// path, e.g. `/.well-known/oauth-protected-resource/mcp`).
#[derive(Clone)]
pub struct AuthConfig {
    pub(crate) verifier: Arc<dyn DynVerifier>,
    pub(crate) resource: Option<String>,
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) scopes_supported: Vec<String>,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) resource_name: Option<String>,
    pub(crate) resource_documentation: Option<String>,
}

impl std::fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthConfig")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("scopes_supported", &self.scopes_supported)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

impl AuthConfig {
    /// Authorization by `verifier`. Set at least [`resource`](Self::resource) and one
    /// [`authorization_server`](Self::authorization_server).
    pub fn new(verifier: impl TokenVerifier) -> Self {
        Self {
            verifier: Arc::new(verifier),
            resource: None,
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            resource_name: None,
            resource_documentation: None,
        }
    }

    /// The server's canonical URI, as clients reach it: `https://mcp.example.com/mcp`
    /// (required). Tokens must be issued for it (their audience); it is the `resource` of the
    /// metadata.
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.resource = Some(uri.into());
        self
    }

    /// An authorization server clients can get tokens from (its issuer URL); at least one.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// The scopes a client should ask for to use the server's basic functions: the metadata's
    /// `scopes_supported`, and the `scope` of `401` answers. Tools, resources and prompts that
    /// need more say so with `scopes = [...]`, and clients step up when a request gets `403`.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes_supported.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Scopes every request needs, whatever it does; a token without them gets `403
    /// insufficient_scope`. They are advertised as [`scopes`](Self::scopes) too.
    pub fn require_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        for scope in scopes {
            let scope = scope.into();
            if !self.scopes_supported.contains(&scope) {
                self.scopes_supported.push(scope.clone());
            }
            self.required_scopes.push(scope);
        }
        self
    }

    /// A human-readable name for the metadata's `resource_name`.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// A page for developers, the metadata's `resource_documentation`.
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.resource_documentation = Some(url.into());
        self
    }

    /// The canonical resource URI, checked when the HTTP service is built.
    pub(crate) fn validated_resource(&self) -> Result<&str> {
        let Some(resource) = self.resource.as_deref() else {
            return Err(Error::new(
                ErrorKind::Auth,
                "AuthConfig: set the server's canonical URI with `.resource(\"https://...\")`",
            ));
        };
        let uri: hyper::Uri = resource.parse().map_err(|err| {
            Error::new(ErrorKind::Auth, format!("AuthConfig: the resource `{resource}` is not a URI")).with_source(err)
        })?;
        let absolute = matches!(uri.scheme_str(), Some("https" | "http")) && uri.authority().is_some();
        if !absolute || uri.query().is_some() || resource.contains('#') {
            return Err(Error::new(
                ErrorKind::Auth,
                format!(
                    "AuthConfig: the resource `{resource}` must be an absolute http(s) URI without a query or fragment"
                ),
            ));
        }
        if self.authorization_servers.is_empty() {
            return Err(Error::new(
                ErrorKind::Auth,
                "AuthConfig: name at least one authorization server with `.authorization_server(\"https://...\")`",
            ));
        }
        Ok(resource)
    }
}
