//! A small OpenID provider in the test's process, the upstream of the authorization-server
//! façade's tests (`tests/tests/oauth_proxy.rs`): discovery, an authorization endpoint that
//! signs the one user in at once (a redirect straight back with a code and the `state`), a
//! token endpoint that checks the client's secret and the PKCE verifier, and `userinfo`. It
//! can be taken down (every answer `503`), and serves other documents a test publishes (a
//! Client ID Metadata Document). Every request's path is recorded.

use crate::http::json_answer;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use sha2::Digest as _;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The client the façade holds at the provider.
pub const CLIENT_ID: &str = "facade-client";
/// Its secret.
pub const CLIENT_SECRET: &str = "facade-secret";
/// The user who signs in.
pub const LOGIN: &str = "octocat";
/// The user's subject.
pub const SUBJECT: &str = "user-1234";
/// The access token the provider gives for the user (it must never reach an MCP client).
pub const UPSTREAM_TOKEN: &str = "upstream-token-of-octocat";

#[derive(Default)]
struct State {
    base: String,
    down: AtomicBool,
    paths: Mutex<Vec<String>>,
    /// Codes issued, with their PKCE challenge.
    codes: Mutex<HashMap<String, String>>,
    documents: Mutex<HashMap<String, String>>,
}

/// The running provider on 127.0.0.1; stopped when dropped.
pub struct FakeIdp {
    address: SocketAddr,
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

impl FakeIdp {
    pub async fn start() -> Self {
        let (address, state, task) = crate::http::serve_http1(
            |address| Arc::new(State { base: format!("http://{address}"), ..State::default() }),
            answer,
        )
        .await;
        Self { address, state, task }
    }

    /// The issuer (discovery at `{issuer}/.well-known/openid-configuration`).
    pub fn issuer(&self) -> String {
        self.state.base.clone()
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Every answer `503` from now on (or again normal).
    pub fn set_down(&self, down: bool) {
        self.state.down.store(down, Ordering::SeqCst);
    }

    /// Serves `body` as JSON at `path`.
    pub fn publish(&self, path: &str, body: String) {
        self.state.documents.lock().unwrap().insert(path.to_owned(), body);
    }

    /// The paths requested so far.
    pub fn paths(&self) -> Vec<String> {
        self.state.paths.lock().unwrap().clone()
    }
}

impl FakeIdp {
    /// What a browser does from a façade's authorization URL (its path and query, on `facade`)
    /// to the redirect back to the client: this provider's login (at once), and the façade's
    /// consent form when it shows one (allowed, with its cookie). The URL of that redirect.
    pub async fn sign_in_through(&self, facade: SocketAddr, authorize: &str) -> String {
        let origin = format!("http://{facade}");
        let façade = crate::HttpClient::new(facade);
        let reply = façade.send(Method::GET, authorize, &[], Vec::new()).await;
        assert_eq!(reply.status, StatusCode::SEE_OTHER, "{:?}", reply.headers);
        let upstream =
            reply.header("location").unwrap().strip_prefix(&self.issuer()).expect("to the upstream").to_owned();
        let reply = crate::HttpClient::new(self.address).send(Method::GET, &upstream, &[], Vec::new()).await;
        let callback = reply.header("location").unwrap().strip_prefix(&origin).expect("back to the façade").to_owned();
        let reply = façade.send(Method::GET, &callback, &[], Vec::new()).await;
        let reply = if reply.status == StatusCode::OK {
            let cookie = reply.header("set-cookie").unwrap().split(';').next().unwrap().to_owned();
            let page = String::from_utf8(reply.bytes().await).unwrap();
            let form = form_urlencoded::Serializer::new(String::new())
                .append_pair("page", &form_value(&page, "page"))
                .append_pair("csrf", &form_value(&page, "csrf"))
                .append_pair("decision", "allow")
                .finish();
            let headers = [("content-type", "application/x-www-form-urlencoded"), ("cookie", cookie.as_str())];
            façade.send(Method::POST, "/oauth/consent", &headers, form.into_bytes()).await
        } else {
            reply
        };
        assert_eq!(reply.status, StatusCode::SEE_OTHER, "{:?}", reply.headers);
        reply.header("location").unwrap().to_owned()
    }
}

/// The value of the input `name` of an HTML form.
pub fn form_value(page: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = page.find(&marker).unwrap_or_else(|| panic!("no {name} in {page}")) + marker.len();
    page[start..].split('"').next().unwrap().to_owned()
}

impl Drop for FakeIdp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Answer = Response<Full<Bytes>>;

async fn answer(state: Arc<State>, request: Request<Incoming>) -> Result<Answer, std::convert::Infallible> {
    let path = request.uri().path().to_owned();
    let query = request.uri().query().unwrap_or_default().to_owned();
    let authorization = request.headers().get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned);
    state.paths.lock().unwrap().push(path.clone());
    let body = request.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    if state.down.load(Ordering::SeqCst) {
        return Ok(json_answer(StatusCode::SERVICE_UNAVAILABLE, json!({"error": "down"})));
    }
    if let Some(document) = state.documents.lock().unwrap().get(&path) {
        return Ok(json_answer(
            StatusCode::OK,
            serde_json::from_str(document).unwrap_or(Value::String(document.clone())),
        ));
    }
    let base = &state.base;
    Ok(match path.as_str() {
        "/.well-known/openid-configuration" => json_answer(
            StatusCode::OK,
            json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "userinfo_endpoint": format!("{base}/userinfo"),
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                "code_challenge_methods_supported": ["S256"],
            }),
        ),
        "/authorize" => {
            let params = params(query.as_bytes());
            let good = params.get("client_id").map(String::as_str) == Some(CLIENT_ID)
                && params.get("code_challenge_method").map(String::as_str) == Some("S256");
            if !good {
                return Ok(json_answer(StatusCode::BAD_REQUEST, json!({"error": "invalid_request"})));
            }
            let code = format!("upstream-code-{}", state.codes.lock().unwrap().len());
            state.codes.lock().unwrap().insert(code.clone(), params["code_challenge"].clone());
            let mut location = format!("{}?code={code}", params["redirect_uri"]);
            if let Some(s) = params.get("state") {
                location.push_str(&format!("&state={}", encode(s)));
            }
            Response::builder().status(StatusCode::FOUND).header("location", location).body(Full::default()).unwrap()
        }
        "/token" => {
            let params = params(&body);
            let basic = format!(
                "Basic {}",
                base64::Engine::encode(
                    &base64::engine::general_purpose::STANDARD,
                    format!("{CLIENT_ID}:{CLIENT_SECRET}")
                )
            );
            let challenge = state.codes.lock().unwrap().remove(params.get("code").map_or("", String::as_str));
            let verifier = params.get("code_verifier").cloned().unwrap_or_default();
            let pkce = challenge.is_some_and(|c| {
                c == base64::Engine::encode(
                    &base64::engine::general_purpose::URL_SAFE_NO_PAD,
                    sha2::Sha256::digest(verifier.as_bytes()),
                )
            });
            if authorization.as_deref() != Some(basic.as_str()) || !pkce {
                json_answer(StatusCode::BAD_REQUEST, json!({"error": "invalid_grant"}))
            } else {
                json_answer(
                    StatusCode::OK,
                    json!({"access_token": UPSTREAM_TOKEN, "token_type": "Bearer", "expires_in": 3600}),
                )
            }
        }
        "/userinfo" => {
            if authorization.as_deref() == Some(&format!("Bearer {UPSTREAM_TOKEN}")) {
                json_answer(
                    StatusCode::OK,
                    json!({"sub": SUBJECT, "preferred_username": LOGIN, "email": "octocat@example.com", "groups": ["staff"]}),
                )
            } else {
                json_answer(StatusCode::UNAUTHORIZED, json!({"error": "invalid_token"}))
            }
        }
        _ => Response::builder().status(StatusCode::NOT_FOUND).body(Full::default()).unwrap(),
    })
}

fn params(encoded: &[u8]) -> HashMap<String, String> {
    form_urlencoded::parse(encoded).into_owned().collect()
}

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
