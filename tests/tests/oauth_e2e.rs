//! The MCP authorization flow end to end, every part real (`mcp_tests::oidc`): panva's
//! `oidc-provider` as the authorization server, `examples/auth-server` trusting it, headless
//! Chromium as the user who signs in, and the official Python SDK's OAuth client
//! (`tests/python/oauth_client.py`, `mcp==2.3.0`) as the client. `scripts/oidc.sh`,
//! `scripts/services.sh` and `scripts/python-env.sh` install what it runs.
#![cfg(feature = "services")]

use mcp_tests::external::{python, repo_root};
use mcp_tests::oidc::{ProtectedServer, SignIn};
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;

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
    let run = tokio::process::Command::new(python())
        .arg(repo_root().join("tests/python/oauth_client.py"))
        .arg(&url)
        .arg(user.program())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(CLIENT_TIMEOUT, run).await;
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
