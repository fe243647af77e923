//! An MCP server over HTTP that requires OAuth 2.1 bearer tokens: JWTs checked against a
//! key, an issuer and this server's canonical URI, with a tool that needs an extra scope.
//!
//! ```text
//! cargo run -p auth-server                       # serves http://127.0.0.1:3001/mcp
//! cargo run -p auth-server -- --print-test-token # prints a DEV-ONLY token (notes:read)
//! cargo run -p auth-server -- --print-test-token notes:read notes:write
//! curl -i http://127.0.0.1:3001/.well-known/oauth-protected-resource/mcp
//! ```
//!
//! Without a token the server answers `401` with a `WWW-Authenticate` header that points to
//! its protected-resource metadata. `add_note` needs `notes:write`: a token without it does not
//! see the tool, and a call gets `403 insufficient_scope`.
//!
//! DEV ONLY: by default, tokens here are signed with [`DEV_SECRET`], a secret written in this
//! file, and `--print-test-token` mints them. A real deployment verifies the tokens of a real
//! authorization server, whose keys it fetches (and fetches again when they rotate):
//!
//! ```text
//! ISSUER=https://auth.example.com cargo run -p auth-server     # keys from the issuer's metadata
//! JWKS_URL=https://auth.example.com/jwks.json ISSUER=https://auth.example.com cargo run -p auth-server
//! ```
//!
//! `JWKS_URL` names the key set (with `ISSUER`, the issuer its tokens must come from and clients
//! are pointed to); `ISSUER` alone finds it in the issuer's metadata (`/.well-known/oauth-authorization-server`
//! or `/.well-known/openid-configuration`). `AUDIENCE` is the audience tokens must carry when
//! the authorization server does not use this server's URL (`MCP_RESOURCE`, the URL clients
//! use). Serve it behind TLS. `--print-test-token` tokens are not accepted then: they are the
//! development secret's. `tests/tests/oauth_e2e.rs` runs it so, with `ISSUER` naming a real
//! OpenID provider (`tests/oidc/provider.mjs`) that OAuth clients register with and sign in to.

use mcp_runtime::State;
use mcp_runtime::auth::{AuthConfig, AuthInfo, JwtKey, JwtVerifier};
use mcp_runtime::http::HttpConfig;
use mcp_runtime::prelude::*;
use std::sync::Mutex;

/// DEV ONLY: the HS256 secret this example's tokens are signed with. Never use it for real.
const DEV_SECRET: &[u8] = b"auth-server-example-DEV-ONLY-secret-do-not-deploy";
/// DEV ONLY: the issuer this example pretends tokens come from.
const DEV_ISSUER: &str = "https://auth.example.invalid";

/// Notes, per user.
#[derive(Default)]
struct Notes(Mutex<Vec<(String, String)>>);

/// Who you are, as the server sees your token.
#[mcp_tool(read_only)]
fn whoami(caller: AuthInfo) -> String {
    format!("you are `{}` with scopes [{}]", caller.subject(), caller.scopes().join(", "))
}

/// Your notes.
#[mcp_tool(read_only)]
fn list_notes(caller: AuthInfo, State(notes): State<Notes>) -> String {
    let notes = notes.0.lock().unwrap_or_else(|e| e.into_inner());
    let mine: Vec<&str> =
        notes.iter().filter(|(owner, _)| owner == caller.subject()).map(|(_, n)| n.as_str()).collect();
    if mine.is_empty() { "no notes yet".to_owned() } else { mine.join("\n") }
}

/// Add a note (needs the `notes:write` scope).
#[mcp_tool(scopes = ["notes:write"])]
fn add_note(
    /// The note's text
    text: String,
    caller: AuthInfo,
    State(notes): State<Notes>,
) -> String {
    notes.0.lock().unwrap_or_else(|e| e.into_inner()).push((caller.subject().to_owned(), text));
    "noted".to_owned()
}

/// The URL clients use for this server (`MCP_RESOURCE`), else the local one.
fn resource(port: u16) -> String {
    std::env::var("MCP_RESOURCE").unwrap_or_else(|_| format!("http://127.0.0.1:{port}/mcp"))
}

/// DEV ONLY: a token for `dev-user`, valid for an hour, with these scopes.
fn dev_token(resource: &str, scopes: &[String]) -> Result<String, jsonwebtoken::errors::Error> {
    let now = jsonwebtoken::get_current_timestamp();
    let claims = serde_json::json!({
        "iss": DEV_ISSUER, "aud": resource, "sub": "dev-user", "iat": now, "exp": now + 3600,
        "scope": scopes.join(" "),
    });
    let key = jsonwebtoken::EncodingKey::from_secret(DEV_SECRET)?;
    jsonwebtoken::encode(&jsonwebtoken::Header::default(), &claims, &key)
}

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    let port: u16 = std::env::var("PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(3001);
    let resource = resource(port);
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() == Some("--print-test-token") {
        let mut scopes: Vec<String> = args.collect();
        if scopes.is_empty() {
            scopes.push("notes:read".into());
        }
        let token = dev_token(&resource, &scopes).map_err(|e| mcp_runtime::Error::msg(e.to_string()))?;
        eprintln!("DEV ONLY: a token for `dev-user` and {resource}, valid for an hour:");
        println!("{token}");
        return Ok(());
    }

    let (verifier, issuer) = verifier()?;
    // Keys from the authorization server: fetched now to report a problem at once (the server
    // starts anyway, and fetches them again when tokens arrive).
    if let Err(err) = verifier.refresh_keys().await {
        eprintln!("cannot fetch the authorization server's keys yet: {err}");
    }
    let auth = AuthConfig::new(verifier)
        .resource(&resource)
        .authorization_server(issuer)
        .scopes(["notes:read"])
        .resource_name("auth-server example");
    let config = HttpConfig::default().auth(auth);
    let service =
        server!().tools(tools![whoami, list_notes, add_note]).state(Notes::default()).into_http_service(config)?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| mcp_runtime::Error::msg(format!("cannot bind port {port}: {e}")))?;
    service.serve(listener, shutdown()).await
}

/// The verifier the environment asks for (`JWKS_URL`, `ISSUER`, `AUDIENCE`), else the DEV ONLY
/// one, and the issuer clients are pointed to.
fn verifier() -> mcp_runtime::Result<(JwtVerifier, String)> {
    let var = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
    let (verifier, issuer) = match (var("JWKS_URL"), var("ISSUER")) {
        (Some(url), Some(issuer)) => (JwtVerifier::from_jwks_url(url)?.issuer(&issuer), issuer),
        (Some(_), None) => {
            return Err(mcp_runtime::Error::msg(
                "JWKS_URL needs ISSUER too: the authorization server clients get their tokens from",
            ));
        }
        (None, Some(issuer)) => (JwtVerifier::from_issuer(&issuer)?, issuer),
        (None, None) => (JwtVerifier::new(JwtKey::hmac_secret(DEV_SECRET)?).issuer(DEV_ISSUER), DEV_ISSUER.to_owned()),
    };
    let verifier = match var("AUDIENCE") {
        Some(audience) => verifier.audience(audience),
        None => verifier,
    };
    Ok((verifier, issuer))
}

/// Ctrl-C.
async fn shutdown() {
    let _ = tokio::signal::ctrl_c().await;
}
