//! `x-mcp-header` over Streamable HTTP (2026-07-28): the listed schema, and `Mcp-Param-{Name}`
//! headers checked against a call's arguments: a match runs the tool; a mismatch, a missing
//! header, a malformed Base64 value or a header without its argument is refused with 400 and
//! -32020 before the tool runs; header names ignore case; tools without mirrored arguments
//! ignore such headers. Raw sockets send what the hyper client would normalise (the case of
//! names, a header twice, bytes beyond ASCII).

use hyper::StatusCode;
use mcp_runtime::ToolSet;
use mcp_runtime::prelude::*;
use mcp_tests::{HttpClient, spec_2026_07_28};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Calls of `route` with the query `refused`, which only the cases that must be refused send
/// (tests run in parallel: a count of every call would count theirs).
static REFUSED_RAN: AtomicUsize = AtomicUsize::new(0);

/// Routes a query.
#[mcp_tool]
fn route(
    #[mcp(header = "Region")] region: String,
    #[mcp(header = "Priority")] priority: i64,
    #[mcp(header = "Verbose")] verbose: Option<bool>,
    query: String,
) -> String {
    if query == "refused" {
        REFUSED_RAN.fetch_add(1, Ordering::SeqCst);
    }
    format!("{query} in {region} at {priority} ({verbose:?})")
}

/// A mirrored argument nested in an object, declared in a hand-written schema.
#[mcp_tool(input_schema = r#"{"type": "object", "properties": {
    "job": {"type": "object", "properties": {"id": {"type": "integer", "x-mcp-header": "Job"}}}
}}"#)]
fn job(job: Value) -> String {
    format!("job {}", job["id"])
}

/// Mirrors nothing.
#[mcp_tool]
fn plain(text: String) -> String {
    text
}

async fn start(tools: ToolSet) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(server!().tools(tools).serve_http_on(listener, std::future::pending()));
    address
}

fn call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    })
}

/// POSTs `message` with the standard headers and `extra` ones; the status and the body.
async fn post(client: &HttpClient, message: &Value, extra: &[(&str, &str)]) -> (StatusCode, Value) {
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", message["method"].as_str().unwrap()),
        ("mcp-name", message["params"]["name"].as_str().unwrap()),
    ];
    headers.extend_from_slice(extra);
    let reply = client.post_with(message, &headers).await;
    let status = reply.status;
    (status, reply.messages().await.pop().unwrap_or_default())
}

/// Header names and values.
type Headers<'a> = &'a [(&'a str, &'a str)];

fn assert_refused((status, body): &(StatusCode, Value), case: &str) {
    assert_eq!(*status, StatusCode::BAD_REQUEST, "{case}: {body}");
    assert_eq!(body["error"]["code"], -32020, "{case}: {body}");
}

fn text(body: &Value) -> &str {
    body["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("not a tool result: {body}"))
}

#[tokio::test]
async fn the_schema_says_which_arguments_are_mirrored() {
    let client = HttpClient::new(start(tools![route, job, plain]).await);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
    }}});
    let reply = client.post_with(&list, &[("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/list")]).await;
    let tools = reply.messages().await.pop().unwrap()["result"]["tools"].clone();
    let route = tools.as_array().unwrap().iter().find(|t| t["name"] == "route").unwrap();
    let properties = &route["inputSchema"]["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region");
    assert_eq!(properties["priority"]["x-mcp-header"], "Priority");
    assert_eq!(properties["verbose"]["x-mcp-header"], "Verbose");
    assert_eq!(properties["verbose"]["type"], "boolean", "one type, not [\"boolean\", \"null\"]: {route}");
    assert!(properties["query"].get("x-mcp-header").is_none());
    assert_eq!(route["inputSchema"]["required"], json!(["region", "priority", "query"]));
    spec_2026_07_28().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn headers_must_mirror_the_arguments() {
    let client = HttpClient::new(start(tools![route, job, plain]).await);
    let arguments = json!({"region": "us-west1", "priority": 42, "query": "SELECT 1"});
    let routed = |(status, body): (StatusCode, Value)| {
        assert_eq!(status, StatusCode::OK, "{body}");
        text(&body).to_owned()
    };

    let matched = post(
        &client,
        &call(1, "route", arguments.clone()),
        &[("mcp-param-region", "us-west1"), ("mcp-param-priority", "42")],
    )
    .await;
    assert_eq!(routed(matched), "SELECT 1 in us-west1 at 42 (None)");
    let numeric = post(
        &client,
        &call(2, "route", arguments.clone()),
        &[("mcp-param-region", " us-west1 "), ("mcp-param-priority", "42.0")],
    )
    .await;
    assert_eq!(routed(numeric), "SELECT 1 in us-west1 at 42 (None)", "integers compare as numbers; OWS is trimmed");
    let unicode = json!({"region": "Hello, 世界", "priority": -7, "verbose": true, "query": "q"});
    let encoded = post(
        &client,
        &call(3, "route", unicode),
        &[
            ("mcp-param-region", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            ("mcp-param-priority", "-7"),
            ("mcp-param-verbose", "true"),
        ],
    )
    .await;
    assert_eq!(routed(encoded), "q in Hello, 世界 at -7 (Some(true))", "the Base64 form is decoded");
    let literal = json!({"region": "=?base64?SGVsbG8=", "priority": 1, "query": "q"});
    let literal = post(
        &client,
        &call(4, "route", literal),
        &[("mcp-param-region", "=?base64?SGVsbG8="), ("mcp-param-priority", "1")],
    )
    .await;
    assert_eq!(routed(literal), "q in =?base64?SGVsbG8= at 1 (None)", "without the suffix, a value is literal");
    let null = json!({"region": "eu", "priority": 1, "verbose": null, "query": "q"});
    let null = post(&client, &call(5, "route", null), &[("mcp-param-region", "eu"), ("mcp-param-priority", "1")]).await;
    assert_eq!(routed(null), "q in eu at 1 (None)", "a null argument needs no header");
    let nested = post(&client, &call(6, "job", json!({"job": {"id": 9}})), &[("mcp-param-job", "9")]).await;
    assert_eq!(routed(nested), "job 9", "a nested property is found by its path");

    let refused: [(&str, Value, Headers); 8] = [
        ("a different value", arguments.clone(), &[("mcp-param-region", "us-east1"), ("mcp-param-priority", "42")]),
        ("a different number", arguments.clone(), &[("mcp-param-region", "us-west1"), ("mcp-param-priority", "41")]),
        (
            "a value is case-sensitive",
            arguments.clone(),
            &[("mcp-param-region", "US-WEST1"), ("mcp-param-priority", "42")],
        ),
        ("a missing header", arguments.clone(), &[("mcp-param-priority", "42")]),
        (
            "invalid padding",
            json!({"region": "Hello", "priority": 0, "query": "q"}),
            &[("mcp-param-region", "=?base64?SGVsbG8?="), ("mcp-param-priority", "0")],
        ),
        (
            "invalid Base64 characters",
            json!({"region": "Hello", "priority": 0, "query": "q"}),
            &[("mcp-param-region", "=?base64?SGVs!!!bG8=?="), ("mcp-param-priority", "0")],
        ),
        (
            "a header without its argument",
            arguments.clone(),
            &[("mcp-param-region", "us-west1"), ("mcp-param-priority", "42"), ("mcp-param-verbose", "false")],
        ),
        (
            "a boolean is `true` or `false`",
            json!({"region": "eu", "priority": 1, "verbose": true, "query": "q"}),
            &[("mcp-param-region", "eu"), ("mcp-param-priority", "1"), ("mcp-param-verbose", "1")],
        ),
    ];
    for (id, (case, mut arguments, headers)) in (10..).zip(refused) {
        arguments["query"] = json!("refused");
        let message = call(id, "route", arguments);
        let answer = post(&client, &message, headers).await;
        assert_refused(&answer, case);
        assert_eq!(answer.1["id"], id, "{case}: the error echoes the id");
    }
    assert_refused(
        &post(&client, &call(30, "job", json!({"job": {"id": 9}})), &[("mcp-param-job", "8")]).await,
        "nested",
    );
    assert_eq!(REFUSED_RAN.load(Ordering::SeqCst), 0, "a refused call never runs the tool");
    spec_2026_07_28().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn tools_without_mirrored_arguments_ignore_param_headers() {
    for tools in [tools![route, plain], tools![plain]] {
        let client = HttpClient::new(start(tools).await);
        let (status, body) =
            post(&client, &call(1, "plain", json!({"text": "hi"})), &[("mcp-param-region", "anything")]).await;
        assert_eq!((status, text(&body)), (StatusCode::OK, "hi"));
    }
}

#[tokio::test]
async fn session_requests_are_not_checked() {
    let mut client = HttpClient::new(start(tools![route]).await);
    client.initialize().await;
    let arguments = json!({"region": "eu", "priority": 1, "query": "q"});
    let answer = client.request(2, "tools/call", json!({"name": "route", "arguments": arguments})).await;
    assert_eq!(text(&answer[0]), "q in eu at 1 (None)", "2025-11-25 has no Mcp-Param headers");
}

/// A 2026-07-28 request sent inside a session is served by that era's rules, so its headers
/// must mirror its body as they must without one: stamped by its body alone (the session's
/// `MCP-Protocol-Version: 2025-11-25`), or by its header too, false headers are refused.
#[tokio::test]
async fn stamped_requests_inside_a_session_are_checked() {
    let mut client = HttpClient::new(start(tools![route, plain]).await);
    client.initialize().await;
    let arguments = json!({"region": "eu", "priority": 1, "query": "refused"});
    let false_headers: [(&str, Headers); 4] = [
        ("a false Mcp-Method", &[("mcp-method", "tools/list"), ("mcp-name", "route")]),
        ("a false Mcp-Name", &[("mcp-method", "tools/call"), ("mcp-name", "plain")]),
        ("a false Mcp-Param", &[("mcp-method", "tools/call"), ("mcp-name", "route"), ("mcp-param-region", "us")]),
        ("no mirrored headers at all", &[]),
    ];
    for version in ["2025-11-25", "2026-07-28"] {
        for (case, headers) in false_headers {
            let mut headers = headers.to_vec();
            headers.push(("mcp-protocol-version", version));
            let reply = client.post_with(&call(7, "route", arguments.clone()), &headers).await;
            let status = reply.status;
            let body = reply.messages().await.pop().unwrap_or_default();
            assert_refused(&(status, body.clone()), &format!("{case} under {version}"));
            assert_eq!(body["id"], 7, "{body}");
        }
    }
    assert_eq!(REFUSED_RAN.load(Ordering::SeqCst), 0, "a refused call never runs the tool");
    // True headers inside the session run it.
    let arguments = json!({"region": "eu", "priority": 1, "query": "q"});
    let (status, body) =
        post(&client, &call(8, "route", arguments), &[("mcp-param-region", "eu"), ("mcp-param-priority", "1")]).await;
    assert_eq!((status, text(&body)), (StatusCode::OK, "q in eu at 1 (None)"));
}

/// POSTs a `route` call with the header lines `extra` over a raw socket; the status line and
/// the rest of the answer.
async fn raw_route(address: SocketAddr, extra: &[&[u8]]) -> String {
    let body = call(1, "route", json!({"region": "us-west1", "priority": 42, "query": "q"})).to_string();
    let mut lines: Vec<&[u8]> =
        vec![b"MCP-Protocol-Version: 2026-07-28", b"Mcp-Method: tools/call", b"Mcp-Name: route"];
    lines.extend_from_slice(extra);
    mcp_tests::http::post_raw(address, &lines, &body).await
}

#[tokio::test]
async fn header_names_ignore_case_and_values_are_checked_as_sent() {
    let address = start(tools![route]).await;
    for names in [["Mcp-Param-Region", "Mcp-Param-Priority"], ["MCP-PARAM-REGION", "mcp-param-priority"]] {
        let (region, priority) = (format!("{}: us-west1", names[0]), format!("{}: 42", names[1]));
        let answer = raw_route(address, &[region.as_bytes(), priority.as_bytes()]).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{names:?}: {answer}");
    }
    let refused: [(&str, &[&[u8]]); 2] = [
        (
            "the header twice",
            &[b"Mcp-Param-Region: us-west1", b"mcp-param-region: us-west1", b"Mcp-Param-Priority: 42"],
        ),
        ("bytes beyond ASCII", &[b"Mcp-Param-Region: us-w\xe9st1", b"Mcp-Param-Priority: 42"]),
    ];
    for (case, lines) in refused {
        let answer = raw_route(address, lines).await;
        assert!(answer.starts_with("HTTP/1.1 400") && answer.contains("-32020"), "{case}: {answer}");
    }
}
