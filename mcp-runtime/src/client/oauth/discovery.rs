//! Finding the authorization server of an MCP server: the protected resource metadata
//! (RFC 9728) from the challenge or the well-known URLs, then the authorization server's metadata
//! (RFC 8414 and OpenID Connect Discovery, in the order the MCP specification gives).

use super::super::error::ClientError;
use super::challenge::Challenge;
use super::fetch::{Fetch, auth_error, parse_url, printable, redact};
use reqwest::Url;
use serde::{Deserialize, Serialize};

const RESOURCE_METADATA: &str = "/.well-known/oauth-protected-resource";
const SERVER_METADATA: &str = "/.well-known/oauth-authorization-server";
const OPENID_CONFIGURATION: &str = "/.well-known/openid-configuration";

/// What discovery found for one MCP server.
#[derive(Clone, Debug)]
pub(crate) struct Discovered {
    /// The resource to ask tokens for (`resource` of RFC 8707): the metadata's `resource`.
    pub resource: String,
    /// The scopes the resource says it supports.
    pub resource_scopes: Option<Vec<String>>,
    /// Whether the resource's metadata says it accepts DPoP-bound tokens.
    pub resource_dpop: bool,
    /// The authorization server's issuer identifier, as the resource named it.
    pub issuer: String,
    pub server: ServerMetadata,
}

#[derive(Deserialize)]
struct ResourceMetadata {
    resource: Option<String>,
    #[serde(default)]
    authorization_servers: Vec<String>,
    scopes_supported: Option<Vec<String>>,
    /// RFC 9728's DPoP fields: the resource accepts (or requires) DPoP-bound tokens.
    #[serde(default)]
    dpop_signing_alg_values_supported: Vec<String>,
    #[serde(default)]
    dpop_bound_access_tokens_required: bool,
}

/// The parts of an authorization server's metadata the flow uses.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
pub(crate) struct ServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: Option<String>,
    pub token_endpoint: Option<String>,
    pub registration_endpoint: Option<String>,
    pub scopes_supported: Option<Vec<String>>,
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    pub code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// Whether the token endpoint accepts client authentication `method` (RFC 8414: when the
    /// list is absent, only `client_secret_basic`).
    pub fn accepts_auth(&self, method: &str) -> bool {
        match &self.token_endpoint_auth_methods_supported {
            Some(methods) => methods.iter().any(|m| m == method),
            None => method == "client_secret_basic",
        }
    }

    /// Whether the server binds tokens to a DPoP key signing with `algorithm`.
    pub fn offers_dpop(&self, algorithm: &str) -> bool {
        let algorithms = self.dpop_signing_alg_values_supported.as_deref().unwrap_or_default();
        algorithms.iter().any(|offered| offered == algorithm)
    }

    pub fn endpoint(&self, which: &str) -> Result<Url, ClientError> {
        let url = match which {
            "authorization" => &self.authorization_endpoint,
            "token" => &self.token_endpoint,
            _ => &self.registration_endpoint,
        };
        let url =
            url.as_deref().ok_or_else(|| auth_error(format!("the authorization server has no {which} endpoint")))?;
        parse_url(url, &format!("the {which} endpoint"))
    }
}

/// Discovers the authorization server of the MCP server at `server`, starting from `challenge`.
pub(crate) async fn discover(fetch: &Fetch, server: &Url, challenge: &Challenge) -> Result<Discovered, ClientError> {
    let Some(metadata) = resource_metadata(fetch, server, challenge).await? else {
        return legacy(fetch, server).await;
    };
    let resource = match metadata.resource {
        Some(resource) => {
            let named = parse_url(&resource, "the protected resource metadata's resource")?;
            if !covers(&named, server) {
                return Err(auth_error(format!(
                    "the protected resource metadata is for {}, not for {}: refusing to authorize",
                    redact(&named),
                    redact(server)
                )));
            }
            resource
        }
        None => canonical(server),
    };
    let issuer = metadata
        .authorization_servers
        .into_iter()
        .next()
        .ok_or_else(|| auth_error("the protected resource metadata names no authorization server"))?;
    let server_metadata = server_metadata(fetch, &issuer)
        .await?
        .ok_or_else(|| auth_error(format!("no metadata found for the authorization server {}", printable(&issuer))))?;
    let resource_dpop =
        metadata.dpop_bound_access_tokens_required || !metadata.dpop_signing_alg_values_supported.is_empty();
    Ok(Discovered {
        resource,
        resource_scopes: metadata.scopes_supported,
        resource_dpop,
        issuer,
        server: server_metadata,
    })
}

/// The protected resource metadata: at the challenge's `resource_metadata`, else at the
/// path-based well-known URL, else at the root one. `None`: the server publishes none.
async fn resource_metadata(
    fetch: &Fetch,
    server: &Url,
    challenge: &Challenge,
) -> Result<Option<ResourceMetadata>, ClientError> {
    let mut candidates = Vec::new();
    if let Some(named) = &challenge.resource_metadata {
        // Wherever it is, the metadata must name this server as its resource (`discover` checks).
        let named = parse_url(named, "the challenge's resource_metadata")?;
        candidates.push(named);
    }
    let path = server.path().trim_end_matches('/');
    if !path.is_empty() {
        candidates.push(well_known(server, RESOURCE_METADATA, path));
    }
    candidates.push(well_known(server, RESOURCE_METADATA, ""));
    for url in candidates {
        let answer = fetch.get(&url).await?;
        if answer.status.is_success() {
            return answer.parse("the protected resource metadata").map(Some);
        }
    }
    Ok(None)
}

/// The authorization server's metadata, at the URLs of the MCP specification in its order:
/// RFC 8414 with the issuer's path inserted, OpenID discovery with it inserted, then appended.
/// Its `issuer` must be exactly the issuer asked for (RFC 8414 §3.3).
async fn server_metadata(fetch: &Fetch, issuer: &str) -> Result<Option<ServerMetadata>, ClientError> {
    let base = parse_url(issuer, "the authorization server")?;
    let path = base.path().trim_end_matches('/');
    let candidates = if path.is_empty() {
        vec![well_known(&base, SERVER_METADATA, ""), well_known(&base, OPENID_CONFIGURATION, "")]
    } else {
        let mut appended = base.clone();
        appended.set_path(&format!("{path}{OPENID_CONFIGURATION}"));
        appended.set_query(None);
        vec![well_known(&base, SERVER_METADATA, path), well_known(&base, OPENID_CONFIGURATION, path), appended]
    };
    for url in candidates {
        let answer = fetch.get(&url).await?;
        if !answer.status.is_success() {
            continue;
        }
        let metadata: ServerMetadata = answer.parse("the authorization server metadata")?;
        if metadata.issuer != issuer {
            return Err(auth_error(format!(
                "the authorization server metadata at {} names the issuer {:?}, not {:?}: refusing to use it",
                redact(&url),
                printable(&metadata.issuer),
                printable(issuer)
            )));
        }
        return Ok(Some(metadata));
    }
    Ok(None)
}

/// A server without protected resource metadata (the 2025-03-26 revision): its origin is the
/// authorization server, with its metadata, or the default endpoints that revision names.
async fn legacy(fetch: &Fetch, server: &Url) -> Result<Discovered, ClientError> {
    let issuer = server.origin().ascii_serialization();
    let metadata = match server_metadata(fetch, &issuer).await? {
        Some(metadata) => metadata,
        None => ServerMetadata {
            authorization_endpoint: Some(format!("{issuer}/authorize")),
            token_endpoint: Some(format!("{issuer}/token")),
            registration_endpoint: Some(format!("{issuer}/register")),
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            issuer: issuer.clone(),
            ..ServerMetadata::default()
        },
    };
    Ok(Discovered {
        resource: canonical(server),
        resource_scopes: None,
        resource_dpop: false,
        issuer,
        server: metadata,
    })
}

/// `{origin}{well_known}{path}`.
fn well_known(base: &Url, well_known: &str, path: &str) -> Url {
    let mut url = base.clone();
    url.set_path(&format!("{well_known}{path}"));
    url.set_query(None);
    url.set_fragment(None);
    url
}

/// The server's URL as a resource identifier: no fragment, no query.
fn canonical(server: &Url) -> String {
    let mut url = server.clone();
    url.set_fragment(None);
    url.set_query(None);
    url.to_string()
}

/// Whether the resource `named` covers `server`: the same origin, and a path that is the
/// server's or one of its parents.
fn covers(named: &Url, server: &Url) -> bool {
    let with_slash = |url: &Url| {
        let path = url.path();
        if path.ends_with('/') { path.to_owned() } else { format!("{path}/") }
    };
    named.origin() == server.origin() && with_slash(server).starts_with(&with_slash(named))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn a_resource_covers_its_server_and_the_paths_beneath_only() {
        let server = url("https://api.example.com/mcp");
        assert!(covers(&url("https://api.example.com/mcp"), &server));
        assert!(covers(&url("https://api.example.com/"), &server));
        assert!(covers(&url("https://api.example.com"), &server));
        assert!(!covers(&url("https://api.example.com/mcp/v2"), &server));
        assert!(!covers(&url("https://api.example.com/mc"), &server));
        assert!(!covers(&url("https://evil.example.com/mcp"), &server));
        assert!(!covers(&url("http://api.example.com/mcp"), &server));
        assert!(!covers(&url("https://api.example.com:8443/mcp"), &server));
    }

    #[test]
    fn well_known_urls_insert_the_path() {
        let issuer = url("https://auth.example.com/tenant1?x=1");
        assert_eq!(
            well_known(&issuer, SERVER_METADATA, "/tenant1").as_str(),
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant1"
        );
        assert_eq!(canonical(&url("https://a.example/mcp?x=1#f")), "https://a.example/mcp");
    }
}
