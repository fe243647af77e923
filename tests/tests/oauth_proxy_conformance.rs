//! The official conformance suite's authorization-server scenarios
//! (`scripts/conformance.sh authorization`: `authorization-server-metadata-endpoint`,
//! `authorization-code-grant`) against `examples/auth-proxy`, its upstream the OpenID provider of
//! `mcp_tests::fake_idp`; this test is the browser, by plain HTTP (the upstream's login, the
//! consent form, the redirect to the suite's callback). `oauth_e2e.rs` runs the suite again with
//! `oidc-provider` upstream and Chromium. Needs Node 22 (`scripts/node-env.sh`) and the suite from npm.
#![cfg(feature = "oauth-proxy")]

use hyper::Method;
use mcp_tests::HttpClient;
use mcp_tests::authorization_suite;
use mcp_tests::cluster::free_port;
use mcp_tests::external::{HttpProcess, example_binary};
use mcp_tests::fake_idp::{self, FakeIdp};
use std::net::SocketAddr;

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
    let callback_port = free_port();
    let callback: SocketAddr = format!("127.0.0.1:{callback_port}").parse().unwrap();
    let idp = &idp;
    let public = &public;
    authorization_suite::run(public, callback_port, |url| async move {
        let location = idp.sign_in_through(facade, url.strip_prefix(public.as_str()).unwrap()).await;
        let path = location.strip_prefix(&format!("http://{callback}")).expect("to the suite's callback");
        HttpClient::new(callback).send(Method::GET, path, &[], Vec::new()).await.bytes().await;
    })
    .await;
}
