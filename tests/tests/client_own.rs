//! `mcp_runtime::client` against our own servers: one built here and served over Streamable
//! HTTP in both eras (pagination, progress, cancellation, the server's requests, resources,
//! subscriptions, prompts, completion, logging, a bearer token), and the example binaries
//! (`calculator` over stdio, `conformance` over stdio and HTTP, with a dropped SSE stream
//! resumed). Needs `cargo build -p calculator -p conformance -p http-server` first
//! (scripts/test.sh does it).
#![cfg(feature = "client")]

use mcp_runtime::client::{Client, ClientError, CompletionTarget, Negotiation, Notification};
use mcp_runtime::prelude::*;
use mcp_runtime::{CompletionRequest, ProtocolVersion, ResourceContents, Sampling};
use mcp_tests::client_kit::{
    DropFlag, ROOT, Seen, answering_client, ask_model, ask_name, eventually, hang, list_roots, note, numbered, review,
    serve, url,
};
use mcp_tests::external::{HttpProcess, example_binary};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Add two integers.
#[mcp_tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Says hello.
#[mcp_tool]
fn hello(name: String) -> String {
    format!("hello {name}")
}

/// Does nothing.
#[mcp_tool]
fn noop() {}

/// Reports progress `count` times, logging each step.
#[mcp_tool]
async fn steps(count: u32, ctx: Context) -> String {
    for i in 1..=count {
        ctx.progress(f64::from(i), f64::from(count)).await;
        ctx.info(format!("step {i}")).await;
    }
    format!("{count} steps")
}

/// Asks the client's model, giving it 200 ms.
#[mcp_tool]
async fn ask_quickly(ctx: Context) -> String {
    match ctx.sample(Sampling::new("quick?").timeout(Duration::from_millis(200))).await {
        Ok(reply) => reply.text().unwrap_or_default().to_owned(),
        Err(error) => error.to_string(),
    }
}

/// Announces that `mem://note` changed.
#[mcp_tool]
fn touch(ctx: Context) -> Result<&'static str, mcp_runtime::Error> {
    ctx.server().resource_updated("mem://note")?;
    Ok("touched")
}

fn server(seen: Seen) -> Server {
    server!()
        .page_size(2)
        .tools(tools![add, hello, noop, steps, hang, ask_model, ask_name, list_roots, touch, ask_quickly])
        .resources(resources![note, numbered])
        .prompts(prompts![review])
        .state(seen)
}

const ERAS: [(Negotiation, ProtocolVersion); 2] =
    [(Negotiation::Handshake, ProtocolVersion::V2025_11_25), (Negotiation::Stateless, ProtocolVersion::V2026_07_28)];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_negotiation_picks_2026_07_28_from_our_server() {
    let address = serve(server(Seen::default())).await;
    let client = Client::http(&url(address)).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let details = client.server();
    assert_eq!(details.server_info.as_ref().map(|i| i.name.as_str()), Some("mcp-tests"));
    assert!(details.has_capability(&["tools"]));
    client.ping().await.unwrap();
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_every_page_and_calls_in_both_eras() {
    let address = serve(server(Seen::default())).await;
    for (era, version) in ERAS {
        let (builder, _) = answering_client(era);
        let client = builder.connect_http(&url(address)).await.unwrap();
        assert_eq!(client.protocol_version(), version);
        let first = client.list_tools_page(None).await.unwrap();
        assert_eq!(first.items.len(), 2, "{era:?}");
        let cursor = first.next_cursor.expect("a second page");
        let second = client.list_tools_page(Some(&cursor)).await.unwrap();
        assert_eq!(second.items[0].name, "noop");
        let tools = client.list_tools().await.unwrap();
        let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            ["add", "hello", "noop", "steps", "hang", "ask_model", "ask_name", "list_roots", "touch", "ask_quickly"]
        );
        assert_eq!(tools[0].input_schema["properties"]["a"]["type"], "integer");
        let sum = client.call_tool("add", json!({"a": 2, "b": 40})).await.unwrap();
        assert_eq!(sum.text(), Some("42"), "{era:?}");
        let unknown = client.call_tool("nope", json!({})).await.unwrap_err();
        assert!(matches!(unknown, ClientError::Server(ref e) if e.code == -32602), "{era:?}: {unknown:?}");
        let bad = client.call_tool("add", json!({"a": "two"})).await.unwrap();
        assert!(bad.is_error, "{era:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_logs_reach_their_callbacks_in_both_eras() {
    let address = serve(server(Seen::default())).await;
    for (era, _) in ERAS {
        let (builder, received) = answering_client(era);
        let client = builder.connect_http(&url(address)).await.unwrap();
        client.set_logging_level(LoggingLevel::Info).await.unwrap();
        let reports = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = Arc::clone(&reports);
        let result = client
            .call_tool("steps", json!({"count": 3}))
            .on_progress(move |p| sink.lock().unwrap().push((p.progress, p.total)))
            .await
            .unwrap();
        assert_eq!(result.text(), Some("3 steps"));
        assert_eq!(*reports.lock().unwrap(), [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))], "{era:?}");
        received.wait_for("a log line", |n| matches!(n, Notification::Log { data, .. } if data == "step 3")).await;
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_call_stops_the_tool_in_both_eras() {
    for (era, _) in ERAS {
        let seen = Seen::default();
        let address = serve(server(seen.clone())).await;
        let (builder, _) = answering_client(era);
        let client = builder.connect_http(&url(address)).await.unwrap();
        let token = mcp_runtime::CancellationToken::new();
        let call = client.call_tool("hang", json!({})).cancel_with(token.clone());
        let canceller = async {
            eventually("the tool starts", || seen.started.load(Ordering::SeqCst)).await;
            token.cancel();
        };
        let (outcome, ()) = tokio::join!(call.into_future(), canceller);
        assert!(matches!(outcome, Err(ClientError::Cancelled)), "{era:?}: {outcome:?}");
        eventually(&format!("{era:?}: the server cancels the tool"), || seen.cancelled.load(Ordering::SeqCst)).await;

        // Dropping the call future cancels it too.
        let seen_again = Seen::default();
        let address = serve(server(seen_again.clone())).await;
        let (builder, _) = answering_client(era);
        let client = builder.connect_http(&url(address)).await.unwrap();
        let dropped =
            tokio::time::timeout(Duration::from_millis(300), client.call_tool("hang", json!({})).into_future());
        assert!(dropped.await.is_err());
        eventually(&format!("{era:?}: the dropped call's tool is cancelled"), || {
            seen_again.cancelled.load(Ordering::SeqCst)
        })
        .await;
        let timed_out = client.call_tool("hang", json!({})).timeout(Duration::from_millis(200)).await;
        assert!(matches!(timed_out, Err(ClientError::Timeout(_))), "{timed_out:?}");
        assert_eq!(client.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap().text(), Some("3"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_requests_reach_the_handlers_in_both_eras() {
    let address = serve(server(Seen::default())).await;
    for (era, _) in ERAS {
        let (builder, _) = answering_client(era);
        let client = builder.connect_http(&url(address)).await.unwrap();
        let sampled = client.call_tool("ask_model", json!({"question": "2+2?"})).await.unwrap();
        assert_eq!(sampled.text(), Some("echo: 2+2? (test-model)"), "{era:?}");
        let named = client.call_tool("ask_name", json!({})).await.unwrap();
        assert_eq!(named.text(), Some("hello Ada"), "{era:?}");
        let roots = client.call_tool("list_roots", json!({})).await.unwrap();
        assert_eq!(roots.text(), Some(ROOT), "{era:?}");
        client.close().await;
    }
    // A client without handlers declares no capability: the server's tool fails cleanly.
    let client = Client::builder().negotiation(Negotiation::Handshake).connect_http(&url(address)).await.unwrap();
    let refused = client.call_tool("ask_model", json!({"question": "?"})).await.unwrap();
    assert!(refused.is_error && refused.text().unwrap_or_default().contains("sampling"), "{refused:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_subscriptions_prompts_and_completion_in_both_eras() {
    let address = serve(server(Seen::default())).await;
    for (era, _) in ERAS {
        let (builder, received) = answering_client(era);
        let client = builder.connect_http(&url(address)).await.unwrap();
        let resources = client.list_resources().await.unwrap();
        assert_eq!(resources.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(), ["mem://note"]);
        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(templates[0].uri_template, "mem://notes/{id}");
        let read = client.read_resource("mem://notes/7").await.unwrap();
        assert!(matches!(&read.contents[0], ResourceContents::Text { text, .. } if text == "note 7"), "{read:?}");
        let missing = client.read_resource("mem://nothing").await.unwrap_err();
        assert!(missing.error_object().is_some(), "{missing:?}");

        client.subscribe("mem://note").await.unwrap();
        client.call_tool("touch", json!({})).await.unwrap();
        received
            .wait_for(
                "resources/updated",
                |n| matches!(n, Notification::ResourceUpdated { uri } if uri == "mem://note"),
            )
            .await;
        client.unsubscribe("mem://note").await.unwrap();

        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts[0].name, "review");
        assert_eq!(prompts[0].arguments.len(), 2);
        let prompt = client.get_prompt("review", [("code", "fn main() {}"), ("language", "rust")]).await.unwrap();
        assert_eq!(prompt.messages[0].content.as_text(), Some("Review this rust: fn main() {}"));
        let typed = CompletionRequest { argument: "language".into(), value: "r".into(), ..Default::default() };
        let completion = client.complete(CompletionTarget::Prompt("review".into()), typed).await.unwrap();
        assert_eq!(completion.values, ["rust", "ruby"], "{era:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_cancelling_its_request_stops_the_handler() {
    let address = serve(server(Seen::default())).await;
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&dropped);
    let client = Client::builder()
        .negotiation(Negotiation::Handshake)
        .on_sampling(move |_| {
            let flag = DropFlag(Arc::clone(&flag));
            async move {
                let _flag = flag;
                std::future::pending::<Result<mcp_runtime::Sampled, mcp_runtime::ErrorObject>>().await
            }
        })
        .connect_http(&url(address))
        .await
        .unwrap();
    let result = client.call_tool("ask_quickly", json!({})).await.unwrap();
    assert!(result.text().unwrap_or_default().contains("did not answer"), "{result:?}");
    eventually("the sampling handler is dropped", || dropped.load(Ordering::SeqCst)).await;
    client.close().await;
}

#[cfg(feature = "auth")]
mod bearer {
    use super::*;
    use mcp_runtime::auth::{AuthConfig, AuthError, AuthInfo, TokenVerifier};
    use mcp_runtime::http::HttpConfig;

    struct OneToken;

    impl TokenVerifier for OneToken {
        async fn verify(&self, token: &str, _resource: &str) -> Result<AuthInfo, AuthError> {
            match token {
                "open-sesame" => Ok(AuthInfo::new("ali-baba", token)),
                _ => Err(AuthError::invalid_token("unknown token")),
            }
        }
    }

    /// Who is calling.
    #[mcp_tool]
    fn whoami(caller: AuthInfo) -> String {
        caller.subject().to_owned()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_bearer_token_is_sent_in_both_eras() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let auth = AuthConfig::new(OneToken)
            .resource(format!("http://{address}/mcp"))
            .authorization_server("https://issuer.example");
        let service = server!().tools(tools![whoami]).into_http_service(HttpConfig::default().auth(auth)).unwrap();
        tokio::spawn(service.serve(listener, std::future::pending()));
        for (era, _) in ERAS {
            let client = Client::builder()
                .negotiation(era)
                .bearer_token("open-sesame")
                .connect_http(&url(address))
                .await
                .unwrap();
            assert_eq!(client.call_tool("whoami", json!({})).await.unwrap().text(), Some("ali-baba"));
            client.close().await;
            let refused = Client::builder().negotiation(era).connect_http(&url(address)).await.err();
            assert!(matches!(refused, Some(ClientError::Http { status: 401, .. })), "{refused:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calculator_over_stdio() {
    let mut command = tokio::process::Command::new(example_binary("calculator"));
    command.env("RUST_LOG", "debug");
    let client =
        Client::builder().stderr(mcp_runtime::client::StderrMode::Capture).connect_stdio(command).await.unwrap();
    // The calculator speaks both eras; auto negotiation picks the newer.
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools.len(), 4);
    let quotient = client.call_tool("divide", json!({"a": 1, "b": 0})).await.unwrap();
    assert!(quotient.is_error);
    assert_eq!(client.call_tool("multiply", json!({"a": 6, "b": 7})).await.unwrap().text(), Some("42"));
    client.close().await;

    let handshake = Client::builder()
        .negotiation(Negotiation::Handshake)
        .connect_stdio(tokio::process::Command::new(example_binary("calculator")))
        .await
        .unwrap();
    assert_eq!(handshake.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(handshake.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap().text(), Some("3"));
    handshake.ping().await.unwrap();
    handshake.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_fixture_over_stdio_in_both_eras() {
    for (era, version) in ERAS {
        let mut command = tokio::process::Command::new(example_binary("conformance"));
        command.arg("--stdio");
        let (builder, received) = answering_client(era);
        let client = builder.connect_stdio(command).await.unwrap();
        assert_eq!(client.protocol_version(), version);
        let sampled = client.call_tool("test_sampling", json!({"prompt": "hi"})).await.unwrap();
        assert!(sampled.text().unwrap_or_default().contains("echo: hi"), "{era:?}: {sampled:?}");
        let ticks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = Arc::clone(&ticks);
        client
            .call_tool("test_tool_with_progress", json!({}))
            .on_progress(move |_| {
                counter.fetch_add(1, Ordering::SeqCst);
            })
            .await
            .unwrap();
        assert!(ticks.load(Ordering::SeqCst) >= 2, "{era:?}");
        client.subscribe("test://watched-resource").await.unwrap();
        client.call_tool("test_trigger_resource_update", json!({"uri": "test://watched-resource"})).await.unwrap();
        received.wait_for("resources/updated", |n| matches!(n, Notification::ResourceUpdated { .. })).await;
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_sse_stream_is_resumed_with_last_event_id() {
    let server = HttpProcess::start(&example_binary("conformance"), &[]);
    let (builder, _) = answering_client(Negotiation::Handshake);
    let client = builder.connect_http(&server.url()).await.unwrap();
    let result = client.call_tool("test_reconnection", json!({})).await.unwrap();
    assert_eq!(result.text(), Some("Reconnection test completed"));
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_server_example_in_both_eras() {
    let server = HttpProcess::start(&example_binary("http-server"), &[]);
    for (era, version) in ERAS {
        let (builder, _) = answering_client(era);
        let client = builder.connect_http(&server.url()).await.unwrap();
        assert_eq!(client.protocol_version(), version);
        assert_eq!(client.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap().text(), Some("3"));
        if era == Negotiation::Handshake {
            // It closes its SSE stream at once: the answer comes on resumption.
            assert_eq!(client.call_tool("long_job", json!({})).await.unwrap().text(), Some("job done"));
        }
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x_mcp_header_arguments_are_mirrored_over_http_in_2026_07_28() {
    let server = HttpProcess::start(&example_binary("conformance"), &[]);
    let (builder, _) = answering_client(Negotiation::Stateless);
    let client = builder.connect_http(&server.url()).await.unwrap();
    let arguments = json!({"region": "Zürich", "priority": 2, "verbose": true, "query": "SELECT 1"});
    // The headers come from the tool's schema: before the tools are listed, none are sent,
    // and the server refuses the call.
    let unlisted = client.call_tool("test_custom_headers", arguments.clone()).await;
    assert!(unlisted.is_err(), "{unlisted:?}");
    client.list_tools().await.unwrap();
    let result = client.call_tool("test_custom_headers", arguments).await.unwrap();
    assert_eq!(result.text(), Some("Ran `SELECT 1` in Zürich at priority 2 (verbose: true)"), "{result:?}");
    client.close().await;
}
