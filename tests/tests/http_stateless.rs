//! The 2026-07-28 era over Streamable HTTP: stateless POSTs with mirrored headers, errors with
//! their HTTP status, streamed progress, input-required round trips, cancellation by closing
//! the stream, and 405 for GET/DELETE. Messages are validated against the 2026-07-28 schema.

use hyper::{Method, StatusCode};
use mcp_runtime::prelude::*;
use mcp_runtime::{ClientError, Elicitation, Sampling};
use mcp_tests::{HttpClient, spec_2026_07_28};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Reports progress `count` times, then answers.
#[mcp_tool]
async fn steps(count: u32, ctx: Context) -> String {
    for i in 1..=count {
        ctx.progress(f64::from(i), f64::from(count)).await;
    }
    format!("{count} steps")
}

/// Needs sampling.
#[mcp_tool]
async fn needs_sampling(ctx: Context) -> Result<String, ClientError> {
    Ok(ctx.sample(Sampling::new("hi")).await?.model)
}

#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

/// Greets whoever the user says they are.
#[mcp_tool(name = "greet-them")]
async fn greet(ctx: Context) -> Result<String, ClientError> {
    match ctx.input("user_name").elicit::<Name>("What is your name?").await? {
        Elicitation::Accept(Name { name }) => Ok(format!("Hello, {name}!")),
        _ => Ok("Hello, stranger!".into()),
    }
}

static FOREVER_DROPPED: AtomicBool = AtomicBool::new(false);

struct SetOnDrop;
impl Drop for SetOnDrop {
    fn drop(&mut self) {
        FOREVER_DROPPED.store(true, Ordering::SeqCst);
    }
}

/// Reports progress once, then never finishes.
#[mcp_tool]
async fn forever(ctx: Context) -> &'static str {
    let _guard = SetOnDrop;
    ctx.progress(0.0, None).await;
    std::future::pending::<()>().await;
    "unreachable"
}

async fn start() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = server!().tools(tools![steps, needs_sampling, greet, forever]);
    tokio::spawn(server.serve_http_on(listener, std::future::pending()));
    address
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

fn request(id: i64, method: &str, mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = meta(capabilities);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The standard headers for `message`, as a 2026-07-28 client sends them.
fn headers(message: &Value) -> Vec<(String, String)> {
    let mut headers = vec![
        ("mcp-protocol-version".to_owned(), "2026-07-28".to_owned()),
        ("mcp-method".to_owned(), message["method"].as_str().unwrap().to_owned()),
    ];
    let params = &message["params"];
    if let Some(name) = params["name"].as_str().or_else(|| params["uri"].as_str()) {
        headers.push(("mcp-name".to_owned(), name.to_owned()));
    }
    headers
}

async fn post(client: &HttpClient, message: &Value, overrides: &[(&str, &str)]) -> mcp_tests::http::Reply {
    let mut all: Vec<(String, String)> = headers(message);
    for (name, value) in overrides {
        all.retain(|(n, _)| n != name);
        all.push(((*name).to_owned(), (*value).to_owned()));
    }
    let all: Vec<(&str, &str)> = all.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    client.post_with(message, &all).await
}

fn assert_valid(client: &HttpClient) {
    spec_2026_07_28().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn stateless_requests_need_no_session() {
    let client = HttpClient::new(start().await);
    let discover = request(1, "server/discover", json!({}), json!({}));
    let reply = post(&client, &discover, &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.header("mcp-session-id").is_none(), "no session is minted");
    let result = reply.messages().await.pop().unwrap();
    assert_eq!(result["result"]["supportedVersions"], json!(["2026-07-28"]));
    let list = post(&client, &request(2, "tools/list", json!({}), json!({})), &[]).await.messages().await;
    assert_eq!(list[0]["result"]["resultType"], "complete");
    assert_valid(&client);
}

#[tokio::test]
async fn headers_must_mirror_the_body() {
    let client = HttpClient::new(start().await);
    let list = request(7, "tools/list", json!({}), json!({}));
    let call = request(8, "tools/call", json!({"name": "steps", "arguments": {"count": 1}}), json!({}));
    let cases: [(&Value, &[(&str, &str)]); 5] = [
        (&list, &[("mcp-method", "")]),
        (&list, &[("mcp-method", "TOOLS/LIST")]),
        (&call, &[("mcp-name", "")]),
        (&call, &[("mcp-name", "other")]),
        (&list, &[("mcp-protocol-version", "")]),
    ];
    for (message, overrides) in cases {
        let reply = post(&client, message, overrides).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{overrides:?}");
        let body = reply.json().await;
        assert_eq!(body["error"]["code"], -32020, "{overrides:?}");
        assert_eq!(body["id"], message["id"], "errors echo the id");
    }
    let padded = post(&client, &list, &[("mcp-method", "  tools/list ")]).await;
    assert_eq!(padded.status, StatusCode::OK, "whitespace around a value is trimmed");
    let encoded = post(&client, &call, &[("mcp-name", "=?base64?c3RlcHM=?=")]).await;
    assert_eq!(encoded.status, StatusCode::OK, "Base64 sentinel values are decoded");
    let mismatched = request(9, "tools/list", json!({}), json!({}));
    let mut mismatched = mismatched;
    mismatched["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let reply = post(&client, &mismatched, &[]).await;
    assert_eq!((reply.status, reply.json().await["error"]["code"].clone()), (StatusCode::BAD_REQUEST, json!(-32020)));
    // A mismatched value is echoed clipped, however long the client made it.
    let long = "x".repeat(20_000);
    let reply = post(&client, &list, &[("mcp-method", &long)]).await;
    let message = reply.json().await["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.starts_with("Header mismatch: Mcp-Method") && message.len() < 400, "{message}");
}

/// POSTs `message` with exactly the header lines `lines` (`mcp_tests::http::post_raw`); the
/// answer's status line and its JSON body.
async fn post_lines(address: SocketAddr, message: &Value, lines: &[&[u8]]) -> (String, Value) {
    let answer = mcp_tests::http::post_raw(address, lines, &message.to_string()).await;
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head.lines().next().unwrap().to_owned();
    (status, serde_json::from_str(body).unwrap_or_else(|_| panic!("a JSON body: {answer}")))
}

#[tokio::test]
async fn a_mirrored_header_is_read_once_and_only_as_visible_ascii() {
    let address = start().await;
    let call = request(10, "tools/call", json!({"name": "steps", "arguments": {"count": 1}}), json!({}));
    let standard: [&[u8]; 3] = [b"MCP-Protocol-Version: 2026-07-28", b"Mcp-Method: tools/call", b"Mcp-Name: steps"];
    // A proxy that routes on the last value (or on both) must not see another request than
    // the one the server runs, whichever value comes first.
    let twice: [(usize, &[u8]); 5] = [
        (2, b"Mcp-Name: other"),
        (2, b"mcp-name: steps"),
        (1, b"Mcp-Method: tools/list"),
        (1, b"mcp-method: tools/call"),
        (0, b"mcp-protocol-version: 2026-07-28"),
    ];
    for (of, extra) in twice {
        for at in [of, of + 1] {
            let mut lines = standard.to_vec();
            lines.insert(at, extra);
            let (status, body) = post_lines(address, &call, &lines).await;
            let message = body["error"]["message"].as_str().unwrap_or_default();
            assert!(status.starts_with("HTTP/1.1 400"), "{status}: {body}");
            assert_eq!(body["error"]["code"], -32020, "{body}");
            assert!(message.ends_with("header is sent more than once"), "{message}");
        }
    }
    // `évil` is not U+FFFD, which a lossy read of its bytes would make it.
    let odd = request(11, "tools/call", json!({"name": "\u{fffd}", "arguments": {}}), json!({}));
    let (status, body) = post_lines(address, &odd, &[standard[0], standard[1], "Mcp-Name: évil".as_bytes()]).await;
    assert!(status.starts_with("HTTP/1.1 400"), "{status}");
    assert_eq!(body["error"]["code"], -32020);
    assert_eq!(body["error"]["message"], "Header mismatch: the Mcp-Name header value contains invalid characters");
    let (_, body) = post_lines(address, &call, &[standard[0], b"Mcp-Method: tools/c\xe2ll", standard[2]]).await;
    assert_eq!(body["error"]["message"], "Header mismatch: the Mcp-Method header value contains invalid characters");
    let (_, body) = post_lines(address, &call, &standard).await;
    assert_eq!(body["result"]["content"][0]["text"], "1 steps", "the same request, each header once, is served");
}

#[tokio::test]
async fn errors_carry_their_http_status() {
    let client = HttpClient::new(start().await);
    let mut unsupported = request(1, "tools/list", json!({}), json!({}));
    unsupported["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let reply = post(&client, &unsupported, &[("mcp-protocol-version", "v999.0.0")]).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json().await["error"]["data"], json!({"supported": ["2026-07-28"], "requested": "v999.0.0"}));

    let no_meta = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    let reply = post(&client, &no_meta, &[]).await;
    assert_eq!((reply.status, reply.json().await["error"]["code"].clone()), (StatusCode::BAD_REQUEST, json!(-32602)));

    for method in ["initialize", "ping", "unknown/method"] {
        let reply = post(&client, &request(3, method, json!({}), json!({})), &[]).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{method}");
        assert_eq!(reply.json().await["error"]["code"], -32601);
    }

    let sampling = request(4, "tools/call", json!({"name": "needs_sampling"}), json!({}));
    let reply = post(&client, &sampling, &[]).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json().await["error"]["data"], json!({"requiredCapabilities": {"sampling": {}}}));
    assert_valid(&client);
}

#[tokio::test]
async fn get_and_delete_are_not_for_stateless_clients() {
    let client = HttpClient::new(start().await);
    for method in [Method::GET, Method::DELETE] {
        let reply = client
            .send(
                method.clone(),
                "/mcp",
                &[("mcp-protocol-version", "2026-07-28"), ("accept", "text/event-stream")],
                Vec::new(),
            )
            .await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
    }
}

#[tokio::test]
async fn progress_streams_before_the_result() {
    let client = HttpClient::new(start().await);
    let mut call = request(5, "tools/call", json!({"name": "steps", "arguments": {"count": 3}}), json!({}));
    call["params"]["_meta"]["progressToken"] = json!("p");
    let reply = post(&client, &call, &[]).await;
    assert_eq!(reply.content_type(), "text/event-stream");
    let messages = reply.messages().await;
    assert_eq!(messages.len(), 4);
    assert!(messages[..3].iter().all(|m| m["method"] == "notifications/progress"));
    assert_eq!(messages[3]["result"]["content"][0]["text"], "3 steps");
    assert_eq!(messages[3]["result"]["resultType"], "complete");
    assert_valid(&client);
}

#[tokio::test]
async fn only_a_string_or_an_integer_is_a_progress_token() {
    let client = HttpClient::new(start().await);
    let mut call = request(6, "tools/call", json!({"name": "steps", "arguments": {"count": 2}}), json!({}));
    call["params"]["_meta"]["progressToken"] = json!(7);
    let messages = post(&client, &call, &[]).await.messages().await;
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(messages[..2].iter().all(|m| m["params"]["progressToken"] == 7), "{messages:?}");
    // Echoed, these would be notifications no schema allows: they ask for no progress.
    for token in [json!(null), json!(1.5), json!(true), json!({"x": 1}), json!([1])] {
        call["params"]["_meta"]["progressToken"] = token.clone();
        let messages = post(&client, &call, &[]).await.messages().await;
        assert_eq!(messages.len(), 1, "{token}: {messages:?}");
        assert_eq!(messages[0]["result"]["content"][0]["text"], "2 steps", "{token}");
    }
    assert_valid(&client);
}

#[tokio::test]
async fn input_required_round_trips_over_http() {
    let client = HttpClient::new(start().await);
    let caps = json!({"elicitation": {}});
    let first = post(&client, &request(1, "tools/call", json!({"name": "greet-them"}), caps.clone()), &[]).await;
    let first = first.messages().await.pop().unwrap();
    assert_eq!(first["result"]["resultType"], "input_required");
    let params = json!({
        "name": "greet-them",
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}},
        "requestState": first["result"]["requestState"],
    });
    let done = post(&client, &request(2, "tools/call", params, caps), &[]).await.messages().await.pop().unwrap();
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Alice!");
    assert_valid(&client);
}

#[tokio::test]
async fn closing_the_stream_cancels_the_request() {
    let client = HttpClient::new(start().await);
    let mut call = request(1, "tools/call", json!({"name": "forever"}), json!({}));
    call["params"]["_meta"]["progressToken"] = json!(1);
    let reply = post(&client, &call, &[]).await;
    let mut events = reply.events();
    let progress = events.next_message().await.unwrap();
    assert_eq!(progress["method"], "notifications/progress");
    drop(events);
    for _ in 0..100 {
        if FOREVER_DROPPED.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the tool kept running after its stream closed");
}

#[tokio::test]
async fn a_legacy_session_works_beside_stateless_requests() {
    let address = start().await;
    let mut legacy = HttpClient::new(address);
    legacy.initialize().await;
    let messages = legacy.request(1, "tools/list", json!({})).await;
    assert!(messages[0]["result"].get("resultType").is_none());
    let stateless = HttpClient::new(address);
    let reply = post(&stateless, &request(2, "tools/list", json!({}), json!({})), &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
}
