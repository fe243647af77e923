//! An OAuth-protected MCP endpoint and its authorization server in one process, which can be
//! told to misbehave in one way at a time ([`Twist`]), for the client's sign-in tests
//! (`tests/tests/client_oauth.rs`). The endpoint answers 401 with a challenge until it sees the
//! token the authorization server issued, then serves a minimal MCP server (the handshake, `ping`,
//! `tools/list`); the authorization server publishes metadata, registers clients, approves every
//! authorization at once (redirecting straight back) and issues that token. Every request is
//! recorded, so a test can tell what the client sent, and where.

use crate::http::json_answer;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The token the authorization server issues.
pub const ACCESS_TOKEN: &str = "at-0123456789";
/// What the endpoint asks for.
pub const SCOPE: &str = "mcp:tools";

/// The one way the pair misbehaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Twist {
    /// None: a correct server.
    None,
    /// The authorization server's metadata names another issuer.
    IssuerMismatch,
    /// The authorization endpoint is plain `http` on another host.
    InsecureAuthorizationEndpoint,
    /// The authorization response carries another `state`.
    ForgedState,
    /// The authorization response names another issuer (`iss`, RFC 9207).
    MixUpIssuer,
    /// The protected resource metadata is about another server.
    ResourceMismatch,
    /// The token endpoint waits this long before answering.
    SlowToken(Duration),
    /// The token endpoint answers with this many bytes.
    HugeToken(usize),
    /// The endpoint refuses every token (401 forever).
    RefuseEveryToken,
    /// The token endpoint refuses with this `error_description` (terminal escapes and all).
    RefuseWith(String),
}

/// A request either half received.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
}

struct State {
    base: String,
    twist: Twist,
    seen: Mutex<Vec<Seen>>,
}

/// The running pair, on one port of 127.0.0.1: the MCP endpoint at `/mcp`, the authorization
/// server at `/as`. Stopped when dropped.
pub struct ProtectedPair {
    address: SocketAddr,
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

impl ProtectedPair {
    pub async fn start(twist: Twist) -> Self {
        let (address, state, task) = crate::http::serve_http1(
            |address| Arc::new(State { base: format!("http://{address}"), twist, seen: Mutex::default() }),
            answer,
        )
        .await;
        Self { address, state, task }
    }

    /// The MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    /// The authorization server's issuer identifier.
    pub fn issuer(&self) -> String {
        format!("http://{}/as", self.address)
    }

    /// Every request received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }

    /// The paths requested so far, in order.
    pub fn paths(&self) -> Vec<String> {
        self.seen().into_iter().map(|seen| seen.path).collect()
    }
}

impl Drop for ProtectedPair {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Answer = Response<Full<Bytes>>;

async fn answer(state: Arc<State>, request: Request<Incoming>) -> Result<Answer, std::convert::Infallible> {
    let method = request.method().to_string();
    let path = request.uri().path().to_owned();
    let query = request.uri().query().unwrap_or_default().to_owned();
    let authorization = request.headers().get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned);
    state.seen.lock().unwrap().push(Seen {
        method: method.clone(),
        path: path.clone(),
        authorization: authorization.clone(),
    });
    let body = request.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let base = &state.base;
    let issuer = format!("{base}/as");
    Ok(match path.as_str() {
        "/.well-known/oauth-protected-resource/mcp" => {
            let resource = if state.twist == Twist::ResourceMismatch {
                "https://evil.example/mcp".to_owned()
            } else {
                format!("{base}/mcp")
            };
            json_answer(
                StatusCode::OK,
                json!({"resource": resource, "authorization_servers": [issuer], "scopes_supported": [SCOPE]}),
            )
        }
        "/.well-known/oauth-authorization-server/as" => {
            let named = if state.twist == Twist::IssuerMismatch {
                "https://attacker.example".to_owned()
            } else {
                issuer.clone()
            };
            let authorize = if state.twist == Twist::InsecureAuthorizationEndpoint {
                "http://attacker.example/authorize".to_owned()
            } else {
                format!("{issuer}/authorize")
            };
            json_answer(
                StatusCode::OK,
                json!({
                    "issuer": named,
                    "authorization_endpoint": authorize,
                    "token_endpoint": format!("{issuer}/token"),
                    "registration_endpoint": format!("{issuer}/register"),
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["none"],
                    "authorization_response_iss_parameter_supported": true,
                }),
            )
        }
        "/as/register" => json_answer(StatusCode::CREATED, json!({"client_id": "client-1"})),
        "/as/authorize" => {
            let param = |name: &str| {
                form_urlencoded::parse(query.as_bytes())
                    .find(|(key, _)| key == name)
                    .map(|(_, value)| value.into_owned())
            };
            let state_param = if state.twist == Twist::ForgedState {
                "forged".to_owned()
            } else {
                param("state").unwrap_or_default()
            };
            let iss =
                if state.twist == Twist::MixUpIssuer { "https://evil.example".to_owned() } else { issuer.clone() };
            let location = format!(
                "{}?code=the-code&state={}&iss={}",
                param("redirect_uri").unwrap_or_default(),
                encode(&state_param),
                encode(&iss)
            );
            Response::builder().status(StatusCode::FOUND).header("location", location).body(Full::default()).unwrap()
        }
        "/as/token" => match &state.twist {
            Twist::SlowToken(delay) => {
                tokio::time::sleep(*delay).await;
                token_answer()
            }
            Twist::HugeToken(bytes) => {
                let padding = "x".repeat(*bytes);
                json_answer(
                    StatusCode::OK,
                    json!({"access_token": ACCESS_TOKEN, "token_type": "Bearer", "padding": padding}),
                )
            }
            Twist::RefuseWith(description) => json_answer(
                StatusCode::BAD_REQUEST,
                json!({"error": "invalid_grant", "error_description": description}),
            ),
            _ => token_answer(),
        },
        "/mcp" => {
            let token_ok = authorization.as_deref() == Some(&format!("Bearer {ACCESS_TOKEN}"));
            if !token_ok || state.twist == Twist::RefuseEveryToken {
                let challenge = format!(
                    "Bearer error=\"invalid_token\", scope=\"{SCOPE}\", resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\""
                );
                return Ok(Response::builder()
                    .status(StatusCode::UNAUTHORIZED)
                    .header("www-authenticate", challenge)
                    .body(Full::default())
                    .unwrap());
            }
            mcp(&method, &body)
        }
        _ => Response::builder().status(StatusCode::NOT_FOUND).body(Full::default()).unwrap(),
    })
}

/// The minimal MCP server behind the token: the handshake, `ping`, one tool.
fn mcp(method: &str, body: &[u8]) -> Answer {
    if method != "POST" {
        return Response::builder().status(StatusCode::METHOD_NOT_ALLOWED).body(Full::default()).unwrap();
    }
    let message: Value = serde_json::from_slice(body).unwrap_or_default();
    let Some(id) = message.get("id").cloned() else {
        return Response::builder().status(StatusCode::ACCEPTED).body(Full::default()).unwrap();
    };
    let result = match message["method"].as_str().unwrap_or_default() {
        "initialize" => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "protected", "version": "1.0.0"},
        }),
        "tools/list" => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        "ping" => json!({}),
        _ => {
            return json_answer(
                StatusCode::OK,
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}}),
            );
        }
    };
    json_answer(StatusCode::OK, json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn token_answer() -> Answer {
    json_answer(
        StatusCode::OK,
        json!({"access_token": ACCESS_TOKEN, "token_type": "Bearer", "expires_in": 3600, "scope": SCOPE}),
    )
}

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
