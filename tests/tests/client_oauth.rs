//! The client's sign-in (`mcp_runtime::client::oauth`) against an OAuth-protected endpoint and
//! its authorization server (`mcp_tests::hostile_oauth`), correct and then hostile one way at a
//! time: each attack ends in a clear [`ClientError::Auth`] before the client hands anything to
//! the wrong party, and the requests the pair recorded show how far the client went.
//! (`oauth_e2e.rs` runs the flow against a real provider; the official suite's client scenarios
//! run in scripts/conformance.sh.)
#![cfg(feature = "client")]

use hyper::Method;
use mcp_runtime::client::oauth::{Loopback, OAuth};
use mcp_runtime::client::{Client, ClientError, Negotiation};
use mcp_tests::HttpClient;
use mcp_tests::hostile_oauth::{ACCESS_TOKEN, ProtectedPair, Twist};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// A browser for the pair's authorization server, which approves at once: it follows the
/// authorization endpoint's redirect to the client's loopback listener. Counts the pages shown.
fn browser(shown: Arc<AtomicUsize>) -> impl Fn(&str) + Send + Sync + 'static {
    move |url: &str| {
        shown.fetch_add(1, Ordering::SeqCst);
        let url = url.to_owned();
        tokio::spawn(async move {
            let Some(location) = get(&url).await.header("location").map(str::to_owned) else { return };
            get(&location).await;
        });
    }
}

async fn get(url: &str) -> mcp_tests::http::Reply {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    HttpClient::new(authority.parse().expect("an address")).send(Method::GET, path, &[], Vec::new()).await
}

/// Connects to the pair with a sign-in through [`browser`]; returns the outcome and the number of
/// authorization pages shown.
async fn connect(pair: &ProtectedPair, configure: impl FnOnce(OAuth) -> OAuth) -> (Result<Client, ClientError>, usize) {
    let shown = Arc::new(AtomicUsize::new(0));
    let agent = Loopback::bind().await.unwrap().on_url(browser(Arc::clone(&shown)));
    let oauth = configure(OAuth::authorization_code(agent).client_name("client-oauth-test"));
    let outcome = Client::builder().negotiation(Negotiation::Handshake).oauth(oauth).connect_http(&pair.url()).await;
    (outcome, shown.load(Ordering::SeqCst))
}

/// The error of an outcome that must be an [`ClientError::Auth`].
fn auth_error(outcome: Result<Client, ClientError>) -> String {
    match outcome {
        Err(ClientError::Auth(why)) => why,
        Err(other) => panic!("expected an authorization error, got {other:?}"),
        Ok(_) => panic!("expected an authorization error, got a connection"),
    }
}

fn touched(pair: &ProtectedPair, path: &str) -> bool {
    pair.paths().iter().any(|p| p == path)
}

#[tokio::test]
async fn signs_in_from_the_401_and_sends_the_issued_token() {
    let pair = ProtectedPair::start(Twist::None).await;
    let (outcome, shown) = connect(&pair, |oauth| oauth).await;
    let client = outcome.expect("signed in");
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools[0].name, "echo");
    assert_eq!(shown, 1);
    let paths = pair.paths();
    let first = |path: &str| paths.iter().position(|p| p == path).unwrap_or_else(|| panic!("no {path}: {paths:?}"));
    assert!(first("/.well-known/oauth-protected-resource/mcp") < first("/.well-known/oauth-authorization-server/as"));
    assert!(first("/as/register") < first("/as/authorize") && first("/as/authorize") < first("/as/token"));
    // After the token: every request to the endpoint carries it.
    let after: Vec<_> = pair.seen().into_iter().skip(first("/as/token") + 1).filter(|s| s.path == "/mcp").collect();
    assert!(after.len() >= 3, "{after:?}");
    assert!(after.iter().all(|s| s.authorization.as_deref() == Some(&format!("Bearer {ACCESS_TOKEN}"))), "{after:?}");
    client.close().await;
}

#[tokio::test]
async fn refuses_metadata_whose_issuer_is_not_the_one_asked() {
    let pair = ProtectedPair::start(Twist::IssuerMismatch).await;
    let (outcome, shown) = connect(&pair, |oauth| oauth).await;
    let why = auth_error(outcome);
    assert!(why.contains("attacker.example") && why.contains("refusing"), "{why}");
    assert_eq!(shown, 0);
    assert!(!touched(&pair, "/as/register") && !touched(&pair, "/as/token"), "{:?}", pair.paths());
}

#[tokio::test]
async fn refuses_an_authorization_endpoint_that_is_not_https() {
    let pair = ProtectedPair::start(Twist::InsecureAuthorizationEndpoint).await;
    let (outcome, shown) = connect(&pair, |oauth| oauth).await;
    let why = auth_error(outcome);
    assert!(why.contains("neither https nor a loopback"), "{why}");
    assert_eq!(shown, 0, "the user was never sent to it");
    assert!(!touched(&pair, "/as/token"));
}

#[tokio::test]
async fn refuses_a_forged_state_before_the_code_is_used() {
    let pair = ProtectedPair::start(Twist::ForgedState).await;
    let why = auth_error(connect(&pair, |oauth| oauth).await.0);
    assert!(why.contains("state"), "{why}");
    assert!(!touched(&pair, "/as/token"), "the code was never exchanged");
}

#[tokio::test]
async fn refuses_an_authorization_response_from_another_issuer() {
    let pair = ProtectedPair::start(Twist::MixUpIssuer).await;
    let why = auth_error(connect(&pair, |oauth| oauth).await.0);
    assert!(why.contains("evil.example") && why.contains("refused"), "{why}");
    assert!(!touched(&pair, "/as/token"));
}

#[tokio::test]
async fn refuses_metadata_about_another_resource() {
    let pair = ProtectedPair::start(Twist::ResourceMismatch).await;
    let why = auth_error(connect(&pair, |oauth| oauth).await.0);
    assert!(why.contains("evil.example") && why.contains("refusing"), "{why}");
    assert!(!touched(&pair, "/.well-known/oauth-authorization-server/as"), "{:?}", pair.paths());
}

#[tokio::test]
async fn a_token_endpoint_that_never_answers_is_given_up_on() {
    let pair = ProtectedPair::start(Twist::SlowToken(Duration::from_secs(3600))).await;
    let why = auth_error(connect(&pair, |oauth| oauth.timeout(Duration::from_millis(300))).await.0);
    assert!(why.contains("did not answer within 300ms"), "{why}");
}

#[tokio::test]
async fn a_token_answer_of_megabytes_is_refused_unread() {
    let pair = ProtectedPair::start(Twist::HugeToken(4 << 20)).await;
    let why = auth_error(connect(&pair, |oauth| oauth).await.0);
    assert!(why.contains("more than 262144 bytes"), "{why}");
}

#[tokio::test]
async fn a_server_that_refuses_every_token_gets_a_bounded_number_of_sign_ins() {
    let pair = ProtectedPair::start(Twist::RefuseEveryToken).await;
    let (outcome, shown) = connect(&pair, |oauth| oauth.max_authorizations(2)).await;
    let why = auth_error(outcome);
    assert!(why.contains("still refuses access (HTTP 401) after 2 authorizations"), "{why}");
    // The first sign-in, then one more for the refused token; the second refusal ends it.
    assert_eq!(shown, 2);
    assert_eq!(pair.paths().iter().filter(|p| *p == "/as/token").count(), 2);
}

#[tokio::test]
async fn what_an_authorization_server_says_is_shown_without_terminal_escapes() {
    let pair =
        ProtectedPair::start(Twist::RefuseWith("\u{1b}]0;pwned\u{7}\u{1b}[2Jgo away\r\nInjected: yes".into())).await;
    let why = auth_error(connect(&pair, |oauth| oauth).await.0);
    assert!(why.contains("invalid_grant") && why.contains("go away"), "{why}");
    assert!(!why.chars().any(|c| c.is_control()), "{why:?}");
}
