//! Authorization over real sockets (feature `auth`): tokens signed here (HS256 with a shared
//! secret, RS256 with the fixed test key in `tests/data/`), the 401/403 challenges, the
//! protected-resource metadata, per-item scopes (tool calls, resource reads and subscriptions,
//! prompts, completion, and the lists), the caller's identity in tools, sessions bound to their
//! user (2025-11-25) and per-request tokens (2026-07-28).
#![cfg(feature = "auth")]

use hyper::{Method, StatusCode};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::{AuthConfig, AuthInfo, JwtKey, JwtVerifier};
use mcp_runtime::http::HttpConfig;
use mcp_runtime::prelude::*;
use mcp_tests::http::Reply;
use mcp_tests::{HttpClient, spec_2025_11_25, spec_2026_07_28};
use serde_json::{Value, json};
use std::net::SocketAddr;

const SECRET: &[u8] = b"http-auth-test-secret-of-32-bytes-or-more";
const ISSUER: &str = "https://auth.example.com";
const RESOURCE: &str = "https://mcp.example.com/mcp";
const METADATA_URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const RSA_PRIVATE: &[u8] = include_bytes!("../data/auth-test-rsa-private.pem");
const RSA_PUBLIC: &[u8] = include_bytes!("../data/auth-test-rsa-public.pem");

/// Who is calling, as the tool sees it.
#[mcp_tool]
fn whoami(caller: AuthInfo) -> String {
    format!("{} [{}] token:{}", caller.subject(), caller.scopes().join(" "), caller.token().len())
}

/// Anyone may call it; it says whether the caller is known.
#[mcp_tool]
fn maybe_whoami(caller: Option<AuthInfo>) -> String {
    caller.map_or_else(|| "anonymous".to_owned(), |c| c.subject().to_owned())
}

/// Writes (needs `files:write`).
#[mcp_tool(scopes = ["files:write"])]
fn write_file(path: String) -> String {
    format!("wrote {path}")
}

fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

fn claims(subject: &str, scope: &str) -> Value {
    json!({"iss": ISSUER, "aud": RESOURCE, "sub": subject, "exp": now() + 600, "iat": now(), "scope": scope})
}

fn hs256(claims: &Value) -> String {
    jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &EncodingKey::from_secret(SECRET).unwrap()).unwrap()
}

fn rs256(claims: &Value) -> String {
    let key = EncodingKey::from_rsa_pem(RSA_PRIVATE).unwrap();
    jsonwebtoken::encode(&Header::new(Algorithm::RS256), claims, &key).unwrap()
}

fn token(subject: &str, scope: &str) -> String {
    hs256(&claims(subject, scope))
}

fn auth_config(key: JwtKey) -> HttpConfig {
    let verifier = JwtVerifier::new(key).issuer(ISSUER);
    HttpConfig::default().auth(
        AuthConfig::new(verifier)
            .resource(RESOURCE)
            .authorization_server(ISSUER)
            .scopes(["files:read"])
            .resource_name("auth test"),
    )
}

async fn start_with(config: HttpConfig) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = server!().tools(tools![whoami, maybe_whoami, write_file]).into_http_service(config).unwrap();
    tokio::spawn(service.serve(listener, std::future::pending()));
    address
}

async fn start() -> SocketAddr {
    start_with(auth_config(JwtKey::hmac_secret(SECRET).unwrap())).await
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "auth-test", "version": "0"}}})
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// The parameters of a `WWW-Authenticate: Bearer k="v", ...` header.
fn challenge(reply: &Reply) -> Vec<(String, String)> {
    let header = reply.header("www-authenticate").expect("a WWW-Authenticate header");
    let params = header.strip_prefix("Bearer ").expect("the Bearer scheme");
    params
        .split("\", ")
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap();
            (name.to_owned(), value.trim_matches('"').to_owned())
        })
        .collect()
}

fn param<'a>(challenge: &'a [(String, String)], name: &str) -> Option<&'a str> {
    challenge.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

fn text_of(messages: &[Value]) -> String {
    let response = messages.last().unwrap();
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text result: {response}")).to_owned()
}

#[tokio::test]
async fn no_token_gets_401_pointing_to_the_metadata() {
    let address = start().await;
    let client = HttpClient::new(address);
    let reply = client.post(&initialize()).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    let challenge = challenge(&reply);
    assert_eq!(param(&challenge, "resource_metadata"), Some(METADATA_URL));
    assert_eq!(param(&challenge, "scope"), Some("files:read"));
    assert_eq!(param(&challenge, "error"), None);
    // A GET or DELETE without a token is refused the same way.
    let reply = client.send(Method::GET, "/mcp", &[("accept", "text/event-stream")], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    // Another scheme is no bearer token.
    let reply = client.post_with(&initialize(), &[("authorization", "Basic dXNlcjpwYXNz")]).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);

    // The metadata, at both well-known paths, needs no token.
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let reply = client.send(Method::GET, path, &[], Vec::new()).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.content_type(), "application/json");
        let metadata = reply.json().await;
        assert_eq!(
            metadata,
            json!({
                "resource": RESOURCE,
                "authorization_servers": [ISSUER],
                "scopes_supported": ["files:read"],
                "bearer_methods_supported": ["header"],
                "resource_name": "auth test",
            })
        );
    }
}

#[tokio::test]
async fn browsers_read_the_challenge_and_preflights_need_no_token() {
    let address =
        start_with(auth_config(JwtKey::hmac_secret(SECRET).unwrap()).allow_origin("https://app.example.com")).await;
    let client = HttpClient::new(address);
    let origin = "https://app.example.com";
    let preflight = [
        ("origin", origin),
        ("access-control-request-method", "POST"),
        ("access-control-request-headers", "authorization, content-type"),
    ];
    let reply = client.send(Method::OPTIONS, "/mcp", &preflight, Vec::new()).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
    assert!(reply.header("access-control-allow-headers").unwrap().contains("Authorization"));
    assert_eq!(reply.header("www-authenticate"), None);
    // The 401 is readable, its challenge too.
    let reply = client.post_with(&initialize(), &[("origin", origin)]).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
    assert!(reply.header("access-control-expose-headers").unwrap().contains("WWW-Authenticate"));
    assert_eq!(param(&challenge(&reply), "resource_metadata"), Some(METADATA_URL));
    // The metadata, which an app reads to find the authorization server.
    let path = "/.well-known/oauth-protected-resource/mcp";
    let reply = client.send(Method::OPTIONS, path, &preflight, Vec::new()).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    let reply = client.send(Method::GET, path, &[("origin", origin)], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
    assert_eq!(reply.header("vary"), Some("Origin"));
    // With a token, the page gets in.
    let token = token("alice", "files:read");
    let bearer = format!("Bearer {token}");
    let reply = client.post_with(&initialize(), &[("origin", origin), ("authorization", &bearer)]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
    assert!(reply.header("mcp-session-id").is_some());
    // Another origin: 403 before any token is looked at.
    let reply =
        client.post_with(&initialize(), &[("origin", "https://evil.example.com"), ("authorization", &bearer)]).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(reply.header("access-control-allow-origin"), None);
}

#[tokio::test]
async fn tokens_in_the_url_are_refused() {
    let client = HttpClient::new(start().await);
    let path = format!("/mcp?access_token={}", token("alice", "files:read"));
    let headers = [("accept", "application/json, text/event-stream"), ("content-type", "application/json")];
    let body = initialize().to_string().into_bytes();
    let reply = client.send(Method::POST, &path, &headers, body).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(param(&challenge(&reply), "error"), Some("invalid_request"));
}

#[tokio::test]
async fn bad_tokens_get_401_invalid_token() {
    let client = HttpClient::new(start().await);
    let mut expired = claims("alice", "files:read");
    expired["exp"] = json!(now() - 3600);
    let mut wrong_audience = claims("alice", "files:read");
    wrong_audience["aud"] = json!("https://other.example.com/mcp");
    let mut wrong_issuer = claims("alice", "files:read");
    wrong_issuer["iss"] = json!("https://evil.example.com");
    let mut not_yet = claims("alice", "files:read");
    not_yet["nbf"] = json!(now() + 3600);
    let bad_signature = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims("alice", "files:read"),
        &EncodingKey::from_secret(b"not the server's secret at all, no").unwrap(),
    )
    .unwrap();
    let cases = [
        (bad_signature, "invalid token signature"),
        (hs256(&expired), "the token has expired"),
        (hs256(&wrong_audience), "the token was not issued for this server"),
        (hs256(&wrong_issuer), "the token's issuer is not trusted"),
        (hs256(&not_yet), "the token is not valid yet"),
        // Signed with RS256 by a key the server does not trust for it.
        (rs256(&claims("alice", "files:read")), "no key for this token's algorithm or key id"),
        ("garbage".to_owned(), "malformed token"),
    ];
    for (token, reason) in cases {
        let reply = client.clone().with_bearer(&token).post(&initialize()).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{reason}");
        let challenge = challenge(&reply);
        assert_eq!(param(&challenge, "error"), Some("invalid_token"), "{reason}");
        assert_eq!(param(&challenge, "error_description"), Some(reason));
        assert_eq!(param(&challenge, "resource_metadata"), Some(METADATA_URL));
    }
}

#[tokio::test]
async fn a_session_serves_its_user_and_checks_scopes() {
    let address = start().await;
    let alice = token("alice", "files:read");
    let mut client = HttpClient::new(address).with_bearer(&alice);
    client.initialize().await;

    // The identity reaches the tool, raw token included.
    let messages = client.request(1, "tools/call", json!({"name": "whoami", "arguments": {}})).await;
    assert_eq!(text_of(&messages), format!("alice [files:read] token:{}", alice.len()));
    let messages = client.request(2, "tools/call", json!({"name": "maybe_whoami", "arguments": {}})).await;
    assert_eq!(text_of(&messages), "alice");

    // `write_file` needs `files:write`: it is not listed, and a call gets 403.
    let messages = client.request(3, "tools/list", json!({})).await;
    let names: Vec<&str> =
        messages[0]["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["whoami", "maybe_whoami"]);
    let reply = client.post(&call(4, "write_file", json!({"path": "a.txt"}))).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    let challenge = challenge(&reply);
    assert_eq!(param(&challenge, "error"), Some("insufficient_scope"));
    assert_eq!(param(&challenge, "scope"), Some("files:read files:write"));
    assert_eq!(param(&challenge, "resource_metadata"), Some(METADATA_URL));
    let body = reply.json().await;
    assert_eq!(body["id"], 4);
    assert!(body["error"]["message"].as_str().unwrap().contains("files:write"), "{body}");

    // Step-up: a new token with the scope, same user, same session.
    let stepped_up = client.clone().with_bearer(&token("alice", "files:read files:write"));
    let messages =
        stepped_up.request(5, "tools/call", json!({"name": "write_file", "arguments": {"path": "a.txt"}})).await;
    assert_eq!(text_of(&messages), "wrote a.txt");
    let messages = stepped_up.request(6, "tools/list", json!({})).await;
    assert_eq!(messages[0]["result"]["tools"].as_array().unwrap().len(), 3);

    // Another user's token cannot use alice's session, with any method.
    let mallory = client.clone().with_bearer(&token("mallory", "files:read files:write"));
    let reply = mallory.post(&call(7, "whoami", json!({}))).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    let reply = mallory.get(None).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    let reply = mallory.send(Method::DELETE, "/mcp", &[], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    // Without a token at all: 401, before the session is even looked at.
    let mut anonymous = client.clone();
    anonymous.default_headers.clear();
    assert_eq!(anonymous.post(&call(8, "whoami", json!({}))).await.status, StatusCode::UNAUTHORIZED);

    // Alice still can, and may end it.
    let messages = client.request(9, "tools/call", json!({"name": "whoami", "arguments": {}})).await;
    assert!(text_of(&messages).starts_with("alice "));
    let reply = client.send(Method::DELETE, "/mcp", &[], Vec::new()).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

fn stateless(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn post_stateless(client: &HttpClient, message: &Value) -> Reply {
    let mut headers = vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", message["method"].as_str().unwrap())];
    // The target the `Mcp-Name` header mirrors: a tool's or prompt's name, a resource's URI, a task's id.
    let params = &message["params"];
    if let Some(name) = params["name"].as_str().or(params["uri"].as_str()).or(params["taskId"].as_str()) {
        headers.push(("mcp-name", name));
    }
    client.post_with(message, &headers).await
}

#[tokio::test]
async fn stateless_requests_are_authenticated_one_by_one() {
    let address = start().await;
    let anonymous = HttpClient::new(address);
    let message = stateless(1, "tools/call", json!({"name": "whoami", "arguments": {}}));
    let reply = post_stateless(&anonymous, &message).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(param(&challenge(&reply), "resource_metadata"), Some(METADATA_URL));

    let bob = anonymous.clone().with_bearer(&token("bob", "files:read"));
    let reply = post_stateless(&bob, &message).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(text_of(&reply.messages().await).starts_with("bob [files:read]"));

    // Each request stands alone: another user's token is another caller.
    let carol = anonymous.clone().with_bearer(&token("carol", "files:read files:write"));
    let reply = post_stateless(&carol, &message).await;
    assert!(text_of(&reply.messages().await).starts_with("carol "));

    let write = stateless(2, "tools/call", json!({"name": "write_file", "arguments": {"path": "b"}}));
    let reply = post_stateless(&bob, &write).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(param(&challenge(&reply), "error"), Some("insufficient_scope"));
    let reply = post_stateless(&carol, &write).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(text_of(&reply.messages().await), "wrote b");

    let list = stateless(3, "tools/list", json!({}));
    let reply = post_stateless(&bob, &list).await;
    assert_eq!(reply.status, StatusCode::OK);
    let messages = reply.messages().await;
    assert_eq!(messages[0]["result"]["tools"].as_array().unwrap().len(), 2, "{messages:?}");
    assert_eq!(
        messages[0]["result"]["cacheScope"], "private",
        "a list filtered for its caller is not for shared caches"
    );
    spec_2026_07_28().assert_all_valid(&bob.transcript());
    spec_2026_07_28().assert_all_valid(&carol.transcript());
}

#[tokio::test]
async fn rs256_tokens_verify_with_the_public_key_or_a_jwks() {
    let address = start_with(auth_config(JwtKey::rsa_pem(RSA_PUBLIC).unwrap())).await;
    let mut client = HttpClient::new(address).with_bearer(&rs256(&claims("dana", "files:read")));
    client.initialize().await;
    let messages = client.request(1, "tools/call", json!({"name": "maybe_whoami", "arguments": {}})).await;
    assert_eq!(text_of(&messages), "dana");
    // An HS256 token cannot pass for an RS256 one (no algorithm confusion).
    let forged = client.clone().with_bearer(&hs256(&claims("dana", "files:read")));
    assert_eq!(forged.post(&initialize()).await.status, StatusCode::UNAUTHORIZED);

    // The same key as a JWKS entry, picked by `kid`.
    let jwk =
        jsonwebtoken::jwk::Jwk::from_encoding_key(&EncodingKey::from_rsa_pem(RSA_PRIVATE).unwrap(), Algorithm::RS256)
            .unwrap();
    let mut jwk = serde_json::to_value(jwk).unwrap();
    jwk["kid"] = json!("test-key");
    let jwks = json!({"keys": [jwk]}).to_string();
    let address = start_with(auth_config(JwtKey::jwks(&jwks).unwrap())).await;
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("test-key".into());
    let signed =
        jsonwebtoken::encode(&header, &claims("erin", "files:read"), &EncodingKey::from_rsa_pem(RSA_PRIVATE).unwrap())
            .unwrap();
    let mut client = HttpClient::new(address).with_bearer(&signed);
    client.initialize().await;
    let messages = client.request(1, "tools/call", json!({"name": "maybe_whoami", "arguments": {}})).await;
    assert_eq!(text_of(&messages), "erin");
}

/// A client-credentials token (no `sub`) for the client `client_id`.
fn machine_token(client_id: &str, scope: &str) -> String {
    let mut claims = claims("", scope);
    claims.as_object_mut().unwrap().remove("sub");
    claims["client_id"] = client_id.into();
    hs256(&claims)
}

#[tokio::test]
async fn a_client_named_like_a_user_is_not_that_user() {
    let address = start().await;
    let mut alice = HttpClient::new(address).with_bearer(&token("alice", "files:read"));
    alice.initialize().await;
    let machine = alice.clone().with_bearer(&machine_token("alice", "files:read files:write"));
    for reply in [
        machine.post(&call(1, "whoami", json!({}))).await,
        machine.get(None).await,
        machine.send(Method::DELETE, "/mcp", &[], Vec::new()).await,
    ] {
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "a machine token on alice's session");
    }
    let messages = alice.request(2, "tools/call", json!({"name": "whoami", "arguments": {}})).await;
    assert!(text_of(&messages).starts_with("alice "), "alice's session still serves her");

    // A session the machine starts is its own, and the user alice cannot use it.
    let mut own = HttpClient::new(address).with_bearer(&machine_token("alice", "files:read"));
    own.initialize().await;
    let messages = own.request(1, "tools/call", json!({"name": "maybe_whoami", "arguments": {}})).await;
    assert_eq!(text_of(&messages), "alice");
    let user = own.clone().with_bearer(&token("alice", "files:read"));
    assert_eq!(user.post(&call(2, "whoami", json!({}))).await.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn access_tokens_only_refuses_other_jwts() {
    let verifier = JwtVerifier::new(JwtKey::hmac_secret(SECRET).unwrap()).issuer(ISSUER).access_tokens_only();
    let config = HttpConfig::default().auth(AuthConfig::new(verifier).resource(RESOURCE).authorization_server(ISSUER));
    let address = start_with(config).await;
    let typed = |typ: &str| {
        let mut header = Header::new(Algorithm::HS256);
        header.typ = Some(typ.to_owned());
        jsonwebtoken::encode(&header, &claims("alice", "files:read"), &EncodingKey::from_secret(SECRET).unwrap())
            .unwrap()
    };
    let id_token = HttpClient::new(address).with_bearer(&typed("JWT"));
    let reply = id_token.post(&initialize()).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(param(&challenge(&reply), "error_description"), Some("not an access token (typ at+jwt)"));
    for typ in ["at+jwt", "application/at+jwt"] {
        let mut client = HttpClient::new(address).with_bearer(&typed(typ));
        client.initialize().await;
        let messages = client.request(1, "tools/call", json!({"name": "maybe_whoami", "arguments": {}})).await;
        assert_eq!(text_of(&messages), "alice", "{typ}");
    }
}

#[tokio::test]
async fn without_auth_the_identity_is_absent() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = server!().tools(tools![whoami, maybe_whoami, write_file]);
    tokio::spawn(server.serve_http_on(listener, std::future::pending()));
    let mut client = HttpClient::new(address);
    client.initialize().await;
    let messages = client.request(1, "tools/call", json!({"name": "maybe_whoami", "arguments": {}})).await;
    assert_eq!(text_of(&messages), "anonymous");
    let messages = client.request(2, "tools/call", json!({"name": "whoami", "arguments": {}})).await;
    let result = &messages.last().unwrap()["result"];
    assert_eq!(result["isError"], true);
    assert!(result["content"][0]["text"].as_str().unwrap().contains("authenticated caller"));
    // Scopes are not enforced without auth: the server is open to whoever reaches it.
    let messages = client.request(3, "tools/call", json!({"name": "write_file", "arguments": {"path": "c"}})).await;
    assert_eq!(text_of(&messages), "wrote c");
}

#[tokio::test]
async fn the_configuration_is_checked() {
    let verifier = || JwtVerifier::new(JwtKey::hmac_secret(SECRET).unwrap());
    let build = |auth: AuthConfig| server!().into_http_service(HttpConfig::default().auth(auth)).map(|_| ());
    assert!(
        build(AuthConfig::new(verifier()).authorization_server(ISSUER)).unwrap_err().to_string().contains("resource")
    );
    assert!(
        build(AuthConfig::new(verifier()).resource(RESOURCE)).unwrap_err().to_string().contains("authorization server")
    );
    assert!(build(AuthConfig::new(verifier()).resource("/mcp").authorization_server(ISSUER)).is_err());
    assert!(build(AuthConfig::new(verifier()).resource(RESOURCE).authorization_server(ISSUER)).is_ok());
}

/// Calls of `erase` that ran (only the test below serves it).
static ERASED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Erases everything (needs `files:write`).
#[mcp_tool(scopes = ["files:write"])]
fn erase() -> String {
    ERASED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    "erased".to_owned()
}

/// A `tools/call` whose `params` the transport's scope check and the engine once read two
/// ways (the transport's parse of an array failed and let the call through; the engine read
/// the array positionally and ran the tool). Every way JSON lets a body name the tool is
/// tried, in both eras, with a token that lacks the tool's scope: none may run it.
#[tokio::test]
async fn no_shape_of_params_runs_a_tool_the_token_lacks_the_scope_for() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = server!()
        .tools(tools![erase, whoami])
        .into_http_service(auth_config(JwtKey::hmac_secret(SECRET).unwrap()))
        .unwrap();
    tokio::spawn(service.serve(listener, std::future::pending()));

    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let smuggled = |params: &str| format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#);
    let shapes = [
        // Positional params, as JSON-RPC allows them.
        smuggled(r#"["erase", {}]"#),
        smuggled(r#"["erase", {}, null]"#),
        smuggled(r#"["erase"]"#),
        smuggled(&format!(r#"["erase", {{}}, {{{meta}}}]"#)),
        // The name twice, a harmless one first or last.
        smuggled(r#"{"name":"whoami","name":"erase","arguments":{}}"#),
        smuggled(r#"{"name":"erase","name":"whoami","arguments":{}}"#),
        // The name escaped, or not a string.
        smuggled(r#"{"name":"er\u0061se","arguments":{}}"#),
        smuggled(r#"{"name":["erase"],"arguments":{}}"#),
        // The method escaped.
        r#"{"jsonrpc":"2.0","id":7,"method":"tools\/call","params":{"name":"erase","arguments":{}}}"#.to_owned(),
        // The stateless era's shapes.
        smuggled(&format!(r#"{{"name":"erase","arguments":{{}},{meta}}}"#)),
        smuggled(&format!(r#"{{"name":"whoami","name":"erase",{meta}}}"#)),
    ];

    let reader = token("bob", "files:read");
    let mut session = HttpClient::new(address).with_bearer(&reader);
    session.initialize().await;
    let stateless_client = HttpClient::new(address).with_bearer(&reader);
    let stateless_headers =
        [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "erase")];
    let json = [("accept", "application/json, text/event-stream"), ("content-type", "application/json")];
    for body in &shapes {
        for (era, client, extra) in
            [("2025-11-25", &session, &[][..]), ("2026-07-28", &stateless_client, &stateless_headers[..])]
        {
            let headers: Vec<(&str, &str)> = json.iter().chain(extra).copied().collect();
            let reply = client.send(Method::POST, "/mcp", &headers, body.clone().into_bytes()).await;
            let status = reply.status;
            let text = String::from_utf8_lossy(&reply.bytes().await).into_owned();
            // Refused for its scopes, or answered with an error before any tool was looked up.
            let refused = status == StatusCode::FORBIDDEN || text.contains("\"error\":{\"code\":-326");
            assert!(refused, "{era}: {body} -> {status} {text}");
            assert!(!text.contains("\"erased\""), "{era}: {body} ran the tool: {text}");
        }
    }
    assert_eq!(ERASED.load(std::sync::atomic::Ordering::SeqCst), 0, "a call lacking the scope ran the tool");

    // The tool itself runs for a caller holding the scope.
    let writer = HttpClient::new(address).with_bearer(&token("carol", "files:read files:write"));
    let mut writer_session = writer.clone();
    writer_session.initialize().await;
    let messages = writer_session.request(1, "tools/call", json!({"name": "erase", "arguments": {}})).await;
    assert_eq!(text_of(&messages), "erased");
    assert_eq!(ERASED.load(std::sync::atomic::Ordering::SeqCst), 1);
}

/// Anyone may read it.
#[mcp_resource(uri = "notes://public")]
fn public_notes() -> String {
    "public notes".to_owned()
}

/// The administrator's notes (needs `notes:admin`).
#[mcp_resource(uri = "notes://admin", scopes = ["notes:admin"])]
fn admin_notes() -> String {
    "admin notes".to_owned()
}

/// Anyone's public page.
#[mcp_resource(uri = "pages://{id}")]
fn page(id: String) -> String {
    format!("page {id}")
}

/// A private note by id (needs `notes:admin`); its list and completions show ids.
#[mcp_resource(uri = "private://{id}", scopes = ["notes:admin"], list = private_ids, complete(id = secret_ids))]
fn private_note(id: String) -> String {
    format!("private note {id}")
}

fn private_ids() -> Vec<ResourceEntry> {
    vec![ResourceEntry::new("private://1", "first private note")]
}

fn secret_ids(request: CompletionRequest) -> Vec<String> {
    request.filter(["secret-1", "secret-2"])
}

/// Greets someone; anyone may get it.
#[mcp_prompt(complete(name = names))]
fn greet(name: String) -> String {
    format!("Greet {name}.")
}

fn names(request: CompletionRequest) -> Vec<String> {
    request.filter(["ada", "alan"])
}

/// Audits a topic (needs `notes:admin`).
#[mcp_prompt(scopes = ["notes:admin"], complete(topic = secret_ids))]
fn audit(topic: String) -> String {
    format!("Audit {topic}.")
}

/// The keys (`name`, `uri`, `uriTemplate`) of a list answer's items.
fn listed(messages: &[Value], field: &str, key: &str) -> Vec<String> {
    let items = messages.last().unwrap()["result"][field].as_array().unwrap_or_else(|| panic!("{messages:?}"));
    items.iter().map(|item| item[key].as_str().unwrap().to_owned()).collect()
}

/// Every request that acts on a scoped resource, template or prompt, as `(method, params,
/// the item the refusal names)`; `resources/subscribe` only in a session.
fn scoped_requests(session: bool) -> Vec<(&'static str, Value, &'static str)> {
    let complete =
        |reference: Value, argument: &str| json!({"ref": reference, "argument": {"name": argument, "value": "s"}});
    let mut requests = vec![
        ("resources/read", json!({"uri": "notes://admin"}), "resource `notes://admin`"),
        ("resources/read", json!({"uri": "private://7"}), "resource `private://7`"),
        ("prompts/get", json!({"name": "audit", "arguments": {"topic": "payroll"}}), "prompt `audit`"),
        ("completion/complete", complete(json!({"type": "ref/prompt", "name": "audit"}), "topic"), "prompt `audit`"),
        (
            "completion/complete",
            complete(json!({"type": "ref/resource", "uri": "private://{id}"}), "id"),
            "resource template `private://{id}`",
        ),
    ];
    if session {
        requests.push(("resources/subscribe", json!({"uri": "notes://admin"}), "resource `notes://admin`"));
        requests.push(("resources/subscribe", json!({"uri": "private://7"}), "resource `private://7`"));
    }
    requests
}

/// A refusal for lacking `notes:admin`, naming the item.
async fn assert_refused(reply: Reply, what: &str, era: &str) {
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{era}: {what}");
    let challenge = challenge(&reply);
    assert_eq!(param(&challenge, "error"), Some("insufficient_scope"), "{era}: {what}");
    assert_eq!(param(&challenge, "scope"), Some("files:read notes:admin"), "{era}: {what}");
    let body = reply.json().await;
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&format!("{what} needs the scopes: notes:admin")), "{era}: {body}");
}

async fn start_catalog() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = server!()
        .resources(resources![public_notes, admin_notes, page, private_note])
        .prompts(prompts![greet, audit])
        .into_http_service(auth_config(JwtKey::hmac_secret(SECRET).unwrap()))
        .unwrap();
    tokio::spawn(service.serve(listener, std::future::pending()));
    address
}

/// Resources, templates and prompts with `scopes` are refused (403 `insufficient_scope`, the
/// item named) to a session whose token lacks them: reads, subscriptions, gets and
/// completions; and are left out of its lists. A step-up token, same user and session, sees
/// and uses them all.
#[tokio::test]
async fn a_session_needs_the_scopes_of_resources_prompts_and_completions() {
    let address = start_catalog().await;
    let mut reader = HttpClient::new(address).with_bearer(&token("bob", "files:read"));
    reader.initialize().await;

    for (id, (method, params, what)) in (1..).zip(scoped_requests(true)) {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        assert_refused(reader.post(&message).await, what, "2025-11-25").await;
    }
    // A `ref` given twice is refused before either is looked up: the scope check and the
    // completion cannot read different ones.
    let twice = r#"{"jsonrpc":"2.0","id":20,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"ref":{"type":"ref/prompt","name":"audit"},"argument":{"name":"topic","value":"s"}}}"#;
    let json = [("accept", "application/json, text/event-stream"), ("content-type", "application/json")];
    let reply = reader.send(Method::POST, "/mcp", &json, twice.as_bytes().to_vec()).await;
    let text = String::from_utf8_lossy(&reply.bytes().await).into_owned();
    assert!(text.contains("\"code\":-32602") && !text.contains("secret-"), "{text}");

    // What it may see is listed; what it may not is not.
    let messages = reader.request(30, "resources/list", json!({})).await;
    assert_eq!(listed(&messages, "resources", "uri"), ["notes://public"]);
    let messages = reader.request(31, "resources/templates/list", json!({})).await;
    assert_eq!(listed(&messages, "resourceTemplates", "uriTemplate"), ["pages://{id}"]);
    let messages = reader.request(32, "prompts/list", json!({})).await;
    assert_eq!(listed(&messages, "prompts", "name"), ["greet"]);
    // And what needs no scope works.
    let messages = reader.request(33, "resources/read", json!({"uri": "pages://7"})).await;
    assert_eq!(messages.last().unwrap()["result"]["contents"][0]["text"], "page 7");
    let messages = reader.request(34, "resources/subscribe", json!({"uri": "notes://public"})).await;
    assert_eq!(messages.last().unwrap()["result"], json!({}));
    let complete = json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "a"}});
    let messages = reader.request(35, "completion/complete", complete).await;
    assert_eq!(messages.last().unwrap()["result"]["completion"]["values"], json!(["ada", "alan"]));

    // Step-up: the same user with `notes:admin`, in the same session.
    let admin = reader.clone().with_bearer(&token("bob", "files:read notes:admin"));
    for (id, (method, params, what)) in (40..).zip(scoped_requests(true)) {
        let messages = admin.request(id, method, params).await;
        assert!(messages.last().unwrap().get("result").is_some(), "{what}: {messages:?}");
    }
    let messages = admin.request(50, "resources/read", json!({"uri": "private://7"})).await;
    assert_eq!(messages.last().unwrap()["result"]["contents"][0]["text"], "private note 7");
    let messages = admin.request(51, "resources/list", json!({})).await;
    assert_eq!(listed(&messages, "resources", "uri"), ["notes://public", "notes://admin", "private://1"]);
    let messages = admin.request(52, "resources/templates/list", json!({})).await;
    assert_eq!(listed(&messages, "resourceTemplates", "uriTemplate"), ["pages://{id}", "private://{id}"]);
    let messages = admin.request(53, "prompts/list", json!({})).await;
    assert_eq!(listed(&messages, "prompts", "name"), ["greet", "audit"]);
    spec_2025_11_25().assert_all_valid(&admin.transcript());
}

/// The same refusals and lists for 2026-07-28 requests, each with its own token.
#[tokio::test]
async fn stateless_requests_need_the_scopes_of_resources_prompts_and_completions() {
    let address = start_catalog().await;
    let reader = HttpClient::new(address).with_bearer(&token("bob", "files:read"));
    let admin = HttpClient::new(address).with_bearer(&token("carol", "files:read notes:admin"));
    for (id, (method, params, what)) in (1..).zip(scoped_requests(false)) {
        let message = stateless(id, method, params);
        assert_refused(post_stateless(&reader, &message).await, what, "2026-07-28").await;
        let reply = post_stateless(&admin, &message).await;
        assert_eq!(reply.status, StatusCode::OK, "{what}");
        let messages = reply.messages().await;
        assert!(messages.last().unwrap().get("result").is_some(), "{what}: {messages:?}");
    }
    for (client, resources, templates, prompts) in [
        (&reader, &["notes://public"][..], &["pages://{id}"][..], &["greet"][..]),
        (
            &admin,
            &["notes://public", "notes://admin", "private://1"][..],
            &["pages://{id}", "private://{id}"][..],
            &["greet", "audit"][..],
        ),
    ] {
        let messages = post_stateless(client, &stateless(20, "resources/list", json!({}))).await.messages().await;
        assert_eq!(listed(&messages, "resources", "uri"), resources);
        let messages =
            post_stateless(client, &stateless(21, "resources/templates/list", json!({}))).await.messages().await;
        assert_eq!(listed(&messages, "resourceTemplates", "uriTemplate"), templates);
        let messages = post_stateless(client, &stateless(22, "prompts/list", json!({}))).await.messages().await;
        assert_eq!(listed(&messages, "prompts", "name"), prompts);
    }
    spec_2026_07_28().assert_all_valid(&reader.transcript());
    spec_2026_07_28().assert_all_valid(&admin.transcript());
}

/// A yes/no form.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Deletes a file once the user confirms (a task: it asks after its first wait).
#[mcp_tool(task = "optional")]
async fn confirm_delete(file: String, ctx: Context) -> Result<String, mcp_runtime::ClientError> {
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    match ctx.input("confirm").elicit::<Confirm>(format!("Delete {file}?")).await? {
        mcp_runtime::Elicitation::Accept(Confirm { confirm: true }) => Ok(format!("Deleted {file}")),
        _ => Ok(format!("Kept {file}")),
    }
}

/// The admins' report (a task, for callers with the `admin` scope).
#[mcp_tool(task = "optional", scopes = ["admin"])]
async fn admin_report() -> &'static str {
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    "the admins' report"
}

async fn start_tasks() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let config = auth_config(JwtKey::hmac_secret(SECRET).unwrap());
    let service = server!().tools(tools![confirm_delete, admin_report]).into_http_service(config).unwrap();
    tokio::spawn(service.serve(listener, std::future::pending()));
    address
}

/// A 2026-07-28 request of a client that supports tasks and elicitation.
fn task_request(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The one message a stateless request is answered with.
async fn answer(client: &HttpClient, id: i64, method: &str, params: Value) -> Value {
    let reply = post_stateless(client, &task_request(id, method, params)).await;
    reply.messages().await.pop().expect("an answer")
}

/// Polls task `task` as `client` until its status is `status`.
async fn task_until(client: &HttpClient, task: &str, status: &str) -> Value {
    let mut detail = Value::Null;
    for id in 0..400 {
        detail = answer(client, 1000 + id, "tasks/get", json!({"taskId": task})).await;
        if detail["result"]["status"] == status {
            return detail["result"].clone();
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("task {task} never reached {status}: {detail}");
}

fn accept(confirm: bool) -> Value {
    json!({"confirm": {"action": "accept", "content": {"confirm": confirm}}})
}

#[tokio::test]
async fn a_task_is_its_callers_alone() {
    let address = start_tasks().await;
    let alice = HttpClient::new(address).with_bearer(&token("alice", "files:read"));
    let mallory = HttpClient::new(address).with_bearer(&token("mallory", "files:read"));
    let call = json!({"name": "confirm_delete", "arguments": {"file": "victim.txt"}});
    let handle = answer(&alice, 1, "tools/call", call.clone()).await;
    let task = handle["result"]["taskId"].as_str().unwrap_or_else(|| panic!("a task: {handle}")).to_owned();
    task_until(&alice, &task, "input_required").await;

    // Another user, knowing the id, finds nothing: no result to read, no task to cancel, no
    // question to answer in alice's place.
    for (id, method, params) in [
        (2, "tasks/get", json!({"taskId": task})),
        (3, "tasks/update", json!({"taskId": task, "inputResponses": accept(true)})),
        (4, "tasks/cancel", json!({"taskId": task})),
    ] {
        let refused = answer(&mallory, id, method, params).await;
        assert_eq!(refused["error"]["code"], -32602, "{method}: {refused}");
        assert!(refused["error"]["message"].as_str().unwrap().starts_with("Unknown task"), "{refused}");
    }

    // Nor does a listen stream show it to her: mallory listens to alice's task and her own;
    // alice's ends first, yet mallory's stream tells only of her own.
    let mine = answer(&mallory, 5, "tools/call", call).await["result"]["taskId"].as_str().unwrap().to_owned();
    task_until(&mallory, &mine, "input_required").await;
    let listen = task_request(6, "subscriptions/listen", json!({"notifications": {"taskIds": [task, mine]}}));
    let mut stream = post_stateless(&mallory, &listen).await.events();
    let ack = stream.next_message().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");

    let answered = answer(&alice, 7, "tasks/update", json!({"taskId": task, "inputResponses": accept(false)})).await;
    assert_eq!(answered["result"]["resultType"], "complete", "{answered}");
    let done = task_until(&alice, &task, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "Kept victim.txt", "alice's answer, not mallory's");
    answer(&mallory, 8, "tasks/update", json!({"taskId": mine, "inputResponses": accept(true)})).await;
    loop {
        let notification = stream.next_message().await.expect("the stream goes on");
        assert_eq!(notification["method"], "notifications/tasks", "{notification}");
        assert_eq!(notification["params"]["taskId"], mine, "only mallory's own task: {notification}");
        if notification["params"]["status"] == "completed" {
            break;
        }
    }
}

#[tokio::test]
async fn reading_a_task_needs_the_scopes_its_tool_needed() {
    let address = start_tasks().await;
    let admin = HttpClient::new(address).with_bearer(&token("alice", "files:read admin"));
    let handle = answer(&admin, 1, "tools/call", json!({"name": "admin_report", "arguments": {}})).await;
    let task = handle["result"]["taskId"].as_str().unwrap_or_else(|| panic!("a task: {handle}")).to_owned();
    let done = task_until(&admin, &task, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "the admins' report");

    // The same user with a token that lacks `admin` cannot read what needed it.
    let plain = HttpClient::new(address).with_bearer(&token("alice", "files:read"));
    let refused = answer(&plain, 2, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

#[tokio::test]
async fn a_listen_stream_honours_only_the_resources_its_caller_may_read() {
    let address = start_catalog().await;
    let listen = |id| {
        let uris = ["notes://admin", "private://7", "pages://1", "notes://public"];
        stateless(id, "subscriptions/listen", json!({"notifications": {"resourceSubscriptions": uris}}))
    };
    for (token, honoured) in [
        (token("bob", "files:read"), json!(["pages://1", "notes://public"])),
        (
            token("carol", "files:read notes:admin"),
            json!(["notes://admin", "private://7", "pages://1", "notes://public"]),
        ),
    ] {
        let client = HttpClient::new(address).with_bearer(&token);
        let mut stream = post_stateless(&client, &listen(1)).await.events();
        let ack = stream.next_message().await.unwrap();
        assert_eq!(ack["params"]["notifications"]["resourceSubscriptions"], honoured, "{ack}");
    }
}
