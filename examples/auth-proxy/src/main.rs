//! An MCP server whose users sign in with an identity provider they already have (GitHub,
//! Google, a company's OpenID provider): the server is the OAuth authorization server MCP
//! clients see (registration, consent, its own tokens) and sends each sign-in on to the
//! provider, where it holds one client.
//!
//! ```text
//! UPSTREAM_ISSUER=https://accounts.google.com \
//! UPSTREAM_CLIENT_ID=... UPSTREAM_CLIENT_SECRET=... \
//! PUBLIC_URL=http://127.0.0.1:8080 PORT=8080 cargo run -p auth-proxy
//! ```
//!
//! `UPSTREAM_ISSUER` is an OpenID issuer (its endpoints come from its discovery document), or
//! `https://github.com` for GitHub. Register `{PUBLIC_URL}/oauth/callback` as the redirect URI
//! of the client created at the provider. MCP is served at `{PUBLIC_URL}/mcp`, the metadata at
//! `{PUBLIC_URL}/.well-known/oauth-authorization-server`. `UPSTREAM_SCOPES` replaces the
//! scopes asked of the provider (space-separated); `ACCESS_TOKEN_TTL` how many seconds the
//! server's access tokens live (default 600).

use mcp_runtime::auth::AuthInfo;
use mcp_runtime::http::HttpConfig;
use mcp_runtime::oauth_proxy::{OAuthProxy, Upstream};
use mcp_runtime::prelude::*;

/// Who you are: the identity your provider gave when you signed in.
#[mcp_tool(read_only)]
fn whoami(caller: AuthInfo) -> String {
    let claim = |name: &str| caller.claim(name).and_then(|v| v.as_str()).unwrap_or("-").to_owned();
    let groups = caller.claim("groups").map(ToString::to_string).unwrap_or_default();
    format!(
        "signed in as {} (subject {}, email {}, groups {groups}); the server holds your provider's token: {}",
        claim("preferred_username"),
        caller.subject(),
        claim("email"),
        if caller.upstream_token().is_some() { "yes" } else { "no" },
    )
}

fn var(name: &str) -> mcp_runtime::Result<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty()).ok_or_else(|| mcp_runtime::Error::msg(format!("set {name}")))
}

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    let port: u16 = std::env::var("PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(8080);
    let public_url = std::env::var("PUBLIC_URL").unwrap_or_else(|_| format!("http://127.0.0.1:{port}"));
    let (issuer, id, secret) = (var("UPSTREAM_ISSUER")?, var("UPSTREAM_CLIENT_ID")?, var("UPSTREAM_CLIENT_SECRET")?);
    let mut upstream = match issuer.trim_end_matches('/') {
        "https://github.com" => Upstream::github(id, secret),
        issuer => Upstream::oidc(issuer, id, secret),
    };
    if let Ok(scopes) = std::env::var("UPSTREAM_SCOPES") {
        upstream = upstream.scopes(scopes.split_whitespace());
    }
    let mut proxy = OAuthProxy::new(upstream, public_url)?.server_name("the auth-proxy example");
    if let Some(seconds) = std::env::var("ACCESS_TOKEN_TTL").ok().and_then(|s| s.parse().ok()) {
        proxy = proxy.access_token_lifetime(std::time::Duration::from_secs(seconds));
    }
    let service = server!().tools(tools![whoami]).into_http_service(HttpConfig::default().oauth_proxy(proxy))?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| mcp_runtime::Error::msg(format!("cannot bind port {port}: {e}")))?;
    service.serve(listener, async { drop(tokio::signal::ctrl_c().await) }).await
}
