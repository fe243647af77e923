//! The authorization scenarios (`auth/*`): the client signs in with [`OAuth`] the way the
//! scenario sets up the authorization server (the grant, the client's credentials from
//! `MCP_CONFORMANCE_CONTEXT`), then lists tools and calls `test-tool` where the server has it.

use super::{Outcome, Run};
use mcp_runtime::client::ClientError;
use mcp_runtime::client::oauth::{ClientSecret, IdentityAssertion, OAuth, UserAgent};
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// The Client ID Metadata Document URL the suite expects where CIMD is supported.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// Runs the authorization scenario `name`.
pub async fn run(run: &Run, name: &str) -> Outcome {
    let context = |field: &str| {
        run.context
            .get(field)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("MCP_CONFORMANCE_CONTEXT has no {field}"))
    };
    let oauth = match name {
        "auth/client-credentials-basic" => {
            OAuth::client_credentials(context("client_id")?, ClientSecret::Shared(context("client_secret")?))
        }
        "auth/client-credentials-jwt" => OAuth::client_credentials(
            context("client_id")?,
            ClientSecret::PrivateKeyJwt {
                pem: context("private_key_pem")?,
                algorithm: context("signing_algorithm").unwrap_or_else(|_| "ES256".into()),
            },
        ),
        "auth/wif-jwt-bearer" => OAuth::jwt_bearer(context("client_id")?, context("valid_jwt")?),
        "auth/enterprise-managed-authorization" => OAuth::enterprise(
            IdentityAssertion {
                token_endpoint: context("idp_token_endpoint")?,
                client_id: context("idp_client_id")?,
                id_token: context("idp_id_token")?,
            },
            context("client_id")?,
            Some(ClientSecret::Shared(context("client_secret")?)),
        ),
        "auth/pre-registration" => OAuth::authorization_code(Headless)
            .client_id(context("client_id")?, Some(ClientSecret::Shared(context("client_secret")?))),
        _ => OAuth::authorization_code(Headless).client_metadata_url(CLIENT_METADATA_URL),
    }
    .client_name("mcp-runtime-conformance-client");
    let client = run.builder().oauth(oauth).connect_http(&run.url).await?;
    let tools = client.list_tools().await?;
    if tools.iter().any(|tool| tool.name == "test-tool") {
        client.call_tool("test-tool", json!({})).await?;
    }
    client.close().await;
    Ok(())
}

/// The suite's authorization servers approve at once: the authorization endpoint redirects
/// straight to the redirect URI. This user agent follows that one redirect without a browser.
struct Headless;

impl UserAgent for Headless {
    fn redirect_uri(&self) -> String {
        "http://localhost:3000/callback".into()
    }

    fn authorize<'a>(&'a self, url: &'a str) -> Pin<Box<dyn Future<Output = Result<String, ClientError>> + Send + 'a>> {
        Box::pin(async move { location(url).await.map_err(ClientError::Transport) })
    }
}

/// The `Location` an `http://` URL answers a `GET` with.
async fn location(url: &str) -> Result<String, String> {
    let rest = url.strip_prefix("http://").ok_or("the suite's authorization endpoint is plain http")?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = tokio::net::TcpStream::connect(authority).await.map_err(|e| e.to_string())?;
    let request = format!("GET {path} HTTP/1.1\r\nhost: {authority}\r\nconnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.map_err(|e| e.to_string())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.map_err(|e| e.to_string())?;
    let head = answer.split("\r\n\r\n").next().unwrap_or_default();
    head.lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("location").then(|| value.trim().to_owned())
        })
        .ok_or_else(|| format!("the authorization endpoint did not redirect: {}", head.lines().next().unwrap_or("")))
}
