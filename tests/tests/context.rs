//! What a handler can ask for: shared and per-session state, and requests to the client
//! (sampling, elicitation, roots) with their capability checks, timeouts and cancellation.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::{TestClient, TestServer};
use mcp_runtime::{ClientError, Elicitation, SessionState, State};
use mcp_tests::spec_2025_11_25;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Serializes: a session store keeps a `SessionState` value (the atomic's current count).
#[derive(Default, Serialize, Deserialize)]
struct Hits {
    count: AtomicU32,
}

/// Counts calls across sessions and within this one.
#[mcp_tool]
fn hit(total: State<Hits>, mine: SessionState<Hits>) -> String {
    let total = total.count.fetch_add(1, Ordering::SeqCst) + 1;
    let mine = mine.count.fetch_add(1, Ordering::SeqCst) + 1;
    format!("{total}/{mine}")
}

/// Asks the client's model.
#[mcp_tool]
async fn ask(prompt: String, ctx: Context) -> Result<String, ClientError> {
    let reply = ctx.sample(mcp_runtime::Sampling::new(prompt).max_tokens(100)).await?;
    Ok(format!("LLM response: {}", reply.text().unwrap_or_default()))
}

/// A booking form.
#[derive(Deserialize, JsonSchema)]
struct Booking {
    /// How many guests
    guests: u32,
    /// A name for the table
    name: Option<String>,
}

/// Books a table, asking for the details.
#[mcp_tool]
async fn book(ctx: Context) -> Result<String, ClientError> {
    Ok(match ctx.elicit::<Booking>("Booking details?").await? {
        Elicitation::Accept(b) => format!("booked for {} ({})", b.guests, b.name.unwrap_or_else(|| "anonymous".into())),
        Elicitation::Decline => "declined".into(),
        Elicitation::Cancel => "cancelled".into(),
    })
}

/// Lists the client's roots.
#[mcp_tool]
async fn list_roots(ctx: Context) -> Result<String, ClientError> {
    let roots = ctx.roots().await?;
    Ok(roots.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join(","))
}

/// Sends the user to a URL.
#[mcp_tool]
async fn authorize(ctx: Context) -> Result<String, ClientError> {
    let outcome = ctx.elicit_url("Sign in", "https://example.com/auth", "auth-1").await?;
    Ok(format!("{outcome:?}"))
}

fn server() -> Server {
    server!()
        .state(Hits::default())
        .client_request_timeout(Duration::from_millis(300))
        .tools(tools![hit, ask, book, list_roots, authorize])
}

fn assert_valid(client: &TestClient) {
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

type Seen = Arc<Mutex<Vec<(String, Value)>>>;

/// A client declaring everything, answering from `answers` by method, recording what it saw.
async fn client_answering(answers: Value) -> (TestClient, Seen) {
    let seen: Seen = Arc::default();
    let record = Arc::clone(&seen);
    let client = TestClient::options()
        .capabilities(json!({"sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": true}}))
        .on_request(move |method, params| {
            record.lock().unwrap().push((method.to_owned(), params.clone()));
            answers.get(method).cloned().map(Ok)
        })
        .connect(server())
        .await;
    (client, seen)
}

#[tokio::test]
async fn shared_state_spans_sessions_and_session_state_does_not() {
    let server = TestServer::start(server());
    let (a, b) = (server.connect().await, server.connect().await);
    assert_eq!(a.call_tool("hit", json!({})).await.unwrap().text(), Some("1/1"));
    assert_eq!(a.call_tool("hit", json!({})).await.unwrap().text(), Some("2/2"));
    assert_eq!(b.call_tool("hit", json!({})).await.unwrap().text(), Some("3/1"));
    let schema = &a.list_tools().await.unwrap()[0]["inputSchema"];
    assert_eq!(schema["properties"], json!({}), "injected state is not an argument");
    assert_valid(&a);
}

/// Reads the shared count.
#[mcp_resource(uri = "hits://total")]
fn total_hits(total: State<Hits>) -> String {
    total.count.load(Ordering::SeqCst).to_string()
}

/// Mentions the shared count.
#[mcp_prompt]
fn hits_prompt(topic: String, total: State<Hits>) -> String {
    format!("{topic}: {}", total.count.load(Ordering::SeqCst))
}

#[tokio::test]
async fn missing_state_is_refused_when_the_server_is_built() {
    let refusal = |server: Server| async move {
        let error = server.serve_stdio().await.expect_err("refused before serving");
        assert_eq!(error.kind(), mcp_runtime::ErrorKind::Config);
        error.to_string()
    };
    let tool = refusal(server!().tools(tools![hit])).await;
    assert!(
        tool.contains("the tool `hit` takes `State<context::Hits>`, but no `context::Hits` was registered"),
        "{tool}"
    );
    let resource = refusal(server!().resources(resources![total_hits])).await;
    assert!(resource.contains("the resource `hits://total` takes `State<context::Hits>`"), "{resource}");
    let prompt = refusal(server!().prompts(prompts![hits_prompt])).await;
    assert!(prompt.contains("the prompt `hits_prompt` takes `State<context::Hits>`"), "{prompt}");

    let client = TestClient::connect(server().resources(resources![total_hits]).prompts(prompts![hits_prompt])).await;
    let read = client.request("resources/read", json!({"uri": "hits://total"})).await.unwrap();
    assert_eq!(read["contents"][0]["text"], "0", "registered: served");
    let listed = client.request("prompts/list", json!({})).await.unwrap();
    assert_eq!(
        listed["prompts"][0]["arguments"],
        json!([{"name": "topic", "required": true}]),
        "an injected parameter is not a prompt argument"
    );
}

#[tokio::test]
async fn sampling_round_trips_through_the_client() {
    let answer = json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "test-model"});
    let (client, seen) = client_answering(json!({"sampling/createMessage": answer})).await;
    let result = client.call_tool("ask", json!({"prompt": "Capital of France?"})).await.unwrap();
    assert_eq!(result.text(), Some("LLM response: Paris"));
    let (method, params) = seen.lock().unwrap()[0].clone();
    assert_eq!(method, "sampling/createMessage");
    assert_eq!(
        params,
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}], "maxTokens": 100})
    );
    assert_valid(&client);
}

#[tokio::test]
async fn elicitation_accept_decline_and_cancel_are_typed_outcomes() {
    let accept = json!({"action": "accept", "content": {"guests": 4, "name": "Ada"}});
    let (client, seen) = client_answering(json!({"elicitation/create": accept})).await;
    assert_eq!(client.call_tool("book", json!({})).await.unwrap().text(), Some("booked for 4 (Ada)"));
    let (_, params) = seen.lock().unwrap()[0].clone();
    assert_eq!(params["message"], "Booking details?");
    assert_eq!(
        params["requestedSchema"]["properties"]["guests"],
        json!({"type": "integer", "description": "How many guests", "minimum": 0})
    );
    assert_eq!(params["requestedSchema"]["required"], json!(["guests"]));
    assert_valid(&client);

    for (action, text) in [("decline", "declined"), ("cancel", "cancelled")] {
        let (client, _) = client_answering(json!({"elicitation/create": {"action": action}})).await;
        assert_eq!(client.call_tool("book", json!({})).await.unwrap().text(), Some(text));
        assert_valid(&client);
    }

    let (client, _) =
        client_answering(json!({"elicitation/create": {"action": "accept", "content": {"guests": "many"}}})).await;
    let result = client.call_tool("book", json!({})).await.unwrap();
    assert!(result.is_error);
    assert!(result.text().unwrap().contains("malformed"), "{:?}", result.text());
}

#[tokio::test]
async fn url_elicitation_needs_the_url_capability() {
    let (client, seen) = client_answering(json!({"elicitation/create": {"action": "accept"}})).await;
    assert_eq!(client.call_tool("authorize", json!({})).await.unwrap().text(), Some("Accept(())"));
    assert_eq!(seen.lock().unwrap()[0].1["mode"], "url");

    let client = TestClient::options().capabilities(json!({"elicitation": {}})).connect(server()).await;
    let result = client.call_tool("authorize", json!({})).await.unwrap();
    assert_eq!(result.text(), Some("the client does not support `elicitation.url`"));
}

#[tokio::test]
async fn undeclared_capabilities_fail_at_once_without_asking() {
    let client = TestClient::connect(server()).await;
    for (tool, capability) in [("ask", "sampling"), ("book", "elicitation"), ("list_roots", "roots")] {
        let result = client.call_tool(tool, json!({"prompt": "x"})).await.unwrap();
        assert!(result.is_error);
        assert_eq!(result.text().unwrap(), format!("the client does not support `{capability}`"));
    }
    assert!(client.transcript().iter().all(|m| m.message.get("method").is_none()), "no request was sent");
}

#[tokio::test]
async fn a_client_that_never_answers_times_out_and_is_told_to_stop() {
    let (client, _) = client_answering(json!({})).await; // answers nothing
    let result = client.call_tool("ask", json!({"prompt": "hello?"})).await.unwrap();
    assert!(result.is_error);
    assert!(result.text().unwrap().contains("did not answer within 300ms"), "{:?}", result.text());
    let cancelled = client.next_message().await;
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], 1);
    assert_valid(&client);
}

#[tokio::test]
async fn cancelling_a_tool_abandons_its_request_to_the_client() {
    let (client, _) = client_answering(json!({})).await;
    let (id, _) = client.start_request("tools/call", json!({"name": "book", "arguments": {}})).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.notify("notifications/cancelled", json!({"requestId": id})).await;
    let cancelled = client.next_message().await;
    assert_eq!(cancelled["method"], "notifications/cancelled", "the elicitation is withdrawn");
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
}

#[tokio::test]
async fn a_client_error_answer_is_reported_to_the_tool() {
    let client = TestClient::options()
        .capabilities(json!({"sampling": {}}))
        .on_request(|_, _| {
            Some(Err(serde_json::from_value(json!({"code": -1, "message": "User rejected sampling request"})).unwrap()))
        })
        .connect(server())
        .await;
    let result = client.call_tool("ask", json!({"prompt": "x"})).await.unwrap();
    assert_eq!(result.text(), Some("the client refused the request: User rejected sampling request (-1)"));
}

#[tokio::test]
async fn roots_are_cached_until_the_client_says_they_changed() {
    let (client, seen) =
        client_answering(json!({"roots/list": {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}})).await;
    assert_eq!(client.call_tool("list_roots", json!({})).await.unwrap().text(), Some("file:///tmp"));
    assert_eq!(client.call_tool("list_roots", json!({})).await.unwrap().text(), Some("file:///tmp"));
    assert_eq!(seen.lock().unwrap().len(), 1, "the second call used the cache");
    client.notify("notifications/roots/list_changed", json!({})).await;
    client.call_tool("list_roots", json!({})).await.unwrap();
    assert_eq!(seen.lock().unwrap().len(), 2, "a change invalidates the cache");
    assert_valid(&client);
}
