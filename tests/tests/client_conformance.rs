//! `mcp_runtime::client` where the official conformance suite's client mode found it wanting
//! (issue 32, item 2): a form's defaults filled in (SEP-1034), tools whose `x-mcp-header`
//! declarations are invalid left out in 2026-07-28, a version refused with -32022 retried
//! with one the server names, `connect` returning once the session's `GET` stream is open,
//! and a call's dropped stream resumed with `Last-Event-ID` after the server's `retry`.
//! Against our own server, and the bare server of `mcp_tests::hostile_server`, which lets the
//! test see and time every request.
#![cfg(feature = "client")]

use mcp_runtime::client::{Client, Negotiation};
use mcp_runtime::prelude::*;
use mcp_runtime::{ClientError as AskError, Elicitation, ProtocolVersion};
use mcp_tests::client_kit::{answering_client, serve, url};
use mcp_tests::hostile_server::{Behaviour, HostileServer, RESUMABLE_EVENT_ID};
use mcp_tests::log::CapturedLog;
use serde_json::{Value, json};
use std::time::Duration;

/// Asks for a form whose fields have defaults (but `nickname`), and returns what came back.
#[mcp_tool]
async fn profile(ctx: Context) -> Result<String, AskError> {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
        "verified": {"type": "boolean", "default": true},
        "nickname": {"type": "string"},
    }});
    let Value::Object(schema) = schema else { unreachable!("a JSON object literal") };
    match ctx.elicit_with_schema("Your profile?", schema).await? {
        Elicitation::Accept(content) => Ok(Value::Object(content).to_string()),
        other => Ok(format!("{other:?}")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accepted_form_gets_the_defaults_its_handler_left_out_in_both_eras() {
    let address = serve(Server::new("forms", "1.0.0").tools(tools![profile])).await;
    for era in [Negotiation::Handshake, Negotiation::Stateless] {
        // The handler accepts every form with `{"name": "Ada"}`.
        let (builder, _) = answering_client(era);
        let client = builder.connect_http(&url(address)).await.unwrap();
        let result = client.call_tool("profile", json!({})).await.unwrap();
        let content: Value = serde_json::from_str(result.text().unwrap()).unwrap();
        let expected = json!({"name": "Ada", "age": 30, "score": 95.5, "status": "active", "verified": true});
        assert_eq!(content, expected, "{era:?}");
        client.close().await;
    }
}

/// The tools of the suite's `http-invalid-tool-headers` scenario: one valid, the others each
/// breaking one rule of `x-mcp-header`.
fn tools_with_headers() -> Vec<Value> {
    let tool = |name: &str, properties: Value| json!({"name": name, "inputSchema": {"type": "object", "properties": properties}});
    let string = |header: &str| json!({"type": "string", "x-mcp-header": header});
    vec![
        tool("valid_tool", json!({"region": string("Region"), "query": {"type": "string"}})),
        tool("empty_header", json!({"value": string("")})),
        tool("space_in_name", json!({"value": string("My Region")})),
        tool("colon_in_name", json!({"value": string("Region:Primary")})),
        tool("non_ascii_name", json!({"value": string("Région")})),
        tool("object_header", json!({"data": {"type": "object", "x-mcp-header": "Data"}})),
        tool("number_header", json!({"ratio": {"type": "number", "x-mcp-header": "Ratio"}})),
        tool("duplicate_header", json!({"a": string("MyField"), "b": string("myfield")})),
        tool("header_in_items", json!({"list": {"type": "array", "items": string("Item")}})),
    ]
}

#[tokio::test]
async fn tools_with_invalid_x_mcp_header_declarations_are_left_out_in_2026_07_28_over_http() {
    let behaviour = Behaviour { stateless: true, tools: Some(tools_with_headers()), ..Behaviour::default() };
    let server = HostileServer::start(behaviour).await;
    let (log, _guard) = CapturedLog::start();
    let client = Client::builder().negotiation(Negotiation::Stateless).connect_http(&server.url()).await.unwrap();
    let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|tool| tool.name).collect();
    assert_eq!(names, ["valid_tool"]);
    let page = client.list_tools_page(None).await.unwrap();
    assert_eq!(page.items.len(), 1);
    // One warning per tool left out, naming it, each time the tools are listed.
    let warnings = log.lines_with("left out the tool");
    assert_eq!(warnings.len(), 2 * 8, "{warnings:#?}");
    assert!(warnings.iter().any(|line| line.contains("`duplicate_header`") && line.contains("same header")));
    // The valid tool's argument is still mirrored.
    client.call_tool("valid_tool", json!({"region": "eu-west", "query": "q"})).await.unwrap();
    let call = server.requests().into_iter().find(|r| r.rpc_method.as_deref() == Some("tools/call")).unwrap();
    assert_eq!(call.header("mcp-param-region"), Some("eu-west"));
    client.close().await;

    // In a session no header is mirrored: the declarations mean nothing there, and every tool is kept.
    let handshake = Client::builder().negotiation(Negotiation::Handshake).connect_http(&server.url()).await.unwrap();
    assert_eq!(handshake.list_tools().await.unwrap().len(), tools_with_headers().len());
    handshake.close().await;
}

#[tokio::test]
async fn a_version_refused_with_32022_is_asked_again_at_one_the_server_names() {
    let behaviour = Behaviour { stateless: true, refuse_first_version: true, ..Behaviour::default() };
    let server = HostileServer::start(behaviour).await;
    let client = Client::builder().negotiation(Negotiation::Stateless).connect_http(&server.url()).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(client.list_tools().await.unwrap().len(), 4);
    let discovers: Vec<_> =
        server.requests().into_iter().filter(|r| r.rpc_method.as_deref() == Some("server/discover")).collect();
    assert_eq!(discovers.len(), 2, "refused once, then asked again");
    assert!(discovers.iter().all(|r| r.header("mcp-protocol-version") == Some("2026-07-28")));
    client.close().await;
}

#[tokio::test]
async fn connect_returns_once_the_sessions_stream_is_open() {
    // The server takes its time to open the `GET` stream, on which it could send a request at once.
    let behaviour = Behaviour { open_stream: Some(Duration::from_millis(500)), ..Behaviour::default() };
    let server = HostileServer::start(behaviour).await;
    let client = Client::builder().negotiation(Negotiation::Handshake).connect_http(&server.url()).await.unwrap();
    assert!(server.marked("stream opened").is_some(), "connect returned before the session's stream was open");
    client.close().await;

    // A server without one (405) is not waited for.
    let server = HostileServer::start(Behaviour::default()).await;
    let client = Client::builder().negotiation(Negotiation::Handshake).connect_http(&server.url()).await.unwrap();
    assert_eq!(server.gets().len(), 1);
    client.close().await;
}

#[tokio::test]
async fn a_calls_dropped_stream_is_resumed_with_last_event_id_after_the_servers_retry() {
    let retry = Duration::from_millis(600);
    let behaviour = Behaviour {
        open_stream: Some(Duration::ZERO),
        resumable_retry: Some(retry.as_millis() as u64),
        ..Behaviour::default()
    };
    let server = HostileServer::start(behaviour).await;
    let client = Client::builder().negotiation(Negotiation::Handshake).connect_http(&server.url()).await.unwrap();
    let result = client.call_tool("resumable", json!({})).await.unwrap();
    assert_eq!(result.text(), Some("resumed"));
    let closed = server.marked("call stream closed").unwrap();
    let resumed: Vec<_> = server.gets().into_iter().filter(|r| r.header("last-event-id").is_some()).collect();
    assert_eq!(resumed.len(), 1, "{resumed:?}");
    assert_eq!(resumed[0].header("last-event-id"), Some(RESUMABLE_EVENT_ID));
    assert!(resumed[0].at >= closed + retry, "resumed {:?} after the close", resumed[0].at - closed);
    // The session's own stream was opened before the call, without an event id.
    let first = &server.gets()[0];
    assert!(first.header("last-event-id").is_none() && first.at < closed);
    client.close().await;
}
