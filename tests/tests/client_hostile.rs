//! `mcp_runtime::client` against malicious servers (issue 31, rows 4, 11 and 12): answers far
//! over the client's maximum message size (one JSON body, one SSE line, one SSE event of many
//! lines over HTTP; one stdio line from a child process), a `GET` stream that says `retry: 0`
//! and closes, and redirects to another origin. The servers are real: a bare tokio listener
//! (`mcp_tests::hostile_server`) and the `flooding-server` binary.
#![cfg(feature = "client")]

use mcp_runtime::client::{Client, ClientBuilder, ClientError, Negotiation, StderrMode};
use mcp_tests::client_kit::eventually;
use mcp_tests::hostile_server::{Behaviour, HostileServer};
use serde_json::json;
use std::time::Duration;

const FLOODING_SERVER: &str = env!("CARGO_BIN_EXE_flooding-server");

/// The client's maximum message size in these tests.
const LIMIT: usize = 1 << 20;

/// What the kernel may hold between a server and a client that stopped reading, beyond the
/// limit: a loopback socket's send and receive buffers (4 MiB and 32 MiB at most here), a
/// pipe (64 KiB), the client's own buffers. The floods offer far more: 256 MiB over HTTP.
const IN_FLIGHT: usize = 48 << 20;

fn builder() -> ClientBuilder {
    Client::builder().negotiation(Negotiation::Handshake).timeout(Duration::from_secs(30)).max_message_size(LIMIT)
}

fn assert_too_large(error: &ClientError, what: &str) {
    assert!(
        matches!(error, ClientError::MessageTooLarge { limit: LIMIT, what: w } if *w == what),
        "expected {what} over the limit, got {error:?}"
    );
    let message = error.to_string();
    assert!(message.contains(&LIMIT.to_string()) && message.contains("max_message_size"), "{message}");
}

/// Calls `tool`, whose answer is a 256 MiB flood of `what`: the call fails naming the limit,
/// the server could not send much past it, and the client goes on serving.
async fn refused_at_the_limit(tool: &str, what: &str) {
    let server = HostileServer::start(Behaviour::default()).await;
    let client = builder().connect_http(&server.url()).await.unwrap();
    let error = client.call_tool(tool, json!({})).await.unwrap_err();
    assert_too_large(&error, what);
    eventually("the flood to end", || !server.floods().is_empty()).await;
    let flood = server.floods()[0];
    eprintln!("{tool}: the server got {} of 256 MiB out before the client hung up", flood.sent);
    assert!(!flood.completed && flood.sent < LIMIT + IN_FLIGHT, "{tool}: the server sent {flood:?}");
    let fine = client.call_tool("ok", json!({})).await.unwrap();
    assert_eq!(fine.text(), Some("fine"));
    client.close().await;
}

#[tokio::test]
async fn a_json_body_over_the_limit_is_refused_without_reading_it_all() {
    refused_at_the_limit("flood_json", "an HTTP body").await;
}

#[tokio::test]
async fn an_sse_line_over_the_limit_is_refused_without_reading_it_all() {
    refused_at_the_limit("flood_sse_line", "an SSE line").await;
}

#[tokio::test]
async fn an_sse_event_whose_lines_pass_the_limit_is_refused_without_reading_it_all() {
    refused_at_the_limit("flood_sse_event", "an SSE event").await;
}

#[tokio::test]
async fn a_stdio_line_over_the_limit_breaks_the_connection_there() {
    let client = builder()
        .stderr(StderrMode::Capture)
        .connect_stdio(tokio::process::Command::new(FLOODING_SERVER))
        .await
        .unwrap();
    assert_eq!(client.call_tool("ok", json!({})).await.unwrap().text(), Some("fine"));
    let error = client.call_tool("flood", json!({})).await.unwrap_err();
    assert_too_large(&error, "a stdio line");
    // The client stopped reading: the server's next write failed, and it said how far it got.
    let stderr = || client.stderr().unwrap_or_default();
    eventually("the server to say where its flood stopped", || stderr().contains("flood stopped after")).await;
    let sent: usize = stderr()
        .split("flood stopped after ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a byte count");
    eprintln!("flood: the server got {sent} bytes of a 64 MiB line out before the client hung up");
    assert!(sent < LIMIT + (2 << 20), "the server got {sent} bytes out of a 64 MiB line");
    // Nothing marks where the next message would start: the connection is closed.
    let after = client.call_tool("ok", json!({})).await.unwrap_err();
    assert!(matches!(after, ClientError::Closed), "{after:?}");
}

#[tokio::test]
async fn a_retry_zero_stream_is_reopened_after_a_growing_delay_then_given_up() {
    let server = HostileServer::start(Behaviour { retry_zero_stream: true, ..Behaviour::default() }).await;
    let client = builder().connect_http(&server.url()).await.unwrap();
    // Five fruitless attempts in a row (the first and four reopenings), then no more: a
    // sixth would come 4 s after the fifth, well within the 6 s watched after it.
    eventually("five GET attempts", || server.gets().len() >= 5).await;
    tokio::time::sleep(Duration::from_secs(6)).await;
    let gets = server.gets();
    assert_eq!(gets.len(), 5, "the client reopened the stream {} times", gets.len());
    // Spaced by at least the client's 250 ms floor despite `retry: 0`, doubling each time.
    let gaps: Vec<Duration> = gets.windows(2).map(|pair| pair[1].at - pair[0].at).collect();
    eprintln!("retry: 0: {} GET attempts, {gaps:?} apart", gets.len());
    for (i, gap) in gaps.iter().enumerate() {
        assert!(*gap >= Duration::from_millis(200) * (1 << i), "attempt {} came after {gap:?}: {gaps:?}", i + 2);
    }
    // The client still works; only the stream was given up.
    assert_eq!(client.call_tool("ok", json!({})).await.unwrap().text(), Some("fine"));
    client.close().await;
}

/// A client of `endpoint` sending a custom header (`X-Api-Key`) and a bearer token.
async fn connect_with_credentials(endpoint: &HostileServer) -> Client {
    builder()
        .header("X-Api-Key", "secret-key")
        .bearer_token("secret-token")
        .connect_http(&endpoint.url())
        .await
        .unwrap()
}

#[tokio::test]
async fn a_redirect_to_another_origin_drops_custom_headers_and_credentials() {
    let target = HostileServer::start(Behaviour::default()).await;
    let redirect = Some(target.url());
    let endpoint = HostileServer::start(Behaviour { redirect, ..Behaviour::default() }).await;
    let client = connect_with_credentials(&endpoint).await;
    assert_eq!(client.call_tool("ok", json!({})).await.unwrap().text(), Some("fine"));
    client.close().await;
    let (asked, followed) = (endpoint.requests(), target.requests());
    assert!(!asked.is_empty() && !followed.is_empty());
    for request in &asked {
        assert_eq!(request.header("x-api-key"), Some("secret-key"), "{request:?}");
        assert_eq!(request.header("authorization"), Some("Bearer secret-token"), "{request:?}");
    }
    for request in &followed {
        assert_eq!(request.header("x-api-key"), None, "{request:?}");
        assert_eq!(request.header("authorization"), None, "{request:?}");
    }
    // The session the other origin issued still reaches it, and the call went through.
    let call = followed.iter().find(|r| r.rpc_method.as_deref() == Some("tools/call")).expect("the call");
    assert_eq!(call.header("mcp-session-id"), Some("hostile-session"));
}

#[tokio::test]
async fn a_redirect_within_the_origin_keeps_custom_headers_and_credentials() {
    let redirect = Some("/moved".to_owned());
    let endpoint = HostileServer::start(Behaviour { redirect, ..Behaviour::default() }).await;
    let client = connect_with_credentials(&endpoint).await;
    assert_eq!(client.call_tool("ok", json!({})).await.unwrap().text(), Some("fine"));
    client.close().await;
    let moved: Vec<_> = endpoint.requests().into_iter().filter(|r| r.path == "/moved").collect();
    assert!(moved.iter().any(|r| r.rpc_method.as_deref() == Some("tools/call")), "{moved:?}");
    for request in &moved {
        assert_eq!(request.header("x-api-key"), Some("secret-key"), "{request:?}");
        assert_eq!(request.header("authorization"), Some("Bearer secret-token"), "{request:?}");
    }
}
