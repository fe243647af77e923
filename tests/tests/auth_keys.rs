//! The authorization server as the runtime reaches it (feature `auth`), played by small hyper
//! servers on 127.0.0.1 that count what they are asked: JWKS fetched by URL and through the
//! issuer's metadata, key rotation without a restart, the refetch interval, `Cache-Control`,
//! outages; RFC 7662 introspection; RFC 8693 token exchange; and (with feature `tls` too) an
//! HTTPS key server whose certificate is not trusted.
#![cfg(feature = "auth")]

use base64::Engine as _;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::State;
use mcp_runtime::auth::{
    AuthConfig, AuthError, AuthInfo, ClientCredentials, IntrospectionVerifier, JwtKey, JwtVerifier, Principal,
    TokenExchange, TokenVerifier,
};
use mcp_runtime::http::HttpConfig;
use mcp_runtime::prelude::*;
use mcp_tests::HttpClient;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const ISSUER: &str = "https://auth.example.com";
const RESOURCE: &str = "https://mcp.example.com/mcp";

// ---------------------------------------------------------------------------------------------
// A local authorization server.

/// A request the local server received.
#[derive(Clone, Debug)]
struct Seen {
    path: String,
    authorization: Option<String>,
    form: HashMap<String, Vec<String>>,
}

impl Seen {
    fn field(&self, name: &str) -> Option<&str> {
        self.form.get(name).and_then(|values| values.first()).map(String::as_str)
    }
}

/// What the local server answers.
struct Answer {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
}

impl Answer {
    fn json(status: u16, body: Value) -> Self {
        Self { status, headers: Vec::new(), body: body.to_string() }
    }

    fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }
}

type Handler = Arc<dyn Fn(&Seen) -> Answer + Send + Sync>;

/// An HTTP/1.1 server on 127.0.0.1 that answers with `handler` and keeps every request it got.
/// Each connection serves one request, so that stopping the server stops it for good.
struct LocalServer {
    address: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    accept: tokio::task::JoinHandle<()>,
}

impl LocalServer {
    async fn start(handler: impl Fn(&Seen) -> Answer + Send + Sync + 'static) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let handler: Handler = Arc::new(handler);
        let log = Arc::clone(&seen);
        let accept = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { return };
                let (handler, log) = (Arc::clone(&handler), Arc::clone(&log));
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                        let (handler, log) = (Arc::clone(&handler), Arc::clone(&log));
                        async move {
                            let path = request.uri().path().to_owned();
                            let authorization =
                                request.headers().get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned);
                            let body = request.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                            let mut form: HashMap<String, Vec<String>> = HashMap::new();
                            for (name, value) in form_urlencoded::parse(&body) {
                                form.entry(name.into_owned()).or_default().push(value.into_owned());
                            }
                            let seen = Seen { path, authorization, form };
                            let answer = handler(&seen);
                            log.lock().unwrap().push(seen);
                            let mut response =
                                Response::builder().status(answer.status).header("content-type", "application/json");
                            for (name, value) in answer.headers {
                                response = response.header(name, value);
                            }
                            Ok::<_, hyper::Error>(response.body(Full::new(Bytes::from(answer.body))).unwrap())
                        }
                    });
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let _ = hyper::server::conn::http1::Builder::new()
                        .keep_alive(false)
                        .serve_connection(io, service)
                        .await;
                });
            }
        });
        Self { address, seen, accept }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// How many requests came for `path`.
    fn hits(&self, path: &str) -> usize {
        self.seen.lock().unwrap().iter().filter(|seen| seen.path == path).count()
    }

    fn requests(&self, path: &str) -> Vec<Seen> {
        self.seen.lock().unwrap().iter().filter(|seen| seen.path == path).cloned().collect()
    }

    /// Stops accepting connections: the port is closed.
    fn stop(&self) {
        self.accept.abort();
    }
}

/// Waits (5 s at most) until `condition` holds.
async fn eventually(what: &str, condition: impl Fn() -> bool) {
    for _ in 0..250 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never happened: {what}");
}

// ---------------------------------------------------------------------------------------------
// Keys and tokens.

fn secret(kid: &str) -> Vec<u8> {
    format!("auth-keys-test-secret-for-{kid}-32-bytes-or-more").into_bytes()
}

fn jwk(kid: &str) -> Value {
    let k = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret(kid));
    json!({"kty": "oct", "kid": kid, "alg": "HS256", "k": k})
}

fn jwks(kids: &[&str]) -> Value {
    json!({"keys": kids.iter().map(|kid| jwk(kid)).collect::<Vec<_>>()})
}

fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

fn signed(kid: &str, issuer: &str, subject: &str) -> String {
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some(kid.to_owned());
    let claims = json!({"iss": issuer, "aud": RESOURCE, "sub": subject, "exp": now() + 600, "scope": "files:read"});
    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(&secret(kid)).unwrap()).unwrap()
}

fn token(kid: &str) -> String {
    signed(kid, ISSUER, "alice")
}

/// What the JWKS server serves: its keys, its `Cache-Control`, whether it is failing.
#[derive(Clone)]
struct Jwks {
    kids: Arc<Mutex<Vec<&'static str>>>,
    cache_control: Arc<Mutex<Option<String>>>,
    failing: Arc<Mutex<bool>>,
}

impl Jwks {
    fn new(kids: &[&'static str], cache_control: Option<&str>) -> Self {
        Self {
            kids: Arc::new(Mutex::new(kids.to_vec())),
            cache_control: Arc::new(Mutex::new(cache_control.map(str::to_owned))),
            failing: Arc::default(),
        }
    }

    fn rotate(&self, kids: &[&'static str]) {
        *self.kids.lock().unwrap() = kids.to_vec();
    }

    async fn serve(&self) -> LocalServer {
        let jwks = self.clone();
        LocalServer::start(move |seen| {
            if seen.path != "/jwks" {
                return Answer::json(404, json!({}));
            }
            if *jwks.failing.lock().unwrap() {
                return Answer::json(503, json!({"error": "temporarily_unavailable"}));
            }
            let answer = Answer::json(200, self::jwks(&jwks.kids.lock().unwrap()));
            match jwks.cache_control.lock().unwrap().clone() {
                Some(value) => answer.with_header("cache-control", value),
                None => answer,
            }
        })
        .await
    }
}

async fn accepted(verifier: &impl TokenVerifier, token: &str) -> Result<AuthInfo, AuthError> {
    verifier.verify(token, RESOURCE).await
}

// ---------------------------------------------------------------------------------------------
// JWKS.

/// Who is calling.
#[mcp_tool]
fn whoami(caller: AuthInfo) -> String {
    caller.subject().to_owned()
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "auth-keys", "version": "0"}}})
}

async fn mcp_server(auth: AuthConfig, exchange: Option<TokenExchange>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = match exchange {
        Some(exchange) => server!().tools(tools![whoami, downstream_token]).state(exchange),
        None => server!().tools(tools![whoami]),
    };
    let service = server.into_http_service(HttpConfig::default().auth(auth)).unwrap();
    tokio::spawn(service.serve(listener, std::future::pending()));
    address
}

fn auth_config(verifier: impl TokenVerifier) -> AuthConfig {
    AuthConfig::new(verifier).resource(RESOURCE).authorization_server(ISSUER)
}

#[tokio::test]
async fn rotated_keys_are_fetched_without_a_restart() {
    let jwks = Jwks::new(&["k1"], None);
    let idp = jwks.serve().await;
    let verifier = JwtVerifier::from_jwks_url(idp.url("/jwks"))
        .unwrap()
        .issuer(ISSUER)
        .key_refetch_interval(Duration::from_millis(500));
    let address = mcp_server(auth_config(verifier), None).await;
    assert_eq!(idp.hits("/jwks"), 0, "nothing is fetched before a token arrives");

    let mut client = HttpClient::new(address).with_bearer(&token("k1"));
    client.initialize().await;
    let answer = client.request(1, "tools/call", json!({"name": "whoami", "arguments": {}})).await;
    assert_eq!(answer.last().unwrap()["result"]["content"][0]["text"], "alice");
    assert_eq!(idp.hits("/jwks"), 1, "the keys are fetched once and cached");

    // The authorization server rotates: k1 is gone, k2 signs.
    jwks.rotate(&["k2"]);
    tokio::time::sleep(Duration::from_millis(550)).await;
    let reply = HttpClient::new(address).with_bearer(&token("k2")).post(&initialize()).await;
    assert_eq!(reply.status, StatusCode::OK, "a token signed with the new key is accepted");
    assert_eq!(idp.hits("/jwks"), 2, "the unknown kid made the verifier fetch the keys again");
    // The old key is gone from the set (and a refetch for it comes too soon: none is made).
    let reply = HttpClient::new(address).with_bearer(&token("k1")).post(&initialize()).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(idp.hits("/jwks"), 2);
}

#[tokio::test]
async fn unknown_kids_are_refetched_at_most_once_per_interval_in_one_shared_fetch() {
    let jwks = Jwks::new(&["k1"], None);
    let idp = jwks.serve().await;
    let verifier = JwtVerifier::from_jwks_url(idp.url("/jwks")).unwrap().key_refetch_interval(Duration::from_secs(1));
    assert_eq!(accepted(&verifier, &token("k1")).await.unwrap().subject(), "alice");
    assert_eq!(idp.hits("/jwks"), 1);

    jwks.rotate(&["k1", "k2"]);
    // Too soon after the last fetch: refused without asking.
    let refused = accepted(&verifier, &token("k2")).await.unwrap_err();
    assert_eq!(idp.hits("/jwks"), 1);
    assert_eq!(refused.message(), "invalid token signature");

    tokio::time::sleep(Duration::from_millis(1050)).await;
    let k2 = token("k2");
    let (a, b, c, d, e) = tokio::join!(
        accepted(&verifier, &k2),
        accepted(&verifier, &k2),
        accepted(&verifier, &k2),
        accepted(&verifier, &k2),
        accepted(&verifier, &k2),
    );
    for result in [a, b, c, d, e] {
        assert_eq!(result.unwrap().subject(), "alice");
    }
    assert_eq!(idp.hits("/jwks"), 2, "five concurrent misses made one fetch");

    // A flood of tokens naming keys that do not exist makes no more fetches within the interval.
    for kid in ["x1", "x2", "x3", "x4"] {
        assert!(accepted(&verifier, &token(kid)).await.is_err());
    }
    assert_eq!(idp.hits("/jwks"), 2);
    // A known key does not wait for anything.
    assert!(accepted(&verifier, &token("k1")).await.is_ok());
    assert_eq!(idp.hits("/jwks"), 2);

    // Without any interval, concurrent misses still share one fetch.
    let verifier = JwtVerifier::from_jwks_url(idp.url("/jwks")).unwrap().key_refetch_interval(Duration::ZERO);
    verifier.refresh_keys().await.unwrap();
    assert_eq!(idp.hits("/jwks"), 3);
    jwks.rotate(&["k3"]);
    let k3 = token("k3");
    let (a, b, c, d) = tokio::join!(
        accepted(&verifier, &k3),
        accepted(&verifier, &k3),
        accepted(&verifier, &k3),
        accepted(&verifier, &k3)
    );
    for result in [a, b, c, d] {
        assert_eq!(result.unwrap().subject(), "alice");
    }
    assert_eq!(idp.hits("/jwks"), 4, "four concurrent misses made one fetch");
}

#[tokio::test]
async fn cache_control_decides_how_long_keys_are_kept() {
    // max-age=3600 beats a default of 100 ms: no fetch after 300 ms.
    let jwks = Jwks::new(&["k1"], Some("public, max-age=3600"));
    let idp = jwks.serve().await;
    let verifier = JwtVerifier::from_jwks_url(idp.url("/jwks"))
        .unwrap()
        .key_cache_default(Duration::from_millis(100))
        .key_cache_bounds(Duration::ZERO, Duration::from_secs(3600))
        .key_refetch_interval(Duration::ZERO);
    assert!(accepted(&verifier, &token("k1")).await.is_ok());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(accepted(&verifier, &token("k1")).await.is_ok());
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(idp.hits("/jwks"), 1, "max-age=3600 honoured");

    // Without a header, the default: stale after 100 ms, fetched again in the background while
    // the old keys still serve.
    *jwks.cache_control.lock().unwrap() = None;
    let verifier = JwtVerifier::from_jwks_url(idp.url("/jwks"))
        .unwrap()
        .key_cache_default(Duration::from_millis(100))
        .key_refetch_interval(Duration::ZERO);
    assert!(accepted(&verifier, &token("k1")).await.is_ok());
    assert_eq!(idp.hits("/jwks"), 2);
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert!(accepted(&verifier, &token("k1")).await.is_ok());
    eventually("a background refresh", || idp.hits("/jwks") == 3).await;

    // no-cache is the floor (500 ms here), not a fetch per token.
    *jwks.cache_control.lock().unwrap() = Some("no-cache".into());
    let verifier = JwtVerifier::from_jwks_url(idp.url("/jwks"))
        .unwrap()
        .key_cache_bounds(Duration::from_millis(500), Duration::from_secs(3600))
        .key_refetch_interval(Duration::ZERO);
    for _ in 0..3 {
        assert!(accepted(&verifier, &token("k1")).await.is_ok());
    }
    assert_eq!(idp.hits("/jwks"), 4);
    tokio::time::sleep(Duration::from_millis(550)).await;
    assert!(accepted(&verifier, &token("k1")).await.is_ok());
    eventually("a refresh after the floor", || idp.hits("/jwks") == 5).await;

    // A max-age over the ceiling (200 ms here) is cut to it.
    *jwks.cache_control.lock().unwrap() = Some("max-age=86400".into());
    let verifier = JwtVerifier::from_jwks_url(idp.url("/jwks"))
        .unwrap()
        .key_cache_bounds(Duration::ZERO, Duration::from_millis(200))
        .key_refetch_interval(Duration::ZERO);
    assert!(accepted(&verifier, &token("k1")).await.is_ok());
    assert_eq!(idp.hits("/jwks"), 6);
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert!(accepted(&verifier, &token("k1")).await.is_ok());
    eventually("a refresh after the ceiling", || idp.hits("/jwks") == 7).await;
}

#[tokio::test]
async fn keys_are_found_through_the_issuers_metadata() {
    let address: Arc<Mutex<String>> = Arc::default();
    let base = Arc::clone(&address);
    let idp = LocalServer::start(move |seen| {
        let base = base.lock().unwrap().clone();
        match seen.path.as_str() {
            // An OpenID provider: no RFC 8414 document, the OpenID one instead.
            "/.well-known/openid-configuration" => {
                Answer::json(200, json!({"issuer": base, "jwks_uri": format!("{base}/keys/root")}))
            }
            // A tenant with RFC 8414 metadata, the path after the well-known part.
            "/.well-known/oauth-authorization-server/tenant" => Answer::json(
                200,
                json!({"issuer": format!("{base}/tenant"), "jwks_uri": format!("{base}/keys/tenant")}),
            ),
            // Metadata that speaks for another issuer.
            "/.well-known/oauth-authorization-server/liar" => Answer::json(
                200,
                json!({"issuer": "https://evil.example.com", "jwks_uri": format!("{base}/keys/root")}),
            ),
            // Metadata whose keys are fetched in clear text from elsewhere.
            "/.well-known/oauth-authorization-server/plain" => Answer::json(
                200,
                json!({"issuer": format!("{base}/plain"), "jwks_uri": "http://keys.example.com/jwks"}),
            ),
            "/keys/root" => Answer::json(200, jwks(&["root"])),
            "/keys/tenant" => Answer::json(200, jwks(&["tenant"])),
            _ => Answer::json(404, json!({"error": "not found"})),
        }
    })
    .await;
    let base = idp.url("");
    *address.lock().unwrap() = base.clone();

    let verifier = JwtVerifier::from_issuer(&base).unwrap();
    assert_eq!(accepted(&verifier, &signed("root", &base, "alice")).await.unwrap().subject(), "alice");
    assert_eq!(idp.hits("/.well-known/oauth-authorization-server"), 1, "RFC 8414 first");
    assert_eq!(idp.hits("/.well-known/openid-configuration"), 1);
    assert_eq!(idp.hits("/keys/root"), 1);
    // The issuer is checked: the same key under another `iss` is refused.
    let refused = accepted(&verifier, &signed("root", "https://other.example.com", "alice")).await.unwrap_err();
    assert_eq!(refused.message(), "the token's issuer is not trusted");
    // The metadata is read once.
    verifier.refresh_keys().await.unwrap();
    assert_eq!(idp.hits("/.well-known/openid-configuration"), 1);
    assert_eq!(idp.hits("/keys/root"), 2);

    let tenant = format!("{base}/tenant");
    let verifier = JwtVerifier::from_issuer(&tenant).unwrap();
    verifier.refresh_keys().await.unwrap();
    assert_eq!(accepted(&verifier, &signed("tenant", &tenant, "bob")).await.unwrap().subject(), "bob");
    assert!(accepted(&verifier, &signed("root", &tenant, "bob")).await.is_err());

    for (issuer, why) in [("liar", "is for the issuer"), ("plain", "must be an https URL")] {
        let issuer = format!("{base}/{issuer}");
        let verifier = JwtVerifier::from_issuer(&issuer).unwrap();
        let error = verifier.refresh_keys().await.unwrap_err();
        assert!(error.to_string().contains(why), "{error}");
        let refused = accepted(&verifier, &signed("root", &issuer, "alice")).await.unwrap_err();
        assert_eq!(refused.message(), "the authorization server's keys are not available");
    }
    assert_eq!(idp.hits("/keys/root"), 2, "no keys were fetched for the liar");
    // Plain http is refused for anything but loopback.
    assert!(JwtVerifier::from_issuer("http://auth.example.com").is_err());
    assert!(JwtVerifier::from_jwks_url("http://auth.example.com/jwks").is_err());
}

#[tokio::test]
async fn a_failing_or_unreachable_server_leaves_the_last_good_keys() {
    let jwks = Jwks::new(&["k1"], None);
    let idp = jwks.serve().await;
    let verifier = JwtVerifier::from_jwks_url(idp.url("/jwks"))
        .unwrap()
        .key_cache_default(Duration::from_millis(100))
        .key_refetch_interval(Duration::ZERO);
    verifier.refresh_keys().await.unwrap();
    assert_eq!(idp.hits("/jwks"), 1);

    *jwks.failing.lock().unwrap() = true;
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert!(accepted(&verifier, &token("k1")).await.is_ok(), "stale keys serve while refreshing");
    eventually("a refresh that fails", || idp.hits("/jwks") == 2).await;
    assert!(accepted(&verifier, &token("k1")).await.is_ok(), "the last good keys serve after a failure");
    assert!(verifier.refresh_keys().await.is_err());
    assert!(accepted(&verifier, &token("k1")).await.is_ok());

    idp.stop();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(verifier.refresh_keys().await.is_err(), "the port is closed");
    assert!(accepted(&verifier, &token("k1")).await.is_ok(), "the last good keys serve while the server is down");

    // A verifier that never got keys refuses tokens, saying why.
    let verifier = JwtVerifier::from_jwks_url(idp.url("/jwks")).unwrap();
    let refused = accepted(&verifier, &token("k1")).await.unwrap_err();
    assert_eq!(refused.message(), "the authorization server's keys are not available");
    // `set_key` still works on it.
    verifier.set_key(JwtKey::jwks(&self::jwks(&["k1"]).to_string()).unwrap());
    assert!(verifier.refresh_keys().await.is_err());
    assert_eq!(verifier.verify(&token("k1"), RESOURCE).await.unwrap().subject(), "alice");
}

#[tokio::test]
async fn an_oversized_key_set_is_refused() {
    let idp = LocalServer::start(|_| {
        let mut set = jwks(&["k1"]);
        set["padding"] = "x".repeat(300 * 1024).into();
        Answer::json(200, set)
    })
    .await;
    let verifier = JwtVerifier::from_jwks_url(idp.url("/jwks")).unwrap();
    let error = verifier.refresh_keys().await.unwrap_err();
    assert!(error.to_string().contains("bytes"), "{error}");
    assert!(accepted(&verifier, &token("k1")).await.is_err());
}

// ---------------------------------------------------------------------------------------------
// Introspection (RFC 7662).

const CLIENT_ID: &str = "mcp-server";
const CLIENT_SECRET: &str = "s3cret:with/odd+chars";

/// Whether the request authenticated as our client, by `client_secret_basic` or `_post`.
fn authenticated(seen: &Seen) -> bool {
    let encode = |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", encode(CLIENT_ID), encode(CLIENT_SECRET)))
    );
    match &seen.authorization {
        Some(header) => *header == basic && seen.field("client_secret").is_none(),
        None => seen.field("client_id") == Some(CLIENT_ID) && seen.field("client_secret") == Some(CLIENT_SECRET),
    }
}

async fn introspection_server() -> LocalServer {
    let exp_short = now() + 2;
    LocalServer::start(move |seen| {
        if seen.path != "/introspect" {
            return Answer::json(404, json!({}));
        }
        if !authenticated(seen) {
            return Answer::json(401, json!({"error": "invalid_client"}));
        }
        let active = |patch: Value| {
            let mut answer = json!({"active": true, "aud": [RESOURCE, "https://other.example.com"], "sub": "alice",
                "scope": "files:read files:write", "exp": now() + 600, "iss": ISSUER, "client_id": "app"});
            answer.as_object_mut().unwrap().extend(patch.as_object().unwrap().clone());
            answer
        };
        assert_eq!(seen.field("token_type_hint"), Some("access_token"));
        let answer = match seen.field("token").unwrap_or_default() {
            "good" => active(json!({})),
            "machine" => active(json!({"sub": null})),
            "elsewhere" => active(json!({"aud": "https://other.example.com"})),
            "short" => active(json!({"exp": exp_short})),
            _ => json!({"active": false}),
        };
        Answer::json(200, answer)
    })
    .await
}

fn introspected(seen: &LocalServer, token: &str) -> usize {
    seen.requests("/introspect").iter().filter(|s| s.field("token") == Some(token)).count()
}

#[tokio::test]
async fn introspection_checks_activity_audience_and_caches_active_tokens() {
    let idp = introspection_server().await;
    let verifier =
        IntrospectionVerifier::new(idp.url("/introspect"), ClientCredentials::basic(CLIENT_ID, CLIENT_SECRET))
            .unwrap()
            .issuer(ISSUER);

    let caller = accepted(&verifier, "good").await.unwrap();
    assert_eq!(caller.principal(), &Principal::User("alice".into()));
    assert_eq!(caller.scopes(), ["files:read", "files:write"]);
    assert_eq!(caller.token(), "good");
    assert_eq!(caller.client_id(), Some("app"));
    let again = accepted(&verifier, "good").await.unwrap();
    assert_eq!(again, caller);
    assert_eq!(introspected(&idp, "good"), 1, "an active token is cached");

    let machine = accepted(&verifier, "machine").await.unwrap();
    assert_eq!(machine.principal(), &Principal::Client("app".into()));

    for _ in 0..2 {
        let refused = accepted(&verifier, "revoked").await.unwrap_err();
        assert_eq!(refused.message(), "the token is not active");
    }
    assert_eq!(introspected(&idp, "revoked"), 2, "inactive tokens are not cached");
    let refused = accepted(&verifier, "elsewhere").await.unwrap_err();
    assert_eq!(refused.message(), "the token was not issued for this server");

    // Cached never past `exp`: a token expiring within two seconds is asked about again after.
    assert!(accepted(&verifier, "short").await.is_ok());
    assert!(accepted(&verifier, "short").await.is_ok());
    assert_eq!(introspected(&idp, "short"), 1);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let _ = accepted(&verifier, "short").await;
    assert_eq!(introspected(&idp, "short"), 2);

    // Cached for a short time only, and bounded.
    let verifier =
        IntrospectionVerifier::new(idp.url("/introspect"), ClientCredentials::post(CLIENT_ID, CLIENT_SECRET))
            .unwrap()
            .cache_for(Duration::from_millis(500))
            .cache_capacity(1);
    let before = introspected(&idp, "good");
    assert!(accepted(&verifier, "good").await.is_ok());
    assert!(accepted(&verifier, "good").await.is_ok());
    assert_eq!(introspected(&idp, "good"), before + 1, "client_secret_post works too");
    assert!(accepted(&verifier, "machine").await.is_ok());
    assert!(accepted(&verifier, "good").await.is_ok());
    assert_eq!(introspected(&idp, "good"), before + 2, "one entry at most: `machine` pushed `good` out");
    tokio::time::sleep(Duration::from_millis(550)).await;
    assert!(accepted(&verifier, "good").await.is_ok());
    assert_eq!(introspected(&idp, "good"), before + 3, "the entry ended");

    // Wrong client credentials: the endpoint refuses, and so does the verifier.
    let verifier =
        IntrospectionVerifier::new(idp.url("/introspect"), ClientCredentials::basic(CLIENT_ID, "wrong")).unwrap();
    assert_eq!(accepted(&verifier, "good").await.unwrap_err().message(), "the token could not be checked");
}

#[tokio::test]
async fn an_introspected_token_opens_the_mcp_endpoint() {
    let idp = introspection_server().await;
    let verifier =
        IntrospectionVerifier::new(idp.url("/introspect"), ClientCredentials::basic(CLIENT_ID, CLIENT_SECRET)).unwrap();
    let address = mcp_server(auth_config(verifier), None).await;
    let mut client = HttpClient::new(address).with_bearer("good");
    client.initialize().await;
    let answer = client.request(1, "tools/call", json!({"name": "whoami", "arguments": {}})).await;
    assert_eq!(answer.last().unwrap()["result"]["content"][0]["text"], "alice");
    for token in ["elsewhere", "revoked"] {
        let reply = HttpClient::new(address).with_bearer(token).post(&initialize()).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{token}");
        assert!(reply.header("www-authenticate").unwrap().contains("invalid_token"));
    }
}

// ---------------------------------------------------------------------------------------------
// Token exchange (RFC 8693).

const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";

async fn token_endpoint() -> LocalServer {
    let issued = Arc::new(Mutex::new(0));
    LocalServer::start(move |seen| {
        if seen.path != "/token" || !authenticated(seen) {
            return Answer::json(401, json!({"error": "invalid_client"}));
        }
        let well_formed = seen.field("grant_type") == Some(GRANT_TYPE)
            && seen.field("subject_token_type") == Some(ACCESS_TOKEN_TYPE)
            && seen.field("subject_token").is_some_and(|t| !t.is_empty())
            && (seen.field("resource").is_some() || seen.field("audience").is_some());
        if !well_formed {
            return Answer::json(400, json!({"error": "invalid_request"}));
        }
        let target = seen.field("resource").or(seen.field("audience")).unwrap_or_default();
        if target == "https://unknown.example.com" {
            return Answer::json(400, json!({"error": "invalid_target", "error_description": "no such API"}));
        }
        let mut n = issued.lock().unwrap();
        *n += 1;
        let mut answer = json!({
            "access_token": format!("downstream-{n}-for-{target}"),
            "issued_token_type": ACCESS_TOKEN_TYPE,
            "token_type": "Bearer",
            "expires_in": 3600,
        });
        match target {
            "https://short.example.com" => answer["expires_in"] = 2.into(),
            "https://forever.example.com" => {
                answer.as_object_mut().unwrap().remove("expires_in");
            }
            _ => {}
        }
        if let Some(scope) = seen.field("scope") {
            answer["scope"] = scope.into();
        }
        Answer::json(200, answer)
    })
    .await
}

#[tokio::test]
async fn token_exchange_sends_rfc_8693_requests_and_caches_until_expiry() {
    let idp = token_endpoint().await;
    let exchange = TokenExchange::new(idp.url("/token"), ClientCredentials::basic(CLIENT_ID, CLIENT_SECRET)).unwrap();
    let alice = AuthInfo::new("alice", "alice-token");
    let bob = AuthInfo::new("bob", "bob-token");
    let api = "https://api.example.com";

    let first = exchange.token_for(&alice, api).await.unwrap();
    assert_eq!(first, format!("downstream-1-for-{api}"));
    assert_eq!(exchange.token_for(&alice, api).await.unwrap(), first, "cached");
    assert_eq!(idp.hits("/token"), 1);
    let request = &idp.requests("/token")[0];
    assert_eq!(request.field("grant_type"), Some(GRANT_TYPE));
    assert_eq!(request.field("subject_token"), Some("alice-token"));
    assert_eq!(request.field("subject_token_type"), Some(ACCESS_TOKEN_TYPE));
    assert_eq!(request.field("resource"), Some(api));
    assert_eq!(request.field("client_secret"), None, "client_secret_basic");

    // Per caller's token and per target.
    assert_ne!(exchange.token_for(&bob, api).await.unwrap(), first);
    assert_ne!(exchange.token_for(&alice, "https://other.example.com").await.unwrap(), first);
    assert_eq!(idp.hits("/token"), 3);

    // An audience, a scope and a token type are sent as asked.
    let token = exchange.request(&alice).audience("billing").scope("invoices:read").send().await.unwrap();
    assert_eq!(token.scope(), Some("invoices:read"));
    assert_eq!(token.token_type(), "Bearer");
    assert!(token.expires_in().unwrap() > Duration::from_secs(3500));
    assert!(!format!("{token:?}").contains(token.access_token()));
    let request = idp.requests("/token").pop().unwrap();
    assert_eq!((request.field("audience"), request.field("scope")), (Some("billing"), Some("invoices:read")));
    assert_eq!(request.field("resource"), None);

    // Never kept past its expiry: a token for 2 s is kept for 1 s (half its life, less than 30 s),
    // then exchanged again; one without
    // `expires_in` is not kept.
    for api in ["https://short.example.com", "https://forever.example.com"] {
        let before = idp.hits("/token");
        let one = exchange.token_for(&alice, api).await.unwrap();
        if api.contains("short") {
            assert_eq!(exchange.token_for(&alice, api).await.unwrap(), one);
            assert_eq!(idp.hits("/token"), before + 1);
            tokio::time::sleep(Duration::from_millis(1100)).await;
        }
        assert_ne!(exchange.token_for(&alice, api).await.unwrap(), one);
        assert_eq!(idp.hits("/token"), before + 2, "{api}");
    }

    // The authorization server's refusal reaches the tool.
    let error = exchange.token_for(&alice, "https://unknown.example.com").await.unwrap_err();
    assert_eq!(error.kind(), mcp_runtime::ErrorKind::Auth);
    assert!(error.to_string().contains("invalid_target: no such API"), "{error}");
    let error = TokenExchange::new(idp.url("/token"), ClientCredentials::post(CLIENT_ID, "wrong"))
        .unwrap()
        .token_for(&alice, api)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("invalid_client"), "{error}");
}

/// A token for the downstream API, in the caller's name.
#[mcp_tool]
async fn downstream_token(
    caller: AuthInfo,
    State(exchange): State<TokenExchange>,
) -> Result<String, mcp_runtime::Error> {
    exchange.token_for(&caller, "https://api.example.com").await
}

#[tokio::test]
async fn a_tool_exchanges_its_callers_token() {
    let idp = token_endpoint().await;
    let exchange = TokenExchange::new(idp.url("/token"), ClientCredentials::basic(CLIENT_ID, CLIENT_SECRET)).unwrap();
    let verifier = JwtVerifier::new(JwtKey::jwks(&jwks(&["k1"]).to_string()).unwrap()).issuer(ISSUER);
    let address = mcp_server(auth_config(verifier), Some(exchange)).await;
    let bearer = token("k1");
    let mut client = HttpClient::new(address).with_bearer(&bearer);
    client.initialize().await;
    for id in 1..=2 {
        let answer = client.request(id, "tools/call", json!({"name": "downstream_token", "arguments": {}})).await;
        let result = &answer.last().unwrap()["result"];
        assert_eq!(result["content"][0]["text"], "downstream-1-for-https://api.example.com", "{result}");
    }
    let requests = idp.requests("/token");
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].field("subject_token"), Some(bearer.as_str()), "the caller's token is the subject");
}

/// The keys over HTTPS: the client is rustls with the system's trust store, so a server whose
/// certificate no trusted authority signed (here, self-signed) is refused at the handshake.
#[cfg(feature = "tls")]
#[tokio::test]
async fn an_untrusted_certificate_is_refused() {
    use tokio_rustls::rustls;
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::try_from(certified.signing_key.serialize_der()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let handshakes = Arc::new(Mutex::new((0, 0)));
    let counted = Arc::clone(&handshakes);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let completed = acceptor.accept(stream).await.is_ok();
            let mut counts = counted.lock().unwrap();
            counts.0 += 1;
            counts.1 += usize::from(completed);
        }
    });

    let verifier = JwtVerifier::from_jwks_url(format!("https://localhost:{port}/jwks")).unwrap();
    let error = verifier.refresh_keys().await.unwrap_err();
    let mut chain = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        chain.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    assert!(chain.contains("certificate"), "{chain}");
    eventually("the server saw the attempt", || handshakes.lock().unwrap().0 == 1).await;
    assert_eq!(handshakes.lock().unwrap().1, 0, "no handshake completed");
}

/// An authorization server that cannot be reached (keys never fetched, introspection refused at
/// the socket) makes requests wait, not sign in again: `503` with `Retry-After`, not `401`.
#[tokio::test]
async fn an_unreachable_authorization_server_is_503_not_401() {
    let closed = {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        listener.local_addr().unwrap()
    };
    let jwks = JwtVerifier::from_jwks_url(format!("http://{closed}/jwks")).unwrap();
    let introspection = IntrospectionVerifier::new(
        format!("http://{closed}/introspect"),
        ClientCredentials::basic(CLIENT_ID, CLIENT_SECRET),
    )
    .unwrap();
    for address in [mcp_server(auth_config(jwks), None).await, mcp_server(auth_config(introspection), None).await] {
        let client = HttpClient::new(address).with_bearer(&token("k1"));
        let reply = client.post(&initialize()).await;
        assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(reply.header("retry-after").is_some());
        assert!(reply.header("www-authenticate").is_none(), "no challenge: the token was not refused");
    }
}
