//! `Server::mount`: a gateway serving other servers under a prefix. The mounted servers are
//! one built here (over Streamable HTTP, in both eras), the `calculator` example and the
//! official TypeScript server-everything over stdio, and a Python SDK server over Streamable
//! HTTP in both eras; the gateway is driven by our client over HTTP
//! in both eras, whose handlers answer what the mounted server asks through the gateway.
//! Malicious mounted servers (`mcp_tests::hostile_server`, the `flooding-server` binary) answer
//! with floods far over the mounted client's maximum message size.
#![cfg(feature = "client")]

use mcp_runtime::client::{Client, ClientError, CompletionTarget, Negotiation, Notification, StderrMode};
use mcp_runtime::prelude::*;
use mcp_runtime::{CompletionRequest, ResourceContents};
use mcp_tests::client_kit::{
    ROOT, Seen, answering_client, ask_model, ask_name, eventually, hang, list_roots, note, numbered, review, serve, url,
};
use mcp_tests::external::{HttpProcess, example_binary, node, python, python_server, server_everything};
use mcp_tests::hostile_server::{Behaviour, HostileServer};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Add two integers.
#[mcp_tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Reports progress `count` times.
#[mcp_tool]
async fn steps(count: u32, ctx: Context) -> String {
    for i in 1..=count {
        ctx.progress_with_message(f64::from(i), f64::from(count), format!("step {i}")).await;
    }
    format!("{count} steps")
}

/// Subtracts.
#[mcp_tool]
fn sub(a: i64, b: i64) -> i64 {
    a - b
}

static PAINTED: AtomicUsize = AtomicUsize::new(0);

/// Paints in one of two colours: its schema says which, and its server (built with
/// `check_arguments(false)`) does not check.
#[mcp_tool(
    input_schema = r#"{"type": "object", "properties": {"color": {"type": "string", "enum": ["red", "green"]}}, "required": ["color"], "additionalProperties": false}"#
)]
fn paint(color: String) -> String {
    PAINTED.fetch_add(1, Ordering::SeqCst);
    format!("painted {color}")
}

/// The gateway's own tool.
#[mcp_tool]
fn own() -> &'static str {
    "mine"
}

fn remote(seen: Seen) -> Server {
    Server::new("remote", "1.0")
        .tools(tools![add, steps, hang, ask_model, ask_name, list_roots])
        .resources(resources![note, numbered])
        .prompts(prompts![review])
        .state(seen)
}

/// A gateway serving its own tool and `remote` mounted as `remote`, and a client of it.
async fn gateway(
    remote: SocketAddr,
    remote_era: Negotiation,
    era: Negotiation,
) -> (Client, mcp_tests::client_kit::Received) {
    let mounted = Client::builder()
        .negotiation(remote_era)
        .forward_server_requests()
        .timeout(Duration::from_secs(20))
        .connect_http(&url(remote))
        .await
        .unwrap();
    let gateway = Server::new("gateway", "1.0").tools(tools![own]).mount("remote", mounted).await.unwrap();
    let address = serve(gateway).await;
    let (builder, received) = answering_client(era);
    (builder.connect_http(&url(address)).await.unwrap(), received)
}

const ERAS: [Negotiation; 2] = [Negotiation::Handshake, Negotiation::Stateless];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_servers_tools_are_listed_and_called_under_its_prefix() {
    let address = serve(remote(Seen::default())).await;
    for remote_era in ERAS {
        let (client, _) = gateway(address, remote_era, Negotiation::Handshake).await;
        let tools = client.list_tools().await.unwrap();
        let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "own",
                "remote_add",
                "remote_steps",
                "remote_hang",
                "remote_ask_model",
                "remote_ask_name",
                "remote_list_roots"
            ],
            "{remote_era:?}"
        );
        let add = &tools[1];
        assert_eq!(add.description.as_deref(), Some("Add two integers."));
        assert_eq!(add.input_schema["properties"]["b"]["type"], "integer");
        assert_eq!(add.annotations.as_ref().unwrap()["readOnlyHint"], true);
        assert_eq!(client.call_tool("own", json!({})).await.unwrap().text(), Some("mine"));
        let sum = client.call_tool("remote_add", json!({"a": 2, "b": 40})).await.unwrap();
        assert_eq!(sum.text(), Some("42"), "{remote_era:?}");
        // Arguments that break the mounted tool's schema come back as the tool's error result.
        let bad = client.call_tool("remote_add", json!({"a": "two", "b": 1})).await.unwrap();
        assert!(bad.is_error && bad.text().unwrap_or_default().contains("`a`"), "{bad:?}");
        let unknown = client.call_tool("remote_nope", json!({})).await.unwrap_err();
        assert!(matches!(unknown, ClientError::Server(ref e) if e.code == -32602), "{unknown:?}");
        client.close().await;
    }
    // A prefix that would make names no client accepts is refused, saying what to write.
    let mounted = Client::builder().connect_http(&url(address)).await.unwrap();
    let refused = Server::new("gateway", "1.0").mount("my tools", mounted).await.err().expect("a refusal");
    assert!(refused.to_string().contains("use letters, digits"), "{refused}");
}

/// The gateway enforces the schema it advertises for a mounted tool: a call that breaks it is
/// refused there, naming the fields, and never reaches the mounted server (which, here, would
/// not have checked it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_checks_a_mounted_tools_arguments_against_its_schema() {
    let address = serve(Server::new("remote", "1.0").tools(tools![paint]).check_arguments(false)).await;
    let (client, _) = gateway(address, Negotiation::Handshake, Negotiation::Handshake).await;
    let bad = client.call_tool("remote_paint", json!({"color": "blue", "brush": "wide"})).await.unwrap();
    let message = bad.text().unwrap_or_default();
    assert!(bad.is_error && message.starts_with("invalid arguments for tool `remote_paint`: "), "{bad:?}");
    assert!(
        message.contains("`color`: \"blue\" is not one of") && message.contains("`brush`: not allowed"),
        "{message}"
    );
    assert_eq!(PAINTED.load(Ordering::SeqCst), 0, "the mounted server was not called");
    let good = client.call_tool("remote_paint", json!({"color": "green"})).await.unwrap();
    assert_eq!(good.text(), Some("painted green"));
    assert_eq!(PAINTED.load(Ordering::SeqCst), 1);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_cancellation_cross_the_gateway() {
    for remote_era in ERAS {
        let seen = Seen::default();
        let address = serve(remote(seen.clone())).await;
        let (client, _) = gateway(address, remote_era, Negotiation::Handshake).await;
        let reports = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&reports);
        let done = client
            .call_tool("remote_steps", json!({"count": 3}))
            .on_progress(move |p| sink.lock().unwrap().push((p.progress, p.total, p.message)))
            .await
            .unwrap();
        assert_eq!(done.text(), Some("3 steps"));
        let expected: Vec<_> = (1..=3).map(|i| (f64::from(i), Some(3.0), Some(format!("step {i}")))).collect();
        assert_eq!(*reports.lock().unwrap(), expected, "{remote_era:?}");

        let token = mcp_runtime::CancellationToken::new();
        let call = client.call_tool("remote_hang", json!({})).cancel_with(token.clone());
        let canceller = async {
            eventually("the mounted tool starts", || seen.started.load(Ordering::SeqCst)).await;
            token.cancel();
        };
        let (outcome, ()) = tokio::join!(std::future::IntoFuture::into_future(call), canceller);
        assert!(matches!(outcome, Err(ClientError::Cancelled)), "{outcome:?}");
        eventually(&format!("{remote_era:?}: the mounted server cancels its tool"), || {
            seen.cancelled.load(Ordering::SeqCst)
        })
        .await;
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mounted_servers_requests_reach_the_gateways_client() {
    let address = serve(remote(Seen::default())).await;
    for remote_era in ERAS {
        for era in ERAS {
            let (client, _) = gateway(address, remote_era, era).await;
            let sampled = client.call_tool("remote_ask_model", json!({"question": "2+2?"})).await.unwrap();
            assert_eq!(sampled.text(), Some("echo: 2+2? (test-model)"), "{remote_era:?} behind {era:?}");
            let named = client.call_tool("remote_ask_name", json!({})).await.unwrap();
            assert_eq!(named.text(), Some("hello Ada"), "{remote_era:?} behind {era:?}");
            let roots = client.call_tool("remote_list_roots", json!({})).await.unwrap();
            assert_eq!(roots.text(), Some(ROOT), "{remote_era:?} behind {era:?}");
            client.close().await;
        }
    }
    // A gateway client without handlers declares nothing: the mounted tool fails cleanly.
    let mounted = Client::builder().negotiation(Negotiation::Handshake).connect_http(&url(address)).await.unwrap();
    let gateway = Server::new("gateway", "1.0").mount("remote", mounted).await.unwrap();
    let client = Client::builder().connect_http(&url(serve(gateway).await)).await.unwrap();
    let refused = client.call_tool("remote_ask_model", json!({"question": "?"})).await.unwrap();
    assert!(refused.is_error && refused.text().unwrap_or_default().contains("sampling"), "{refused:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_prompts_and_completions_are_mounted_too() {
    let address = serve(remote(Seen::default())).await;
    for remote_era in ERAS {
        let (client, _) = gateway(address, remote_era, Negotiation::Stateless).await;
        let resources = client.list_resources().await.unwrap();
        assert_eq!(resources.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(), ["mem://remote/note"]);
        assert_eq!(resources[0].mime_type.as_deref(), Some("text/plain"));
        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(templates[0].uri_template, "mem://remote/notes/{id}");
        let read = client.read_resource("mem://remote/notes/7").await.unwrap();
        assert!(
            matches!(&read.contents[0], ResourceContents::Text { text, uri, .. } if text == "note 7" && uri == "mem://remote/notes/7"),
            "{read:?}"
        );
        let note = client.read_resource("mem://remote/note").await.unwrap();
        assert!(matches!(&note.contents[0], ResourceContents::Text { text, .. } if text == "a note"), "{note:?}");
        let missing = client.read_resource("mem://remote/nothing").await.unwrap_err();
        assert!(missing.error_object().is_some(), "{missing:?}");

        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts[0].name, "remote_review");
        assert_eq!(prompts[0].arguments.len(), 2);
        let prompt =
            client.get_prompt("remote_review", [("code", "fn main() {}"), ("language", "rust")]).await.unwrap();
        assert_eq!(prompt.messages[0].content.as_text(), Some("Review this rust: fn main() {}"));
        let typed = CompletionRequest { argument: "language".into(), value: "r".into(), ..Default::default() };
        let completion = client.complete(CompletionTarget::Prompt("remote_review".into()), typed).await.unwrap();
        assert_eq!(completion.values, ["rust", "ruby"], "{remote_era:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_follows_the_mounted_servers_list_changes() {
    let remote = remote(Seen::default());
    let handle = remote.handle();
    let address = serve(remote).await;
    let (client, received) = gateway(address, Negotiation::Handshake, Negotiation::Handshake).await;
    assert!(!client.list_tools().await.unwrap().iter().any(|t| t.name == "remote_sub"));
    handle.add_tools(tools![sub]).unwrap();
    received.wait_for("tools/list_changed", |n| *n == Notification::ToolsListChanged).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while !client.list_tools().await.unwrap().iter().any(|t| t.name == "remote_sub") {
        assert!(Instant::now() < deadline, "remote_sub never appeared");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(client.call_tool("remote_sub", json!({"a": 5, "b": 3})).await.unwrap().text(), Some("2"));
    handle.remove_tools(&["add"]).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while client.list_tools().await.unwrap().iter().any(|t| t.name == "remote_add") {
        assert!(Instant::now() < deadline, "remote_add never left");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(client.list_tools().await.unwrap().iter().any(|t| t.name == "own"));
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn examples_and_server_everything_mount_over_stdio() {
    let calculator = Client::stdio(tokio::process::Command::new(example_binary("calculator"))).await.unwrap();
    let mut everything = tokio::process::Command::new(node());
    everything.arg(server_everything()).arg("stdio");
    let everything = Client::builder()
        .forward_server_requests()
        .stderr(mcp_runtime::client::StderrMode::Capture)
        .connect_stdio(everything)
        .await
        .unwrap();
    let gateway = Server::new("gateway", "1.0").mount("calc", calculator).await.unwrap();
    let gateway = gateway.mount("everything", everything).await.unwrap();
    let (builder, _) = answering_client(Negotiation::Auto);
    let client = builder.connect_http(&url(serve(gateway).await)).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    for name in ["calc_add", "everything_echo", "everything_get-sum", "everything_trigger-sampling-request"] {
        assert!(
            tools.iter().any(|t| t.name == name),
            "no {name} in {:?}",
            tools.iter().map(|t| &t.name).collect::<Vec<_>>()
        );
    }
    assert_eq!(client.call_tool("calc_add", json!({"a": 2, "b": 3})).await.unwrap().text(), Some("5"));
    let echo = client.call_tool("everything_echo", json!({"message": "héllo"})).await.unwrap();
    assert_eq!(echo.text(), Some("Echo: héllo"));
    let sampled = client
        .call_tool("everything_trigger-sampling-request", json!({"prompt": "2+2?", "maxTokens": 20}))
        .await
        .unwrap();
    // server-everything shows what the model (the gateway's client: `echo: ...`) answered.
    let text = sampled.text().unwrap_or_default();
    assert!(text.contains("test-model") && text.contains("echo: ") && text.contains("2+2?"), "{sampled:?}");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_sdk_server_mounts_in_both_eras() {
    let script = python_server();
    let python_server = HttpProcess::start(&python(), &[script.to_str().unwrap(), "http", "{port}"]);
    for remote_era in ERAS {
        let mounted = Client::builder()
            .negotiation(remote_era)
            .forward_server_requests()
            .connect_http(&python_server.url())
            .await
            .unwrap();
        let gateway = Server::new("gateway", "1.0").mount("py", mounted).await.unwrap();
        let gateway_url = url(serve(gateway).await);
        let (builder, _) = answering_client(Negotiation::Handshake);
        let client = builder.connect_http(&gateway_url).await.unwrap();
        let tools = client.list_tools().await.unwrap();
        let add = tools.iter().find(|t| t.name == "py_add").expect("py_add");
        assert_eq!(add.description.as_deref(), Some("Add two integers."));
        assert!(add.output_schema.is_some(), "{add:?}");
        let sum = client.call_tool("py_add", json!({"a": 2, "b": 40})).await.unwrap();
        assert_eq!(sum.structured_content, Some(json!({"result": 42})), "{remote_era:?}");
        let reports = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&reports);
        let counted = client
            .call_tool("py_count_to", json!({"steps": 3}))
            .on_progress(move |p| sink.lock().unwrap().push(p.message))
            .await
            .unwrap();
        assert_eq!(counted.text(), Some("counted to 3"));
        assert_eq!(reports.lock().unwrap().last().cloned().flatten().as_deref(), Some("step 3"), "{remote_era:?}");
        client.close().await;
        if remote_era == Negotiation::Stateless {
            continue; // the Python SDK sends its requests to the client in a session only
        }
        let (builder, _) = answering_client(Negotiation::Stateless);
        let client = builder.connect_http(&gateway_url).await.unwrap();
        let sampled = client.call_tool("py_ask_model", json!({"prompt": "2+2?"})).await.unwrap();
        assert_eq!(sampled.text(), Some("model said: echo: 2+2?"), "{remote_era:?}");
        let named = client.call_tool("py_ask_name", json!({})).await.unwrap();
        assert_eq!(named.text(), Some("hello Ada"), "{remote_era:?}");
        let roots = client.call_tool("py_client_roots", json!({})).await.unwrap();
        assert_eq!(roots.text(), Some(ROOT), "{remote_era:?}");
        client.close().await;
    }
}

/// A mounted server that answers with 256 MiB (over HTTP) or a 64 MiB line (over stdio): the
/// gateway reads no further than its client's limit (4 MiB by default), answers that call with
/// an error naming the limit, and goes on serving: the gateway's own tool, and over HTTP the
/// mounted server's other tools.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_server_that_floods_fails_that_call_and_the_gateway_serves_on() {
    let limit = 4 << 20;
    let hostile = HostileServer::start(Behaviour::default()).await;
    let over_http = Client::builder().negotiation(Negotiation::Handshake).connect_http(&hostile.url()).await.unwrap();
    let flooding = tokio::process::Command::new(env!("CARGO_BIN_EXE_flooding-server"));
    let over_stdio = Client::builder().stderr(StderrMode::Discard).connect_stdio(flooding).await.unwrap();
    let gateway = Server::new("gateway", "1.0").tools(tools![own]).mount("hostile", over_http).await.unwrap();
    let gateway = gateway.mount("flooding", over_stdio).await.unwrap();
    let (builder, _) = answering_client(Negotiation::Handshake);
    let client = builder.connect_http(&url(serve(gateway).await)).await.unwrap();
    let limit_named = format!("limit of {limit} bytes");
    for (tool, what) in [
        ("hostile_flood_json", "an HTTP body"),
        ("hostile_flood_sse_line", "an SSE line"),
        ("hostile_flood_sse_event", "an SSE event"),
        ("flooding_flood", "a stdio line"),
    ] {
        let failed = client.call_tool(tool, json!({})).await.unwrap();
        let text = failed.text().unwrap_or_default();
        assert!(failed.is_error && text.contains(what) && text.contains(&limit_named), "{tool}: {failed:?}");
        assert_eq!(client.call_tool("own", json!({})).await.unwrap().text(), Some("mine"));
    }
    eventually("the three floods to end", || hostile.floods().len() == 3).await;
    for flood in hostile.floods() {
        // The kernel's socket buffers (36 MiB at most here) besides the limit; 256 MiB offered.
        assert!(!flood.completed && flood.sent < limit + (48 << 20), "{flood:?}");
    }
    assert_eq!(client.call_tool("hostile_ok", json!({})).await.unwrap().text(), Some("fine"));
    // The stdio connection could not be read past the line: it is closed, and says so.
    let closed = client.call_tool("flooding_ok", json!({})).await.unwrap();
    assert!(closed.is_error && closed.text().unwrap_or_default().contains("closed"), "{closed:?}");
    client.close().await;
}
