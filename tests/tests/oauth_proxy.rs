//! The authorization-server façade (feature `oauth-proxy`) over real sockets, its upstream a
//! small OpenID provider in this process (`mcp_tests::fake_idp`), every request plain HTTP: the
//! whole sign-in (registration, `/oauth/authorize`, the upstream's login, the consent form, our
//! code, our tokens), the upstream identity in a tool, refresh and revocation; then the attacks,
//! each refused by the defence named in its test.
#![cfg(feature = "oauth-proxy")]

use base64::Engine as _;
use hyper::{Method, StatusCode};
use mcp_runtime::auth::AuthInfo;
use mcp_runtime::http::HttpConfig;
use mcp_runtime::oauth_proxy::{OAuthProxy, Upstream};
use mcp_runtime::prelude::*;
use mcp_tests::HttpClient;
use mcp_tests::fake_idp::{self, FakeIdp, form_value};
use mcp_tests::http::Reply;
use serde_json::{Value, json};
use sha2::Digest as _;
use std::net::SocketAddr;
use std::sync::Arc;

const REDIRECT: &str = "http://127.0.0.1:9999/cb";
const VERIFIER: &str = "a-pkce-verifier-of-the-mcp-client-0123456789abcdef";

/// The caller, as the tool sees it.
#[mcp_tool]
fn whoami(caller: AuthInfo) -> String {
    let login = caller.claim("preferred_username").and_then(Value::as_str).unwrap_or("-");
    format!(
        "{login} ({}) upstream token held: {}",
        caller.subject(),
        caller.upstream_token() == Some(fake_idp::UPSTREAM_TOKEN)
    )
}

struct Rig {
    idp: Arc<FakeIdp>,
    address: SocketAddr,
    http: HttpClient,
}

impl Rig {
    async fn start() -> Self {
        Self::start_with(|proxy| proxy).await
    }

    async fn start_with(configure: impl FnOnce(OAuthProxy) -> OAuthProxy) -> Self {
        let idp = Arc::new(FakeIdp::start().await);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let proxy = configure(proxy_for(&idp, &format!("http://{address}")));
        Self::serve(idp, listener, proxy)
    }

    /// The server with `proxy` on `listener`.
    fn serve(idp: Arc<FakeIdp>, listener: tokio::net::TcpListener, proxy: OAuthProxy) -> Self {
        let address = listener.local_addr().unwrap();
        let service =
            server!().tools(tools![whoami]).into_http_service(HttpConfig::default().oauth_proxy(proxy)).unwrap();
        tokio::spawn(service.serve(listener, std::future::pending()));
        Self { idp, address, http: HttpClient::new(address) }
    }

    fn issuer(&self) -> String {
        format!("http://{}", self.address)
    }

    async fn get(&self, path: &str) -> Reply {
        self.http.send(Method::GET, path, &[], Vec::new()).await
    }

    async fn post_form(&self, path: &str, form: &[(&str, &str)], headers: &[(&str, &str)]) -> Reply {
        let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        let mut all = vec![("content-type", "application/x-www-form-urlencoded")];
        all.extend_from_slice(headers);
        self.http.send(Method::POST, path, &all, body.into_bytes()).await
    }

    /// A public client (PKCE alone) registered with these redirect URIs.
    async fn register(&self, redirects: &[&str]) -> String {
        let body =
            json!({"redirect_uris": redirects, "token_endpoint_auth_method": "none", "client_name": "Test client"});
        let reply = self
            .http
            .send(
                Method::POST,
                "/oauth/register",
                &[("content-type", "application/json")],
                body.to_string().into_bytes(),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED);
        reply.json().await["client_id"].as_str().unwrap().to_owned()
    }

    /// `/oauth/authorize` with a valid request for `client`, changed by `extra` (a value of ""
    /// leaves the parameter out).
    async fn authorize(&self, client: &str, extra: &[(&str, &str)]) -> Reply {
        self.get(&authorize_path(client, extra)).await
    }

    /// The upstream's login for the Location an `/oauth/authorize` answered with: the path of
    /// our callback the provider sends the browser back to.
    async fn upstream_login(&self, authorize: &Reply) -> String {
        assert_eq!(authorize.status, StatusCode::SEE_OTHER, "{:?}", authorize.headers);
        let location = authorize.header("location").unwrap();
        let path = location.strip_prefix(&self.idp.issuer()).expect("a redirect to the upstream");
        let reply = HttpClient::new(self.idp.address()).send(Method::GET, path, &[], Vec::new()).await;
        assert_eq!(reply.status, StatusCode::FOUND);
        reply.header("location").unwrap().strip_prefix(&self.issuer()).expect("back to the façade").to_owned()
    }

    /// The consent page the callback shows: its page id, CSRF token and browser cookie.
    async fn consent_page(&self, callback: &str) -> (String, String, String) {
        Self::read_consent_page(self.get(callback).await).await
    }

    async fn read_consent_page(reply: Reply) -> (String, String, String) {
        assert_eq!(reply.status, StatusCode::OK);
        let cookie = reply.header("set-cookie").unwrap().split(';').next().unwrap().to_owned();
        let page = String::from_utf8(reply.bytes().await).unwrap();
        assert!(page.contains("Test client") && page.contains("127.0.0.1") && page.contains(fake_idp::LOGIN), "{page}");
        (form_value(&page, "page"), form_value(&page, "csrf"), cookie)
    }

    /// The whole sign-in for `client`: the code our redirect carries (through the consent page
    /// unless the user already consented).
    async fn sign_in(&self, client: &str) -> String {
        let location = self.idp.sign_in_through(self.address, &authorize_path(client, &[])).await;
        code_in(&location)
    }

    async fn token(&self, form: &[(&str, &str)]) -> (StatusCode, Value) {
        let reply = self.post_form("/oauth/token", form, &[]).await;
        let status = reply.status;
        if status == StatusCode::OK {
            assert_eq!(reply.header("cache-control"), Some("no-store"));
        }
        (status, reply.json().await)
    }

    async fn redeem(&self, client: &str, code: &str) -> (StatusCode, Value) {
        self.token(&[
            ("grant_type", "authorization_code"),
            ("client_id", client),
            ("code", code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
        ])
        .await
    }

    async fn refresh(&self, client: &str, refresh_token: &str) -> (StatusCode, Value) {
        self.token(&[("grant_type", "refresh_token"), ("client_id", client), ("refresh_token", refresh_token)]).await
    }

    /// The `whoami` tool called with `token`, or the HTTP status that refused it.
    async fn whoami(&self, token: &str) -> Result<String, StatusCode> {
        let mut client = self.http.clone().with_bearer(token);
        let reply = client
            .post(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
            .await;
        if reply.status != StatusCode::OK {
            return Err(reply.status);
        }
        client.session = reply.header("mcp-session-id").map(str::to_owned);
        drop(reply);
        client.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        let answers = client.request(2, "tools/call", json!({"name": "whoami", "arguments": {}})).await;
        Ok(answers.last().unwrap()["result"]["content"][0]["text"].as_str().unwrap().to_owned())
    }
}

/// A façade at `public_url` signing users in at `idp`.
fn proxy_for(idp: &FakeIdp, public_url: &str) -> OAuthProxy {
    let upstream = Upstream::oidc(idp.issuer(), fake_idp::CLIENT_ID, fake_idp::CLIENT_SECRET);
    OAuthProxy::new(upstream, public_url).unwrap().scopes(["mcp"])
}

fn s256(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()))
}

/// The path and query of a valid authorization request for `client`, changed by `extra` (a
/// value of "" leaves the parameter out).
fn authorize_path(client: &str, extra: &[(&str, &str)]) -> String {
    let challenge = s256(VERIFIER);
    let mut params = vec![
        ("response_type", "code"),
        ("client_id", client),
        ("redirect_uri", REDIRECT),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("state", "client-state"),
    ];
    for (name, value) in extra {
        params.retain(|(n, _)| n != name);
        if !value.is_empty() {
            params.push((name, value));
        }
    }
    format!("/oauth/authorize?{}", form_urlencoded::Serializer::new(String::new()).extend_pairs(&params).finish())
}

/// The query parameters of a redirect to the client.
fn redirect_params(reply: &Reply) -> std::collections::HashMap<String, String> {
    assert_eq!(reply.status, StatusCode::SEE_OTHER, "{:?}", reply.headers);
    let location = reply.header("location").unwrap();
    let query =
        location.strip_prefix(&format!("{REDIRECT}?")).unwrap_or_else(|| panic!("not to the client: {location}"));
    form_urlencoded::parse(query.as_bytes()).into_owned().collect()
}

/// The code of a redirect to the client at `location`.
fn code_in(location: &str) -> String {
    let query =
        location.strip_prefix(&format!("{REDIRECT}?")).unwrap_or_else(|| panic!("not to the client: {location}"));
    let params: std::collections::HashMap<String, String> =
        form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    assert_eq!(params.get("state").map(String::as_str), Some("client-state"));
    params.get("code").unwrap_or_else(|| panic!("no code: {params:?}")).clone()
}

fn code_of(reply: &Reply) -> String {
    assert_eq!(reply.status, StatusCode::SEE_OTHER, "{:?}", reply.headers);
    code_in(reply.header("location").unwrap())
}

/// An error page: no redirect at all.
async fn assert_error_page(reply: Reply, status: StatusCode) -> String {
    assert_eq!(reply.status, status, "{:?}", reply.headers);
    assert!(reply.header("location").is_none(), "an error must not redirect: {:?}", reply.headers);
    String::from_utf8(reply.bytes().await).unwrap()
}

#[tokio::test]
async fn metadata_points_clients_at_the_facade() {
    let rig = Rig::start().await;
    let metadata = rig.get("/.well-known/oauth-authorization-server").await.json().await;
    assert_eq!(metadata["issuer"], rig.issuer());
    assert_eq!(metadata["authorization_endpoint"], format!("{}/oauth/authorize", rig.issuer()));
    assert_eq!(metadata["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(metadata["client_id_metadata_document_supported"], true);
    let resource = rig.get("/.well-known/oauth-protected-resource/mcp").await.json().await;
    assert_eq!(resource["authorization_servers"], json!([rig.issuer()]));
    assert_eq!(resource["resource"], format!("{}/mcp", rig.issuer()));
    let keys = rig.get("/oauth/jwks").await.json().await;
    assert_eq!(keys["keys"][0]["alg"], "ES256");
}

#[tokio::test]
async fn a_user_signs_in_upstream_and_tools_see_who() {
    let rig = Rig::start().await;
    let client = rig.register(&[REDIRECT]).await;
    let code = rig.sign_in(&client).await;
    let (status, tokens) = rig.redeem(&client, &code).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    assert!(!tokens.to_string().contains(fake_idp::UPSTREAM_TOKEN), "the upstream token reached the client");
    let access = tokens["access_token"].as_str().unwrap();
    let payload = access.split('.').nth(1).unwrap();
    let claims: Value =
        serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    assert_eq!(claims["aud"], format!("{}/mcp", rig.issuer()), "RFC 8707: the token is for this resource");
    assert_eq!(claims["sub"], fake_idp::SUBJECT);
    let seen = rig.whoami(access).await.unwrap();
    assert_eq!(seen, format!("{} ({}) upstream token held: true", fake_idp::LOGIN, fake_idp::SUBJECT));

    // Consent is remembered for this client and user: the next sign-in skips the page.
    let callback = rig.upstream_login(&rig.authorize(&client, &[]).await).await;
    let code = code_of(&rig.get(&callback).await);

    let (status, refreshed) = rig.refresh(&client, tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    assert!(rig.whoami(refreshed["access_token"].as_str().unwrap()).await.is_ok());

    // Revoking the refresh token ends the grant: its access token is refused at once.
    let revoke = [("client_id", client.as_str()), ("token", refreshed["refresh_token"].as_str().unwrap())];
    assert_eq!(rig.post_form("/oauth/revoke", &revoke, &[]).await.status, StatusCode::OK);
    assert_eq!(rig.whoami(refreshed["access_token"].as_str().unwrap()).await, Err(StatusCode::UNAUTHORIZED));
    // A grant from another sign-in stands.
    let (status, other) = rig.redeem(&client, &code).await;
    assert_eq!(status, StatusCode::OK);
    assert!(rig.whoami(other["access_token"].as_str().unwrap()).await.is_ok());
}

/// One-time codes bound to their client: a replay is refused and revokes what the code gave;
/// another client cannot redeem it.
#[tokio::test]
async fn a_code_is_used_once_by_its_own_client() {
    let rig = Rig::start().await;
    let client = rig.register(&[REDIRECT]).await;
    let code = rig.sign_in(&client).await;
    let (status, tokens) = rig.redeem(&client, &code).await;
    assert_eq!(status, StatusCode::OK);
    let (status, refused) = rig.redeem(&client, &code).await;
    assert_eq!((status, refused["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")));
    assert_eq!(rig.whoami(tokens["access_token"].as_str().unwrap()).await, Err(StatusCode::UNAUTHORIZED));

    let thief = rig.register(&[REDIRECT]).await;
    let code = rig.sign_in(&client).await;
    let (status, refused) = rig.redeem(&thief, &code).await;
    assert_eq!((status, refused["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")));
}

/// PKCE S256 is required: no challenge, `plain`, or a wrong verifier are refused.
#[tokio::test]
async fn pkce_is_required_and_only_s256() {
    let rig = Rig::start().await;
    let client = rig.register(&[REDIRECT]).await;
    let missing = redirect_params(&rig.authorize(&client, &[("code_challenge", "")]).await);
    assert_eq!(missing["error"], "invalid_request");
    // A plain challenge of a length an S256 one has, so only the method refuses it.
    let plain_challenge = "p".repeat(43);
    let plain = [("code_challenge", plain_challenge.as_str()), ("code_challenge_method", "plain")];
    let plain = redirect_params(&rig.authorize(&client, &plain).await);
    assert_eq!(plain["error"], "invalid_request");
    assert_eq!(plain["state"], "client-state");

    let code = rig.sign_in(&client).await;
    let form = [
        ("grant_type", "authorization_code"),
        ("client_id", client.as_str()),
        ("code", code.as_str()),
        ("redirect_uri", REDIRECT),
        ("code_verifier", "another-verifier-of-the-right-length-0123456789abcdef"),
    ];
    let (status, refused) = rig.token(&form).await;
    assert_eq!((status, refused["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")));
}

/// The redirect URI must be one registered, exactly: only a loopback port may differ
/// (RFC 8252); anything else is an error page, never a redirect (no open redirect).
#[tokio::test]
async fn redirect_uris_match_exactly_but_for_a_loopback_port() {
    let rig = Rig::start().await;
    let client = rig.register(&[REDIRECT]).await;
    for other in [
        "http://127.0.0.1:9999/other",
        "https://127.0.0.1:9999/cb",
        "http://127.0.0.1:9999/cb#fragment",
        "http://evil.example/cb",
    ] {
        assert_error_page(rig.authorize(&client, &[("redirect_uri", other)]).await, StatusCode::BAD_REQUEST).await;
    }
    let another_port = rig.authorize(&client, &[("redirect_uri", "http://127.0.0.1:40123/cb")]).await;
    assert!(another_port.header("location").unwrap().starts_with(&rig.idp.issuer()));

    let registered = json!({"redirect_uris": ["http://evil.example/cb"], "token_endpoint_auth_method": "none"});
    let reply = rig.http.send(Method::POST, "/oauth/register", &[], registered.to_string().into_bytes()).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json().await["error"], "invalid_redirect_uri");
}

/// Errors before the client and its redirect URI are known good never redirect anywhere.
#[tokio::test]
async fn the_error_path_is_no_open_redirect() {
    let rig = Rig::start().await;
    let evil = [("redirect_uri", "https://evil.example/phish"), ("response_type", "token")];
    assert_error_page(rig.authorize("no-such-client", &evil).await, StatusCode::BAD_REQUEST).await;
    let client = rig.register(&[REDIRECT]).await;
    assert_error_page(rig.authorize(&client, &evil).await, StatusCode::BAD_REQUEST).await;
    // With a good redirect URI, the error goes back to the client.
    assert_eq!(
        redirect_params(&rig.authorize(&client, &[("response_type", "token")]).await)["error"],
        "unsupported_response_type"
    );
}

/// The upstream's answer continues a sign-in only with a `state` the façade issued, once.
#[tokio::test]
async fn the_upstream_state_is_checked_and_used_once() {
    let rig = Rig::start().await;
    let client = rig.register(&[REDIRECT]).await;
    let callback = rig.upstream_login(&rig.authorize(&client, &[]).await).await;
    let without_state: String = callback.split('&').filter(|p| !p.starts_with("state=")).collect::<Vec<_>>().join("&");
    assert!(!without_state.contains("state="));
    assert_error_page(rig.get(&without_state).await, StatusCode::BAD_REQUEST).await;
    let forged = format!("{without_state}&state=forged");
    assert_error_page(rig.get(&forged).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(rig.get(&callback).await.status, StatusCode::OK);
    assert_error_page(rig.get(&callback).await, StatusCode::BAD_REQUEST).await;
}

/// A refresh token used again after its rotation revokes the whole family.
#[tokio::test]
async fn a_reused_refresh_token_revokes_its_family() {
    let rig = Rig::start().await;
    let client = rig.register(&[REDIRECT]).await;
    let (_, first) = rig.redeem(&client, &rig.sign_in(&client).await).await;
    let (status, second) = rig.refresh(&client, first["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    let (status, refused) = rig.refresh(&client, first["refresh_token"].as_str().unwrap()).await;
    assert_eq!((status, refused["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_grant")));
    let (status, _) = rig.refresh(&client, second["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "the newest refresh token of the family is revoked too");
    assert_eq!(rig.whoami(second["access_token"].as_str().unwrap()).await, Err(StatusCode::UNAUTHORIZED));
}

/// Tokens are only for this server's resource (RFC 8707).
#[tokio::test]
async fn no_token_is_minted_for_another_resource() {
    let rig = Rig::start().await;
    let client = rig.register(&[REDIRECT]).await;
    let other = [("resource", "https://other.example/mcp")];
    assert_eq!(redirect_params(&rig.authorize(&client, &other).await)["error"], "invalid_target");
    let code = rig.sign_in(&client).await;
    let form = [
        ("grant_type", "authorization_code"),
        ("client_id", client.as_str()),
        ("code", code.as_str()),
        ("redirect_uri", REDIRECT),
        ("code_verifier", VERIFIER),
        ("resource", "https://other.example/mcp"),
    ];
    let (status, refused) = rig.token(&form).await;
    assert_eq!((status, refused["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_target")));
}

/// The consent form counts only with its CSRF token, from the browser it was shown to.
#[tokio::test]
async fn consent_cannot_be_forged() {
    let rig = Rig::start().await;
    let client = rig.register(&[REDIRECT]).await;
    let callback = rig.upstream_login(&rig.authorize(&client, &[]).await).await;
    let (page, csrf, cookie) = rig.consent_page(&callback).await;
    let no_csrf = [("page", page.as_str()), ("decision", "allow")];
    assert_error_page(rig.post_form("/oauth/consent", &no_csrf, &[("cookie", &cookie)]).await, StatusCode::FORBIDDEN)
        .await;
    let form = [("page", page.as_str()), ("csrf", csrf.as_str()), ("decision", "allow")];
    assert_error_page(rig.post_form("/oauth/consent", &form, &[]).await, StatusCode::FORBIDDEN).await;
    // The page survives the forgeries: its own form still works.
    let code = code_of(&rig.post_form("/oauth/consent", &form, &[("cookie", &cookie)]).await);
    assert_eq!(rig.redeem(&client, &code).await.0, StatusCode::OK);
}

/// A Client ID Metadata Document is never fetched from a private address (unless allowed), and
/// one too large is refused.
#[tokio::test]
async fn client_metadata_documents_are_fetched_safely() {
    let rig = Rig::start().await;
    let document =
        |url: &str| json!({"client_id": url, "client_name": "Doc client", "redirect_uris": [REDIRECT]}).to_string();
    let url = format!("{}/client.json", rig.idp.issuer());
    rig.idp.publish("/client.json", document(&url));
    let page = assert_error_page(rig.authorize(&url, &[]).await, StatusCode::BAD_REQUEST).await;
    assert!(page.contains("https URL"), "{page}");
    assert!(!rig.idp.paths().contains(&"/client.json".to_owned()), "a private address was fetched");
    // Over https to a loopback address: refused before any connection is made.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let https = format!("https://{}/client.json", listener.local_addr().unwrap());
    assert_error_page(rig.authorize(&https, &[]).await, StatusCode::BAD_REQUEST).await;
    let connected = tokio::time::timeout(std::time::Duration::from_millis(200), listener.accept()).await;
    assert!(connected.is_err(), "the server connected to a private address");

    let allowed = Rig::start_with(OAuthProxy::allow_private_metadata_addresses).await;
    let url = format!("{}/client.json", allowed.idp.issuer());
    allowed.idp.publish("/client.json", document(&url));
    let reply = allowed.authorize(&url, &[]).await;
    assert!(reply.header("location").unwrap().starts_with(&allowed.idp.issuer()), "{:?}", reply.headers);
    let large = format!("{}/large.json", allowed.idp.issuer());
    let padded = json!({"client_id": large, "redirect_uris": [REDIRECT], "padding": "x".repeat(64 * 1024)});
    allowed.idp.publish("/large.json", padded.to_string());
    let page = assert_error_page(allowed.authorize(&large, &[]).await, StatusCode::BAD_REQUEST).await;
    assert!(page.contains("over"), "{page}");
}

/// An identity provider that is down is `503` with `Retry-After`, not an authorization failure.
#[tokio::test]
async fn an_upstream_outage_is_503() {
    let rig = Rig::start().await;
    let client = rig.register(&[REDIRECT]).await;
    rig.idp.set_down(true);
    let reply = rig.authorize(&client, &[]).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(reply.header("retry-after").is_some());
    rig.idp.set_down(false);
    let callback = rig.upstream_login(&rig.authorize(&client, &[]).await).await;
    rig.idp.set_down(true);
    let reply = rig.get(&callback).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(reply.header("retry-after").is_some());
}

/// Two replicas behind one URL, sharing a `RedisProxyStore` and one signing key: a code issued
/// by one is redeemed at the other, and a refresh token rotated at one and reused at the other
/// revokes the grant for both (needs redis-server: feature `services`).
#[cfg(feature = "services")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_sign_ins_through_redis() {
    use mcp_runtime::SessionStore;
    use mcp_runtime::oauth_proxy::RedisProxyStore;
    let redis = mcp_tests::cluster::Redis::start();
    let store = SessionStore::redis(&redis.url()).unwrap();
    let idp = Arc::new(FakeIdp::start().await);
    let (one, two) = (
        tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap(),
        tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap(),
    );
    // Both answer for the first one's URL, as replicas behind a load balancer do; each has a
    // store of its own on the same Redis, and they share the signing key.
    let proxy = proxy_for(&idp, &format!("http://{}", one.local_addr().unwrap()));
    let one = Rig::serve(Arc::clone(&idp), one, proxy.clone().store(RedisProxyStore::new(&store).unwrap()));
    let two = Rig::serve(idp, two, proxy.store(RedisProxyStore::new(&store).unwrap()));

    let client = one.register(&[REDIRECT]).await;
    let code = one.sign_in(&client).await;
    let (status, tokens) = two.redeem(&client, &code).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    assert!(two.whoami(tokens["access_token"].as_str().unwrap()).await.is_ok());
    let (status, rotated) = two.refresh(&client, tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = one.refresh(&client, tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "the reuse is seen by the other replica");
    assert_eq!(two.whoami(rotated["access_token"].as_str().unwrap()).await, Err(StatusCode::UNAUTHORIZED));
}
