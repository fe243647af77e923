//! The official conformance suite's authorization-server scenarios
//! (`scripts/conformance.sh authorization`: `authorization-server-metadata-endpoint`,
//! `authorization-code-grant`) against `examples/auth-proxy`, its upstream the OpenID provider of
//! `mcp_tests::fake_idp`. The suite prints an authorization URL and waits at its callback; this
//! test is the browser (the upstream's login, the consent form, the redirect to the callback).
//! Needs Node 22 (`scripts/node-env.sh`) and the suite from npm.
#![cfg(feature = "oauth-proxy")]

use hyper::{Method, StatusCode};
use mcp_tests::HttpClient;
use mcp_tests::cluster::free_port;
use mcp_tests::external::{HttpProcess, example_binary, repo_root};
use mcp_tests::fake_idp::{self, FakeIdp};
use serde_json::json;
use std::net::SocketAddr;
use tokio::io::{AsyncBufReadExt as _, BufReader};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_suite_finds_no_fault_in_the_facade() {
    let idp = FakeIdp::start().await;
    let port = free_port();
    let public = format!("http://127.0.0.1:{port}");
    let issuer = idp.issuer();
    let env = [
        ("UPSTREAM_ISSUER", issuer.as_str()),
        ("UPSTREAM_CLIENT_ID", fake_idp::CLIENT_ID),
        ("UPSTREAM_CLIENT_SECRET", fake_idp::CLIENT_SECRET),
        ("PUBLIC_URL", public.as_str()),
    ];
    let _proxy = HttpProcess::start_with(&example_binary("auth-proxy"), &[], port, &env);
    let facade: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();

    // The suite's client, registered with its callback (a public client: PKCE alone).
    let callback_port = free_port();
    let registration = json!({"redirect_uris": [format!("http://127.0.0.1:{callback_port}/callback")],
        "token_endpoint_auth_method": "none", "client_name": "conformance"});
    let reply = HttpClient::new(facade)
        .send(
            Method::POST,
            "/oauth/register",
            &[("content-type", "application/json")],
            registration.to_string().into_bytes(),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let client_id = reply.json().await["client_id"].as_str().unwrap().to_owned();

    let mut suite = tokio::process::Command::new("bash")
        .arg(repo_root().join("scripts/conformance.sh"))
        .arg("authorization")
        .env("AUTHORIZATION_URL", &public)
        .env("AUTHORIZATION_CLIENT_ID", &client_id)
        .env("AUTHORIZATION_CALLBACK_PORT", callback_port.to_string())
        .env("CONFORMANCE_RESULTS", repo_root().join("target/conformance-authorization"))
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("bash runs scripts/conformance.sh");
    let mut lines = BufReader::new(suite.stdout.take().unwrap()).lines();
    let mut output = Vec::new();
    let mut signed_in = false;
    while let Some(line) = lines.next_line().await.unwrap() {
        if let Some(authorize) = line.trim().strip_prefix(&public).filter(|path| path.starts_with("/oauth/authorize?"))
        {
            let location = idp.sign_in_through(facade, authorize).await;
            let path =
                location.strip_prefix(&format!("http://127.0.0.1:{callback_port}")).expect("to the suite's callback");
            let callback: SocketAddr = format!("127.0.0.1:{callback_port}").parse().unwrap();
            HttpClient::new(callback).send(Method::GET, path, &[], Vec::new()).await.bytes().await;
            signed_in = true;
        }
        output.push(line);
    }
    let status = suite.wait().await.unwrap();
    let output = output.join("\n");
    assert!(signed_in, "the suite printed no authorization URL:\n{output}");
    assert!(status.success(), "the suite found faults:\n{output}");
    assert!(output.contains("authorization-code-grant") || output.contains("AuthorizationCodeGrant"), "{output}");
}
