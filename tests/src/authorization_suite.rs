//! The official conformance suite's authorization-server scenarios run against an authorization
//! server (`scripts/conformance.sh authorization`), the test being the browser: the suite prints
//! an authorization URL and waits at its loopback callback until someone signs in.

use crate::HttpClient;
use crate::external::repo_root;
use hyper::{Method, StatusCode};
use serde_json::json;
use std::future::Future;
use std::net::SocketAddr;
use tokio::io::{AsyncBufReadExt as _, BufReader};

/// Registers the suite's client with the authorization server at `issuer` (by Dynamic Client
/// Registration, a public client whose redirect URI is the suite's callback on `callback_port`),
/// runs the suite, and lets `sign_in` take each authorization URL it prints to the callback.
/// The suite's output once it ended successfully; a panic with that output otherwise.
pub async fn run<F: Future<Output = ()>>(
    issuer: &str,
    callback_port: u16,
    mut sign_in: impl FnMut(String) -> F,
) -> String {
    let address: SocketAddr = issuer.trim_start_matches("http://").parse().expect("a loopback issuer");
    let registration = json!({"redirect_uris": [format!("http://127.0.0.1:{callback_port}/callback")],
        "token_endpoint_auth_method": "none", "client_name": "conformance"});
    let headers = [("content-type", "application/json")];
    let reply = HttpClient::new(address)
        .send(Method::POST, "/oauth/register", &headers, registration.to_string().into_bytes())
        .await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let client_id = reply.json().await["client_id"].as_str().unwrap().to_owned();

    let mut suite = tokio::process::Command::new("bash")
        .arg(repo_root().join("scripts/conformance.sh"))
        .arg("authorization")
        .env("AUTHORIZATION_URL", issuer)
        .env("AUTHORIZATION_CLIENT_ID", &client_id)
        .env("AUTHORIZATION_CALLBACK_PORT", callback_port.to_string())
        .env("CONFORMANCE_RESULTS", repo_root().join(format!("target/conformance-authorization-{callback_port}")))
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("bash runs scripts/conformance.sh");
    let mut lines = BufReader::new(suite.stdout.take().unwrap()).lines();
    let mut output = Vec::new();
    let mut signed_in = false;
    while let Some(line) = lines.next_line().await.unwrap() {
        if line.trim().starts_with(&format!("{issuer}/oauth/authorize?")) {
            sign_in(line.trim().to_owned()).await;
            signed_in = true;
        }
        output.push(line);
    }
    let status = suite.wait().await.unwrap();
    let output = output.join("\n");
    assert!(signed_in, "the suite printed no authorization URL:\n{output}");
    assert!(status.success(), "the suite found faults:\n{output}");
    assert!(output.contains("checks: 3 passed, 0 failed, 0 warnings"), "{output}");
    output
}
