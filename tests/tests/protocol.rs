//! The protocol through the in-process client: lifecycle, JSON-RPC errors, tools, concurrency,
//! cancellation, panics, progress and logging. Every message the server sends in each test is
//! validated against the official 2025-11-25 schema.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Image, ProtocolVersion};
use mcp_tests::spec_2025_11_25;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// Echo a message back.
#[mcp_tool(read_only)]
fn echo(
    /// What to echo
    message: String,
    /// How many times (default 1)
    #[mcp(default = 1u32)]
    times: u32,
    /// Put this between repetitions
    separator: Option<String>,
) -> String {
    vec![message; times as usize].join(&separator.unwrap_or_default())
}

/// A point, returned as structured content.
#[derive(Serialize, JsonSchema)]
struct Point {
    x: i64,
    y: i64,
}

/// Returns a point.
#[mcp_tool(name = "make-point", title = "Make a point")]
fn make_point(x: i64, #[mcp(rename = "yCoordinate", description = "The vertical position")] y: i64) -> Json<Point> {
    Json(Point { x, y })
}

/// Has no parameters.
#[mcp_tool]
fn nothing() {}

/// Always fails.
#[mcp_tool(destructive)]
fn fails() -> Result<String, String> {
    Err("this tool always fails".into())
}

/// Panics.
#[mcp_tool]
fn boom() -> String {
    panic!("kaboom")
}

/// An image.
#[mcp_tool]
fn picture() -> Image {
    Image::from_bytes([0x89, b'P', b'N', b'G'], "image/png")
}

static SLOW_DROPPED: AtomicBool = AtomicBool::new(false);

struct SetOnDrop(&'static AtomicBool);
impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Sleeps for a while (cancellable).
#[mcp_tool]
async fn slow(millis: u64) -> String {
    let _guard = SetOnDrop(&SLOW_DROPPED);
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("slept {millis} ms")
}

/// Opened by the test, one call at a time.
static GATE: tokio::sync::Notify = tokio::sync::Notify::const_new();
static GATED_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Waits for the gate, then counts the calls that got through.
#[mcp_tool]
async fn gated() -> &'static str {
    GATE.notified().await;
    GATED_RUNS.fetch_add(1, Ordering::SeqCst);
    "through"
}

/// Reports progress and logs.
#[mcp_tool]
async fn steps(count: u32, ctx: Context) -> String {
    for i in 1..=count {
        ctx.progress(f64::from(i), f64::from(count)).await;
        ctx.debug(format!("debug {i}")).await;
        ctx.warning(format!("warning {i}")).await;
    }
    format!("{count} steps")
}

static LATCH_OPEN: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
static LATCH: std::sync::Condvar = std::sync::Condvar::new();

/// Blocks its thread until the test opens the latch (5 s at most); logs through `tracing`
/// first, and panics when asked to fail.
#[mcp_tool(blocking)]
fn latched(fail: bool) -> &'static str {
    tracing::warn!("waiting at the latch");
    assert!(!fail, "latched was asked to fail");
    let open = LATCH_OPEN.lock().unwrap();
    let (open, _) = LATCH.wait_timeout_while(open, Duration::from_secs(5), |open| !*open).unwrap();
    if *open { "opened" } else { "still shut" }
}

/// Logs through `tracing`.
#[mcp_tool]
async fn traced() -> &'static str {
    tracing::warn!(answer = 42, "from tracing");
    "traced"
}

/// Adds the `late` tool to the running server.
#[mcp_tool]
fn add_late_tool(ctx: Context) -> Result<&'static str, mcp_runtime::Error> {
    ctx.server().add_tools(tools![late])?;
    Ok("added")
}

/// Callable by name, not listed.
#[mcp_tool(hidden)]
fn secret_hook() -> &'static str {
    "hooked"
}

/// Arrives while the server runs.
#[mcp_tool]
fn late() -> &'static str {
    "late but here"
}

fn server() -> Server {
    server!()
        .instructions("test instructions")
        .tools(tools![echo, make_point, nothing, fails, boom, picture, slow, steps, traced])
}

async fn connect() -> TestClient {
    TestClient::connect(server()).await
}

fn assert_valid(client: &TestClient) {
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn initialize_negotiates_each_known_version_and_falls_back_to_the_latest() {
    for version in ProtocolVersion::ALL {
        let client = TestClient::connect_uninitialized(server());
        let params = json!({"protocolVersion": version.as_str(), "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
        let result = client.request("initialize", params).await.unwrap();
        assert_eq!(result["protocolVersion"], version.as_str());
        assert_valid(&client);
    }
    let client = TestClient::connect_uninitialized(server());
    let params =
        json!({"protocolVersion": "2099-01-01", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let result = client.request("initialize", params).await.unwrap();
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(result["serverInfo"]["name"], "mcp-tests", "serverInfo names the user's crate");
    assert_eq!(result["serverInfo"]["version"], "0.0.0");
    assert_eq!(result["instructions"], "test instructions");
    assert_eq!(result["capabilities"], json!({"tools": {"listChanged": true}, "logging": {}}));
    assert_valid(&client);
}

#[tokio::test]
async fn only_ping_is_served_before_initialize() {
    let client = TestClient::connect_uninitialized(server());
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
    let err = client.request("tools/list", json!({})).await.unwrap_err();
    assert_eq!(err.code, -32600);
    assert!(err.message.contains("initialize"), "{}", err.message);
    let err = client.request("server/discover", json!({})).await.unwrap_err();
    assert_eq!(err.code, -32602, "discovery is a 2026-07-28 request and needs its `_meta`");
    assert_valid(&client);
}

#[tokio::test]
async fn a_second_initialize_is_refused() {
    let client = connect().await;
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    assert_eq!(client.request("initialize", params).await.unwrap_err().code, -32600);
    assert_valid(&client);
}

#[tokio::test]
async fn lsp_style_shutdown_is_tolerated_and_unknown_methods_are_not_found() {
    let client = connect().await;
    assert_eq!(client.request("shutdown", json!(null)).await.unwrap(), json!({}));
    let err = client.request("no/such/method", json!({})).await.unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (-32601, "Method not found: no/such/method"));
    assert_valid(&client);
}

#[tokio::test]
async fn malformed_messages_get_standard_errors_and_the_server_keeps_serving() {
    let client = connect().await;
    let cases: [(&[u8], i64, Value); 7] = [
        (b"{not json", -32700, Value::Null),
        (b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", -32600, Value::Null),
        (b"\"a string\"", -32600, Value::Null),
        (b"{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"ping\"}", -32600, json!(5)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}", -32600, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/call\",\"params\":{\"name\":5}}", -32602, json!("x")),
        (b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\xff\"}", -32700, Value::Null),
    ];
    for (input, code, id) in cases {
        client.send_bytes(input).await;
        let answer = client.next_message().await;
        assert_eq!(answer["error"]["code"], code, "for {}", String::from_utf8_lossy(input));
        assert_eq!(answer.get("id").cloned().unwrap_or_default(), id, "for {}", String::from_utf8_lossy(input));
    }
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
    assert_valid(&client);
}

#[tokio::test]
async fn tools_are_listed_in_order_with_schemas_descriptions_and_annotations() {
    let client = connect().await;
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["echo", "make-point", "nothing", "fails", "boom", "picture", "slow", "steps", "traced"]);

    let echo = &tools[0];
    assert_eq!(echo["description"], "Echo a message back.");
    assert_eq!(echo["annotations"], json!({"readOnlyHint": true}));
    let schema = &echo["inputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["message"]), "Option and defaulted parameters are optional");
    assert_eq!(schema["properties"]["message"]["description"], "What to echo");
    assert_eq!(schema["properties"]["times"]["default"], 1);

    let point = &tools[1];
    assert_eq!(point["title"], "Make a point");
    assert_eq!(point["inputSchema"]["properties"]["yCoordinate"]["description"], "The vertical position");
    assert_eq!(point["outputSchema"]["type"], "object");
    assert_eq!(point["outputSchema"]["required"], json!(["x", "y"]));

    assert_eq!(tools[2]["inputSchema"], json!({"type": "object", "properties": {}}));
    assert!(tools[7]["inputSchema"]["properties"].get("ctx").is_none(), "injected parameters are not arguments");
    assert_valid(&client);
}

#[tokio::test]
async fn hidden_tools_are_callable_but_not_listed() {
    let client = TestClient::connect(server().tools(tools![secret_hook])).await;
    let names: Vec<Value> = client.list_tools().await.unwrap().iter().map(|t| t["name"].clone()).collect();
    assert!(!names.contains(&json!("secret_hook")), "{names:?}");
    assert_eq!(client.call_tool("secret_hook", json!({})).await.unwrap().text(), Some("hooked"));
    assert_valid(&client);
}

#[tokio::test]
async fn tools_list_paginates_with_opaque_cursors() {
    let client = TestClient::connect(server().page_size(4)).await;
    let first = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(first["tools"].as_array().unwrap().len(), 4);
    let cursor = first["nextCursor"].as_str().expect("a next page").to_owned();
    let second = client.request("tools/list", json!({"cursor": cursor})).await.unwrap();
    assert_eq!(second["tools"][0]["name"], "boom");
    assert_eq!(client.list_tools().await.unwrap().len(), 9);
    let err = client.request("tools/list", json!({"cursor": "not-a-cursor"})).await.unwrap_err();
    assert_eq!(err.code, -32602);
    assert_valid(&client);
}

#[tokio::test]
async fn calls_return_text_structured_content_images_and_empty_results() {
    let client = connect().await;
    let result = client.call_tool("echo", json!({"message": "hi", "times": 3, "separator": "-"})).await.unwrap();
    assert_eq!((result.text(), result.is_error), (Some("hi-hi-hi"), false));
    let result = client.call_tool("echo", json!({"message": "hi"})).await.unwrap();
    assert_eq!(result.text(), Some("hi"), "defaults apply");

    let result = client.call_tool("make-point", json!({"x": 1, "yCoordinate": 2})).await.unwrap();
    assert_eq!(result.structured_content, Some(json!({"x": 1, "y": 2})));
    assert_eq!(result.text(), Some(r#"{"x":1,"y":2}"#));

    let result = client.call_tool("picture", json!({})).await.unwrap();
    let block = serde_json::to_value(&result.content[0]).unwrap();
    assert_eq!(block, json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"}));

    let result = client.request("tools/call", json!({"name": "nothing"})).await.unwrap();
    assert_eq!(result, json!({"content": []}), "absent arguments count as {{}}");
    assert_valid(&client);
}

#[tokio::test]
async fn tool_failures_are_results_and_protocol_faults_are_errors() {
    let client = connect().await;
    let result = client.call_tool("fails", json!({})).await.unwrap();
    assert!(result.is_error);
    assert_eq!(result.text(), Some("this tool always fails"));

    let result = client.call_tool("echo", json!({"message": 42})).await.unwrap();
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        Some("invalid arguments for tool `echo`: `message`: invalid type: integer `42`, expected a string")
    );
    let result = client.call_tool("echo", json!({})).await.unwrap();
    assert_eq!(result.text(), Some("invalid arguments for tool `echo`: missing field `message`"));

    let err = client.call_tool("no-such-tool", json!({})).await.unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (-32602, "Unknown tool: no-such-tool"));
    let err = client.request("tools/call", json!({"name": "echo", "arguments": [1]})).await.unwrap_err();
    assert_eq!(err.code, -32602);
    assert_valid(&client);
}

/// The arguments' object as a client may write it (whitespace anywhere, keys in any order and
/// with escapes, members the tool does not know holding braces and quotes in strings): each
/// reaches its parameter, and a member given twice is refused, as a derived struct does.
#[tokio::test]
async fn arguments_written_any_way_json_allows_reach_their_parameters() {
    let client = connect().await;
    let call = |id: u32, arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{arguments}}}}}"#
        )
    };
    let cases = [
        (r#"{"message":"a","times":2}"#, "aa"),
        (" {\n\t\"separator\" :\"-\" ,\r\n \"times\": 3 , \"message\" : \"b\" } ", "b-b-b"),
        (r#"{"other": {"message": "no", "x": ["}", "\"{", 1e3]}, "message": "c", "more": null}"#, "c"),
        (r#"{"mess\u0061ge": "d", "t\u0069mes": 2}"#, "dd"),
        (r#"{"message": "\u00e9\"\\", "separator": null}"#, "é\"\\"),
    ];
    for (id, (arguments, text)) in (1..).zip(cases) {
        client.send_raw(&call(id, arguments)).await;
        let answer = client.next_message().await;
        assert_eq!(answer["result"]["content"][0]["text"], text, "for {arguments}: {answer}");
    }
    client.send_raw(&call(9, r#"{"message": "a", "times": 1, "message": "b"}"#)).await;
    let answer = client.next_message().await;
    let text = &answer["result"]["content"][0]["text"];
    assert_eq!(text, "invalid arguments for tool `echo`: duplicate field `message`", "{answer}");
    assert_valid(&client);
}

#[tokio::test]
async fn a_panicking_tool_becomes_an_error_result_and_the_server_keeps_serving() {
    let client = connect().await;
    let result = client.call_tool("boom", json!({})).await.unwrap();
    assert!(result.is_error);
    assert!(result.text().unwrap().contains("panicked"), "{:?}", result.text());
    let result = client.call_tool("echo", json!({"message": "still here"})).await.unwrap();
    assert_eq!(result.text(), Some("still here"));
    assert_valid(&client);
}

#[tokio::test]
async fn requests_run_concurrently() {
    let client = connect().await;
    let (_, slow) = client.start_request("tools/call", json!({"name": "slow", "arguments": {"millis": 2000}})).await;
    let fast = client.call_tool("echo", json!({"message": "fast"})).await.unwrap();
    assert_eq!(fast.text(), Some("fast"));
    let slow = tokio::time::timeout(Duration::from_secs(5), slow).await.unwrap().unwrap();
    assert_eq!(slow["result"]["content"][0]["text"], "slept 2000 ms");
    assert_valid(&client);
}

#[tokio::test]
async fn a_cancelled_request_is_dropped_and_never_answered() {
    let client = connect().await;
    let (id, answer) =
        client.start_request("tools/call", json!({"name": "slow", "arguments": {"millis": 60_000}})).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.notify("notifications/cancelled", json!({"requestId": id, "reason": "changed my mind"})).await;
    for _ in 0..100 {
        if SLOW_DROPPED.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(SLOW_DROPPED.load(Ordering::SeqCst), "the handler's future was dropped");
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
    let late = tokio::time::timeout(Duration::from_millis(200), answer).await;
    assert!(late.is_err(), "no response is sent for a cancelled request: {late:?}");
    assert_valid(&client);
}

#[tokio::test]
async fn a_handler_woken_and_cancelled_at_once_is_never_polled_again() {
    let client = TestClient::connect(server!().tools(tools![gated])).await;
    client.send_raw(r#"{"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"gated"}}"#).await;
    tokio::time::sleep(Duration::from_millis(20)).await; // its task now waits at the gate
    // Both before its task runs again (this test's runtime has one thread): the wake-up
    // must not reach the handler of a cancelled request.
    GATE.notify_one();
    client.notify("notifications/cancelled", json!({"requestId": "g"})).await;
    assert_eq!(client.request("ping", json!({})).await.unwrap(), json!({}));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(GATED_RUNS.load(Ordering::SeqCst), 0, "the cancelled handler went on");
    assert_eq!(client.received().await, Vec::<Value>::new(), "no answer for a cancelled request");
    // Not cancelled, it goes through.
    let (_, answer) = client.start_request("tools/call", json!({"name": "gated"})).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    GATE.notify_one();
    let answer = tokio::time::timeout(Duration::from_secs(5), answer).await.unwrap().unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "through");
    assert_eq!(GATED_RUNS.load(Ordering::SeqCst), 1);
    assert_valid(&client);
}

#[tokio::test]
async fn an_id_already_in_flight_is_refused() {
    let client = connect().await;
    client
        .send_raw(
            r#"{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"slow","arguments":{"millis":300}}}"#,
        )
        .await;
    client
        .send_raw(
            r#"{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"slow","arguments":{"millis":1}}}"#,
        )
        .await;
    let first = client.next_message().await;
    assert_eq!(first["error"]["code"], -32600, "{first}");
    let second = client.next_message().await;
    assert_eq!(second["result"]["content"][0]["text"], "slept 300 ms");
    assert_valid(&client);
}

#[tokio::test]
async fn progress_is_reported_only_when_asked_for() {
    let client = connect().await;
    let params = json!({"name": "steps", "arguments": {"count": 3}, "_meta": {"progressToken": "tok"}});
    client.request("tools/call", params).await.unwrap();
    let progress: Vec<Value> =
        client.received().await.into_iter().filter(|m| m["method"] == "notifications/progress").collect();
    assert_eq!(progress.len(), 3);
    for (i, message) in progress.iter().enumerate() {
        assert_eq!(message["params"]["progressToken"], "tok");
        assert_eq!(message["params"]["progress"], json!(i as f64 + 1.0));
        assert_eq!(message["params"]["total"], json!(3.0));
    }
    client.call_tool("steps", json!({"count": 2})).await.unwrap();
    let progress = client.received().await.into_iter().filter(|m| m["method"] == "notifications/progress").count();
    assert_eq!(progress, 0, "no progressToken, no progress");
    assert_valid(&client);
}

#[tokio::test]
async fn log_messages_honour_the_clients_level() {
    let client = connect().await;
    client.call_tool("steps", json!({"count": 1})).await.unwrap();
    let levels: Vec<Value> = client.received().await.into_iter().map(|m| m["params"]["level"].clone()).collect();
    assert_eq!(levels, [json!("warning")], "the default level is info");

    assert_eq!(client.request("logging/setLevel", json!({"level": "debug"})).await.unwrap(), json!({}));
    client.call_tool("steps", json!({"count": 1})).await.unwrap();
    let logs = client.received().await;
    assert_eq!(logs.len(), 2);
    assert_eq!(logs[0]["params"], json!({"level": "debug", "data": "debug 1"}));

    client.request("logging/setLevel", json!({"level": "error"})).await.unwrap();
    client.call_tool("steps", json!({"count": 1})).await.unwrap();
    assert!(client.received().await.is_empty());

    let err = client.request("logging/setLevel", json!({"level": "loud"})).await.unwrap_err();
    assert_eq!(err.code, -32602);
    assert_valid(&client);
}

#[tokio::test]
async fn tracing_events_inside_a_tool_reach_the_client() {
    mcp_runtime::logging::init();
    let client = connect().await;
    client.call_tool("traced", json!({})).await.unwrap();
    let logs = client.received().await;
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["params"]["level"], "warning");
    assert_eq!(logs[0]["params"]["data"], "from tracing answer=42");
    assert_eq!(logs[0]["params"]["logger"], "protocol");
    assert_valid(&client);
}

#[tokio::test]
async fn a_blocking_tool_runs_off_the_connection_with_its_context() {
    mcp_runtime::logging::init();
    let client = TestClient::connect(server().tools(tools![latched])).await;
    let (_, latched) =
        client.start_request("tools/call", json!({"name": "latched", "arguments": {"fail": false}})).await;
    // This test's runtime has one thread: had `latched` run on it, nothing would be served
    // until the latch timed out.
    assert_eq!(client.call_tool("echo", json!({"message": "meanwhile"})).await.unwrap().text(), Some("meanwhile"));
    *LATCH_OPEN.lock().unwrap() = true;
    LATCH.notify_all();
    let latched = tokio::time::timeout(Duration::from_secs(10), latched).await.unwrap().unwrap();
    assert_eq!(latched["result"]["content"][0]["text"], "opened");
    let logs = client.received().await;
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["params"]["data"], "waiting at the latch");
    // A panic on the blocking pool is the tool's error result, as anywhere else.
    let failed = client.call_tool("latched", json!({"fail": true})).await.unwrap();
    assert!(failed.is_error && failed.text().unwrap().contains("panicked"), "{failed:?}");
    assert_valid(&client);
}

#[tokio::test]
async fn tools_added_at_run_time_are_announced_and_callable() {
    let client = TestClient::connect(server().tools(tools![add_late_tool])).await;
    assert_eq!(client.call_tool("add_late_tool", json!({})).await.unwrap().text(), Some("added"));
    let announced = client.next_message().await;
    assert_eq!(announced["method"], "notifications/tools/list_changed");
    let names: Vec<Value> = client.list_tools().await.unwrap().iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names.last(), Some(&json!("late")));
    assert_eq!(client.call_tool("late", json!({})).await.unwrap().text(), Some("late but here"));
    let again = client.call_tool("add_late_tool", json!({})).await.unwrap();
    assert!(again.is_error, "a second `late` is refused: {again:?}");
    assert_valid(&client);
}

#[tokio::test]
async fn duplicate_names_across_tool_sets_are_refused_at_start() {
    let result = std::panic::catch_unwind(|| TestClient::connect_uninitialized(server().tools(tools![echo])));
    let message = *result.err().unwrap().downcast::<String>().unwrap();
    assert!(message.contains("two tools are named `echo`"), "{message}");
}
