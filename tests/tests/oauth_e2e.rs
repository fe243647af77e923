//! The MCP authorization flow end to end, every part real (`mcp_tests::oidc`): panva's
//! `oidc-provider` as the authorization server, `examples/auth-server` trusting it, headless
//! Chromium as the user who signs in, and the official Python SDK's OAuth client
//! (`tests/python/oauth_client.py`, `mcp==2.3.0`) as one client, `cargo mcp login` then
//! `cargo mcp call` (our own client, `mcp_runtime::client::oauth`) as the other. `scripts/oidc.sh`,
//! `scripts/services.sh` and `scripts/python-env.sh` install what it runs.
#![cfg(feature = "services")]

use hyper::Method;
use mcp_tests::HttpClient;
use mcp_tests::cluster::TempDir;
use mcp_tests::external::{example_binary, python, repo_root};
use mcp_tests::oidc::{ProtectedServer, ProxiedServer, SignIn};
use serde_json::Value;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;
use tokio::io::AsyncBufReadExt as _;

/// Short, so that the client sees its tokens expire: it waits out each one.
const ACCESS_TOKEN_TTL: Duration = Duration::from_secs(3);
/// The whole client run: two sign-ins and two token lifetimes, with room to spare. A client
/// that kept signing in or refreshing would not end, and fails here.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(180);

/// The provider's events that tell the flow, as `name` or `name:grant_type[:error]`.
fn flow(events: &[Value]) -> Vec<String> {
    let text = |event: &Value, key: &str| event[key].as_str().map(|value| format!(":{value}")).unwrap_or_default();
    events
        .iter()
        .filter(|event| {
            ["registration", "authorization", "grant", "grant.error", "revocation"]
                .contains(&event["event"].as_str().unwrap_or(""))
        })
        .map(|event| {
            format!("{}{}{}", event["event"].as_str().unwrap_or(""), text(event, "grant_type"), text(event, "error"))
        })
        .collect()
}

/// Discovery from the server's 401, Dynamic Client Registration with the provider, a sign-in
/// (authorization code with PKCE and `resource`, the code received on the client's loopback
/// listener) and a call that answers with the subject the provider issued; then the access token
/// expires and the client refreshes it; then the refresh token is revoked and, once the access
/// token has expired again, the failed refresh leads to one new sign-in, not a loop.
#[tokio::test]
async fn python_sdk_signs_in_refreshes_and_signs_in_again_after_revocation() {
    let rig = ProtectedServer::start(ACCESS_TOKEN_TTL);
    let user = SignIn::new("alice");
    let url = rig.url();
    let output = python_oauth_client(&url, &user).await;
    let events = rig.stop();
    let output = output
        .unwrap_or_else(|_| {
            panic!("the client did not finish within {CLIENT_TIMEOUT:?}; the provider saw {:#?}", flow(&events))
        })
        .expect("run oauth_client.py");
    assert!(
        output.status.success(),
        "oauth_client.py failed ({}); the provider saw {:#?}",
        output.status,
        flow(&events)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("oauth_client.py prints one JSON report");

    // Each call answered with the identity the provider issued, each with a token of its own.
    let calls = report["calls"].as_array().expect("the report's calls");
    let phases: Vec<&str> = calls.iter().map(|call| call["phase"].as_str().unwrap()).collect();
    assert_eq!(phases, ["signed in", "refreshed", "signed in again"]);
    for call in calls {
        assert_eq!(call["is_error"], false, "{call}");
        assert_eq!(call["text"], "you are `alice` with scopes [notes:read]", "{call}");
    }
    let tokens: Vec<&str> = calls.iter().map(|call| call["jti"].as_str().unwrap()).collect();
    assert!(tokens[0] != tokens[1] && tokens[1] != tokens[2] && tokens[0] != tokens[2], "{tokens:?}");
    assert_eq!(report["sign_ins"], 2, "one sign-in at first, one after the revocation");

    // The tokens are the provider's, for this server and this user.
    let issued: Vec<&Value> = events.iter().filter(|event| event["event"] == "access_token").collect();
    for token in &tokens {
        let event = issued.iter().find(|event| event["jti"] == *token).unwrap_or_else(|| panic!("{token} not issued"));
        assert_eq!(event["aud"], url.as_str());
        assert_eq!(event["sub"], "alice");
    }

    // The provider's side: one registration; a sign-in, then refreshes (at least the one the
    // expiry asked for; more only if the machine was slow enough for a token to expire between
    // two calls); the revocation; the revoked refresh token refused, once; a second sign-in.
    let flow = flow(&events);
    let revoked = flow.iter().position(|step| step == "revocation").expect("a revocation");
    let (before, after) = (&flow[..revoked], &flow[revoked + 1..]);
    let refreshes = |steps: &[String]| !steps.is_empty() && steps.iter().all(|step| step == "grant:refresh_token");
    let signed_in = ["registration", "authorization", "grant:authorization_code"];
    assert!(before.len() > 3 && before[..3] == signed_in && refreshes(&before[3..]), "{flow:#?}");
    let signed_in_again = ["grant.error:refresh_token:invalid_grant", "authorization", "grant:authorization_code"];
    assert!(after.len() >= 3 && after[..3] == signed_in_again, "{flow:#?}");
    assert!(after.len() == 3 || refreshes(&after[3..]), "{flow:#?}");
}

/// `tests/python/oauth_client.py` against `url`, `user` its browser, within [`CLIENT_TIMEOUT`].
async fn python_oauth_client(url: &str, user: &SignIn) -> Result<std::io::Result<Output>, tokio::time::error::Elapsed> {
    let run = tokio::process::Command::new(python())
        .arg(repo_root().join("tests/python/oauth_client.py"))
        .arg(url)
        .arg(user.program())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .output();
    tokio::time::timeout(CLIENT_TIMEOUT, run).await
}

/// The authorization-server façade end to end (issue 33): `examples/auth-proxy` is the
/// authorization server the Python SDK's client meets (discovery, registration, PKCE, its consent
/// page), and sends the user on to `oidc-provider` to sign in (its login and consent pages,
/// then the façade's, all in Chromium); the tool sees the provider's subject; then a refresh;
/// then the refresh token revoked at the façade, after which the SDK signs in again.
#[tokio::test]
async fn python_sdk_signs_in_through_the_oauth_facade() {
    let rig = ProxiedServer::start(ACCESS_TOKEN_TTL);
    let user = SignIn::new("carol");
    let output = python_oauth_client(&rig.url(), &user).await.expect("the client finished in time").unwrap();
    assert!(output.status.success(), "oauth_client.py failed ({})", output.status);
    let report: Value = serde_json::from_slice(&output.stdout).expect("oauth_client.py prints one JSON report");
    let calls = report["calls"].as_array().expect("the report's calls");
    let phases: Vec<&str> = calls.iter().map(|call| call["phase"].as_str().unwrap()).collect();
    assert_eq!(phases, ["signed in", "refreshed", "signed in again"]);
    for call in calls {
        assert_eq!(call["is_error"], false, "{call}");
        let text = call["text"].as_str().unwrap();
        assert!(text.contains("subject carol") && text.ends_with("token: yes"), "{call}");
    }
    let tokens: Vec<&str> = calls.iter().map(|call| call["jti"].as_str().unwrap()).collect();
    assert!(tokens[0] != tokens[1] && tokens[1] != tokens[2] && tokens[0] != tokens[2], "{tokens:?}");
    assert_eq!(report["sign_ins"], 2, "one sign-in at first, one after the revocation");
    // The provider saw the façade sign the user in twice, and nothing of the MCP client.
    let authorizations = rig.provider().events_named("authorization");
    assert_eq!(authorizations.len(), 2, "{authorizations:?}");
}

/// Our own client through the façade: `cargo mcp login` (the sign-in in Chromium: the provider's
/// pages, then the façade's consent), a call that sees the provider's subject, a refresh once the
/// access token expired, then the refresh token revoked at the façade: the next call asks to log
/// in again, and a new login works.
#[tokio::test]
async fn cargo_mcp_signs_in_through_the_oauth_facade() {
    let rig = ProxiedServer::start(ACCESS_TOKEN_TTL);
    let user = SignIn::new("dave");
    let url = rig.url();
    let dir = TempDir::new("cargo-mcp-facade-tokens");
    let tokens = dir.path().join("tokens.json");

    login(&tokens, &url, &user).await;
    let called = call_whoami(&tokens, &url).await;
    let text = String::from_utf8_lossy(&called.stdout);
    assert!(
        called.status.success() && text.contains("subject dave"),
        "{text} {}",
        String::from_utf8_lossy(&called.stderr)
    );

    tokio::time::sleep(ACCESS_TOKEN_TTL + Duration::from_secs(1)).await;
    let refreshed = call_whoami(&tokens, &url).await;
    assert!(refreshed.status.success(), "{}", String::from_utf8_lossy(&refreshed.stderr));

    // The revocation at the façade (RFC 7009), with the client id it registered.
    let stored: Value = serde_json::from_slice(&std::fs::read(&tokens).unwrap()).unwrap();
    let refresh_token = stored[&url]["tokens"]["refresh_token"].as_str().expect("a stored refresh token");
    let client_id = stored[&url]["registrations"][rig.issuer()]["client_id"].as_str().expect("a stored registration");
    let form = format!("token={refresh_token}&client_id={client_id}");
    let facade = HttpClient::new(rig.issuer().trim_start_matches("http://").parse().unwrap());
    let content_type = [("content-type", "application/x-www-form-urlencoded")];
    let revoked = facade.send(Method::POST, "/oauth/revoke", &content_type, form.into_bytes()).await;
    assert!(revoked.status.is_success(), "revocation: {}", revoked.status);
    let refused = call_whoami(&tokens, &url).await;
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains("cargo mcp login"), "{said}");

    login(&tokens, &url, &user).await;
    let again = call_whoami(&tokens, &url).await;
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
}

/// The official suite's authorization-server scenarios (`scripts/conformance.sh authorization`)
/// against the façade with `oidc-provider` upstream, Chromium the user who signs in for the suite.
#[cfg(feature = "oauth-proxy")]
#[tokio::test]
async fn the_official_suite_finds_no_fault_in_the_oauth_facade() {
    let rig = ProxiedServer::start(Duration::from_secs(600));
    let user = SignIn::new("erin");
    let callback_port = mcp_tests::cluster::free_port();
    mcp_tests::authorization_suite::run(rig.issuer(), callback_port, |url| {
        let program = user.program().to_owned();
        async move {
            let signed_in = tokio::process::Command::new(program).arg(&url).status().await.unwrap();
            assert!(signed_in.success(), "the sign-in in Chromium failed");
        }
    })
    .await;
}

/// `cargo mcp` with its tokens kept in `tokens` (a file of the test's own).
fn cargo_mcp(tokens: &Path, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(example_binary("cargo-mcp"));
    command.arg("mcp").args(args).env("CARGO_MCP_TOKENS", tokens).stdin(Stdio::null()).kill_on_drop(true);
    command
}

/// `cargo mcp login <url> --no-browser`, the user signing in at the URL it prints.
async fn login(tokens: &Path, url: &str, user: &SignIn) {
    let mut login = cargo_mcp(tokens, &["login", url, "--no-browser"]).stderr(Stdio::piped()).spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(login.stderr.take().unwrap()).lines();
    let mut said = String::new();
    let authorization_url = loop {
        let line = lines.next_line().await.unwrap().unwrap_or_else(|| panic!("login printed no URL: {said}"));
        said.push_str(&line);
        if line.trim().starts_with("http") {
            break line.trim().to_owned();
        }
    };
    let signed_in = tokio::process::Command::new(user.program()).arg(&authorization_url).status().await.unwrap();
    assert!(signed_in.success(), "the sign-in in Chromium failed");
    while let Some(line) = lines.next_line().await.unwrap() {
        said.push_str(&line);
    }
    let status = login.wait().await.unwrap();
    assert!(status.success() && said.contains("Signed in to"), "login failed ({status}): {said}");
}

async fn call_whoami(tokens: &Path, url: &str) -> Output {
    cargo_mcp(tokens, &["call", "--http", url, "whoami"]).output().await.unwrap()
}

/// Revokes the refresh token `cargo mcp login` stored for `url` (RFC 7009), as the user would at
/// the provider: the stored file holds it, with the client id the provider registered.
async fn revoke_stored_refresh_token(tokens: &Path, url: &str, issuer: &str) {
    let stored: Value = serde_json::from_slice(&std::fs::read(tokens).unwrap()).unwrap();
    let entry = &stored[url];
    let refresh_token = entry["tokens"]["refresh_token"].as_str().expect("a stored refresh token");
    let client_id = entry["registrations"][issuer]["client_id"].as_str().expect("a stored registration");
    let address = issuer.trim_start_matches("http://").parse().unwrap();
    let provider = HttpClient::new(address);
    let metadata = provider.send(Method::GET, "/.well-known/openid-configuration", &[], Vec::new()).await.json().await;
    let endpoint = metadata["revocation_endpoint"].as_str().unwrap().trim_start_matches(issuer).to_owned();
    let form = format!("token={refresh_token}&token_type_hint=refresh_token&client_id={client_id}");
    let content_type = [("content-type", "application/x-www-form-urlencoded")];
    let revoked = provider.send(Method::POST, &endpoint, &content_type, form.into_bytes()).await;
    assert!(revoked.status.is_success(), "revocation: {}", revoked.status);
}

/// Our own client end to end: `cargo mcp login` (discovery, registration, the sign-in in Chromium
/// at the URL `--no-browser` prints, the code on the loopback listener), then `cargo mcp call`
/// with the stored tokens; once the access token expired, a call refreshes it; once the refresh
/// token is revoked, a call fails telling the user to sign in (one refused refresh, no sign-in
/// loop), and a new `login` makes calls work again.
#[tokio::test]
async fn cargo_mcp_logs_in_calls_refreshes_and_asks_to_log_in_after_revocation() {
    let rig = ProtectedServer::start(ACCESS_TOKEN_TTL);
    let user = SignIn::new("bob");
    let url = rig.url();
    let dir = TempDir::new("cargo-mcp-tokens");
    let tokens = dir.path().join("tokens.json");
    let issuer = rig.provider().issuer().to_owned();

    login(&tokens, &url, &user).await;
    let called = call_whoami(&tokens, &url).await;
    let text = String::from_utf8_lossy(&called.stdout);
    assert!(
        called.status.success() && text.contains("you are `bob`"),
        "{text} {}",
        String::from_utf8_lossy(&called.stderr)
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&tokens).unwrap().permissions().mode() & 0o777, 0o600);
    }

    tokio::time::sleep(ACCESS_TOKEN_TTL + Duration::from_secs(1)).await;
    let refreshed = call_whoami(&tokens, &url).await;
    assert!(refreshed.status.success(), "{}", String::from_utf8_lossy(&refreshed.stderr));
    assert!(!rig.provider().events_named("grant").iter().all(|grant| grant["grant_type"] != "refresh_token"));

    revoke_stored_refresh_token(&tokens, &url, &issuer).await;
    tokio::time::sleep(ACCESS_TOKEN_TTL + Duration::from_secs(1)).await;
    let refused = call_whoami(&tokens, &url).await;
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains("cargo mcp login"), "{said}");
    assert!(!said.contains(&issuer) || !said.contains("token="), "{said}");

    login(&tokens, &url, &user).await;
    let again = call_whoami(&tokens, &url).await;
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));

    let flow = flow(&rig.stop());
    let revoked = flow.iter().position(|step| step == "revocation").expect("a revocation");
    let (before, after) = (&flow[..revoked], &flow[revoked + 1..]);
    assert_eq!(before[..3], ["registration", "authorization", "grant:authorization_code"], "{flow:#?}");
    assert!(before[3..].iter().all(|step| step == "grant:refresh_token") && before.len() > 3, "{flow:#?}");
    // The refused refresh, then the second login (which registers anew on its new loopback port).
    assert_eq!(after.first().map(String::as_str), Some("grant.error:refresh_token:invalid_grant"), "{flow:#?}");
    assert_eq!(after.iter().filter(|step| *step == "authorization").count(), 1, "{flow:#?}");
}
