//! The 2026-07-28 era through the in-process client: stateless requests with per-request
//! `_meta`, `server/discover`, errors with their codes, input-required results (multi round-trip
//! requests) behind the same `ctx.elicit`/`ctx.sample`/`ctx.roots` API as the 2025-11-25 era,
//! sealed `requestState`, logging on request, and `subscriptions/listen`. Every message is
//! validated against the official 2026-07-28 schema.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::{TestClient, TestServer};
use mcp_runtime::{ClientError, Elicitation, Sampling};
use mcp_tests::{spec_2025_11_25, spec_2026_07_28};
use serde_json::{Value, json};

/// A name form.
#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

/// Greets whoever the user says they are.
#[mcp_tool]
async fn greet(ctx: Context) -> Result<String, ClientError> {
    match ctx.input("user_name").elicit::<Name>("What is your name?").await? {
        Elicitation::Accept(Name { name }) => Ok(format!("Hello, {name}!")),
        _ => Ok("Hello, stranger!".into()),
    }
}

/// A color form.
#[derive(Deserialize, JsonSchema)]
struct Color {
    color: String,
}

/// Asks two questions, one round each.
#[mcp_tool]
async fn two_steps(ctx: Context) -> Result<String, ClientError> {
    let name = ctx.input("step1").elicit::<Name>("Step 1: What is your name?").await?.accepted();
    let color = ctx.input("step2").elicit::<Color>("Step 2: What is your favorite color?").await?.accepted();
    Ok(format!(
        "{} likes {}",
        name.map_or_else(|| "?".into(), |n| n.name),
        color.map_or_else(|| "?".into(), |c| c.color)
    ))
}

/// Asks the model and the roots at once.
#[mcp_tool]
async fn at_once(ctx: Context) -> Result<String, ClientError> {
    let (sampled, roots) = tokio::join!(ctx.sample(Sampling::new("Capital of France?").max_tokens(50)), ctx.roots());
    Ok(format!("{} / {} roots", sampled?.text().unwrap_or_default(), roots?.len()))
}

/// Needs sampling.
#[mcp_tool]
async fn needs_sampling(ctx: Context) -> Result<String, ClientError> {
    Ok(ctx.sample(Sampling::new("hi")).await?.model)
}

/// Logs at info.
#[mcp_tool]
async fn chatty(ctx: Context) -> &'static str {
    ctx.info("a log line").await;
    "done"
}

/// Adds a tool, changing the list.
#[mcp_tool]
fn grow(ctx: Context) -> Result<&'static str, mcp_runtime::Error> {
    ctx.server().add_tools(tools![chatty])?;
    Ok("grown")
}

/// A static text.
#[mcp_resource(uri = "test://static-text", mime_type = "text/plain")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A per-user resource clients may keep for a minute.
#[mcp_resource(uri = "test://mine", ttl_ms = 60000, cache_scope = "private")]
fn mine() -> &'static str {
    "yours only"
}

fn server() -> Server {
    server!()
        .instructions("stateless tests")
        .tools(tools![greet, two_steps, at_once, needs_sampling, grow])
        .resources(resources![static_text, mine])
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "stateless-test", "version": "1"},
    })
}

/// A stateless request: `params` plus `_meta` declaring `capabilities`.
async fn call(
    client: &TestClient,
    method: &str,
    mut params: Value,
    capabilities: Value,
) -> Result<Value, mcp_runtime::ErrorObject> {
    params["_meta"] = meta(capabilities);
    client.request(method, params).await
}

fn assert_valid(client: &TestClient) {
    spec_2026_07_28().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn discover_describes_the_server_without_a_handshake() {
    let client = TestClient::connect_uninitialized(server());
    let result = call(&client, "server/discover", json!({}), json!({})).await.unwrap();
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "mcp-tests");
    assert_eq!(result["instructions"], "stateless tests");
    assert!(result["capabilities"]["tools"].is_object() && result["capabilities"]["resources"].is_object());
    assert_eq!((result["ttlMs"].clone(), result["cacheScope"].clone()), (json!(0), json!("public")));
    assert_valid(&client);
}

#[tokio::test]
async fn missing_meta_and_unsupported_versions_are_refused_with_their_codes() {
    let client = TestClient::connect_uninitialized(server());
    let err = client.request("server/discover", json!({})).await.unwrap_err();
    assert_eq!(err.code, -32602);
    let err = client
        .request("tools/list", json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}))
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(err.message.contains("clientCapabilities"), "{}", err.message);
    let params = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "v999.0.0", "io.modelcontextprotocol/clientCapabilities": {}}});
    let err = client.request("tools/list", params).await.unwrap_err();
    assert_eq!(err.code, -32022);
    assert_eq!(err.data, Some(json!({"supported": ["2026-07-28"], "requested": "v999.0.0"})));
    for removed in
        ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "unknown/method"]
    {
        let err =
            call(&client, removed, json!({"uri": "test://static-text", "level": "info"}), json!({})).await.unwrap_err();
        assert_eq!(err.code, -32601, "{removed}");
    }
    assert_valid(&client);
}

#[tokio::test]
async fn results_carry_their_type_server_info_and_caching_hints() {
    let client = TestClient::connect_uninitialized(server());
    let list = call(&client, "tools/list", json!({}), json!({})).await.unwrap();
    assert_eq!(list["resultType"], "complete");
    assert_eq!(list["tools"].as_array().unwrap().len(), 5);
    let resources = call(&client, "resources/list", json!({}), json!({})).await.unwrap();
    assert_eq!(resources["cacheScope"], "public", "the same for every caller and client");
    let read = call(&client, "resources/read", json!({"uri": "test://static-text"}), json!({})).await.unwrap();
    assert_eq!(read["contents"][0]["text"], "This is the content of the static text resource.");
    assert_eq!(read["ttlMs"], 0);
    let mine = call(&client, "resources/read", json!({"uri": "test://mine"}), json!({})).await.unwrap();
    assert_eq!(
        (mine["ttlMs"].clone(), mine["cacheScope"].clone()),
        (json!(60000), json!("private")),
        "declared per resource"
    );
    let err = call(&client, "resources/read", json!({"uri": "test://nonexistent"}), json!({})).await.unwrap_err();
    assert_eq!((err.code, err.data), (-32602, Some(json!({"uri": "test://nonexistent"}))));
    assert_valid(&client);
}

/// A tool list whose schemas the profiles shape differently for different clients (a
/// Gemini client gets another form than a Claude one) may not be shared between them: it is
/// `private` unless one profile is forced for every client.
#[tokio::test]
async fn a_tool_list_that_differs_per_client_is_private() {
    let client = TestClient::connect_uninitialized(server());
    let list = call(&client, "tools/list", json!({}), json!({})).await.unwrap();
    assert_eq!(list["cacheScope"], "private");
    let forced = TestClient::connect_uninitialized(server().schema_profile(mcp_runtime::SchemaProfile::Full));
    let list = call(&forced, "tools/list", json!({}), json!({})).await.unwrap();
    assert_eq!(list["cacheScope"], "public", "every client gets the same schemas");
    assert_valid(&client);
}

#[tokio::test]
async fn elicitation_becomes_an_input_required_round_trip() {
    let client = TestClient::connect_uninitialized(server());
    let caps = json!({"elicitation": {}});
    let first = call(&client, "tools/call", json!({"name": "greet"}), caps.clone()).await.unwrap();
    assert_eq!(first["resultType"], "input_required");
    let request = &first["inputRequests"]["user_name"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "What is your name?");
    assert_eq!(request["params"]["requestedSchema"]["required"], json!(["name"]));
    let state = first["requestState"].as_str().expect("requestState").to_owned();

    let answer = json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}, "extra": 1});
    let params = json!({"name": "greet", "inputResponses": answer, "requestState": state});
    let done = call(&client, "tools/call", params, caps.clone()).await.unwrap();
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["content"][0]["text"], "Hello, Alice!");

    for wrong in [json!({"other": {"action": "accept"}}), json!({"user_name": 12345}), Value::Null] {
        let params = json!({"name": "greet", "inputResponses": wrong});
        let again = call(&client, "tools/call", params, caps.clone()).await.unwrap();
        assert_eq!(again["resultType"], "input_required", "{wrong} does not complete the request");
    }
    let tampered = json!({"name": "greet", "inputResponses": answer, "requestState": format!("{state}-TAMPERED")});
    assert_eq!(call(&client, "tools/call", tampered, caps).await.unwrap_err().code, -32602);
    assert_valid(&client);
}

#[tokio::test]
async fn earlier_answers_travel_in_the_sealed_state() {
    let client = TestClient::connect_uninitialized(server());
    let caps = json!({"elicitation": {}});
    let first = call(&client, "tools/call", json!({"name": "two_steps"}), caps.clone()).await.unwrap();
    assert_eq!(first["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["step1"]);
    let params = json!({
        "name": "two_steps",
        "inputResponses": {"step1": {"action": "accept", "content": {"name": "Ada"}}},
        "requestState": first["requestState"],
    });
    let second = call(&client, "tools/call", params, caps.clone()).await.unwrap();
    assert_eq!(second["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["step2"]);
    let params = json!({
        "name": "two_steps",
        "inputResponses": {"step2": {"action": "accept", "content": {"color": "green"}}},
        "requestState": second["requestState"],
    });
    let done = call(&client, "tools/call", params, caps.clone()).await.unwrap();
    assert_eq!(done["content"][0]["text"], "Ada likes green");
    let reused = json!({"name": "greet", "requestState": second["requestState"]});
    assert_eq!(call(&client, "tools/call", reused, caps).await.unwrap_err().code, -32602, "state is bound to its tool");
    assert_valid(&client);
}

#[tokio::test]
async fn concurrent_requests_to_the_client_are_asked_together() {
    let client = TestClient::connect_uninitialized(server());
    let caps = json!({"sampling": {}, "roots": {}});
    let first = call(&client, "tools/call", json!({"name": "at_once"}), caps.clone()).await.unwrap();
    let requests = first["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let (sampling_key, roots_key) = (
        requests.keys().find(|k| k.starts_with("sampling")).unwrap().clone(),
        requests.keys().find(|k| k.starts_with("roots")).unwrap().clone(),
    );
    assert_eq!(requests[&roots_key], json!({"method": "roots/list", "params": {}}));
    let answers = json!({
        sampling_key: {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"},
        roots_key: {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]},
    });
    let params = json!({"name": "at_once", "inputResponses": answers, "requestState": first["requestState"]});
    let done = call(&client, "tools/call", params, caps).await.unwrap();
    assert_eq!(done["content"][0]["text"], "Paris / 1 roots");
    assert_valid(&client);
}

#[tokio::test]
async fn a_missing_client_capability_is_error_32021() {
    let client = TestClient::connect_uninitialized(server());
    let err =
        call(&client, "tools/call", json!({"name": "needs_sampling"}), json!({"elicitation": {}})).await.unwrap_err();
    assert_eq!((err.code, err.data), (-32021, Some(json!({"requiredCapabilities": {"sampling": {}}}))));
    assert_valid(&client);
}

#[tokio::test]
async fn logs_are_sent_only_when_the_request_asks_for_a_level() {
    let server = server().tools(tools![chatty]);
    let client = TestClient::connect_uninitialized(server);
    call(&client, "tools/call", json!({"name": "chatty"}), json!({})).await.unwrap();
    assert!(client.received().await.is_empty(), "no logLevel, no log");
    let mut params = json!({"name": "chatty", "_meta": meta(json!({}))});
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    client.request("tools/call", params).await.unwrap();
    let logs = client.received().await;
    assert_eq!(logs.len(), 1);
    assert_eq!(logs[0]["params"]["data"], "a log line");
    assert_valid(&client);
}

#[tokio::test]
async fn listen_acknowledges_then_forwards_only_what_was_asked() {
    let client = TestClient::connect_uninitialized(server());
    let mut params = json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}});
    params["_meta"] = meta(json!({}));
    let (id, _done) = client.start_request("subscriptions/listen", params).await;
    let ack = client.next_message().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], json!(id));
    assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true}), "no prompts here, so not honoured");
    call(&client, "tools/call", json!({"name": "grow"}), json!({})).await.unwrap();
    let changed = client.next_message().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], json!(id));
    client.notify("notifications/cancelled", json!({"requestId": id})).await;
    assert_valid(&client);
}

#[tokio::test]
async fn both_eras_share_one_connection() {
    let server = TestServer::start(server());
    let legacy = server.connect().await;
    assert_eq!(legacy.call_tool("grow", json!({})).await.unwrap().text(), Some("grown"));
    let list = call(&legacy, "tools/list", json!({}), json!({})).await.unwrap();
    assert_eq!(list["resultType"], "complete");
    let result = legacy.request("tools/list", json!({})).await.unwrap();
    assert!(result.get("resultType").is_none(), "2025-11-25 results stay as they were");
    spec_2025_11_25().check("ListToolsResult", &result).unwrap();
}
