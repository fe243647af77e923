//! Tasks (the `io.modelcontextprotocol/tasks` extension, 2026-07-28) through the in-process
//! client: when a call becomes a task, polling, input through `tasks/update` (partial answers
//! included), cancellation, outcomes, and the extension's errors. Task results are checked
//! against the extension's official schema, every other message against 2026-07-28's.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::{TestClient, TestServer};
use mcp_runtime::{ClientError, Elicitation, State};
use mcp_tests::{spec_2025_11_25, spec_2026_07_28, spec_tasks};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Answers at once.
#[mcp_tool(task = "optional")]
fn quick() -> &'static str {
    "done at once"
}

/// Works a moment, then answers.
#[mcp_tool(task = "optional")]
async fn slow(millis: u64) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("slept {millis} ms")
}

/// Only as a task.
#[mcp_tool(task = "required")]
async fn only_as_task() -> &'static str {
    tokio::time::sleep(Duration::from_millis(10)).await;
    "task done"
}

/// A name form.
#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

/// A yes/no form.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Works, then asks two questions at once.
#[mcp_tool(task = "optional")]
async fn two_questions(ctx: Context) -> Result<String, ClientError> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    let (name, confirm) = tokio::join!(
        ctx.input("name").elicit::<Name>("Your name?"),
        ctx.input("confirm").elicit::<Confirm>("Proceed?")
    );
    let name = name?.accepted().map_or_else(|| "?".into(), |n| n.name);
    let confirm = confirm?.accepted().is_some_and(|c| c.confirm);
    Ok(format!("{name}: {confirm}"))
}

/// Asks first (a round trip), then works (a task).
#[mcp_tool(task = "required")]
async fn ask_then_work(ctx: Context) -> Result<String, ClientError> {
    let name = match ctx.input("user_name").elicit::<Name>("Your name?").await? {
        Elicitation::Accept(Name { name }) => name,
        _ => "stranger".into(),
    };
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(format!("Hello, {name}!"))
}

/// Fails as a tool does.
#[mcp_tool(task = "optional")]
async fn tool_error() -> Result<String, String> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    Err("no such record".into())
}

/// Crashes.
#[mcp_tool(task = "optional")]
async fn crashes() -> String {
    tokio::time::sleep(Duration::from_millis(10)).await;
    panic!("crashed on purpose")
}

/// Reports its progress while it works.
#[mcp_tool(task = "optional")]
async fn reports(ctx: Context) -> &'static str {
    tokio::time::sleep(Duration::from_millis(10)).await;
    ctx.progress_with_message(1.0, 2.0, "halfway there").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    "arrived"
}

/// Set when `endless` is dropped (cancelled).
#[derive(Default)]
struct Dropped(Arc<AtomicBool>);

/// Runs until cancelled.
#[mcp_tool(task = "optional")]
async fn endless(dropped: State<Dropped>) -> &'static str {
    struct Guard(Arc<AtomicBool>);
    impl Drop for Guard {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let _guard = Guard(Arc::clone(&dropped.0.0));
    tokio::time::sleep(Duration::from_secs(3600)).await;
    "never"
}

fn server(dropped: Arc<AtomicBool>) -> Server {
    server!().state(Dropped(dropped)).tools(tools![
        quick,
        slow,
        only_as_task,
        two_questions,
        ask_then_work,
        tool_error,
        crashes,
        reports,
        endless
    ])
}

fn capabilities(tasks: bool) -> Value {
    let mut capabilities = json!({"elicitation": {}});
    if tasks {
        capabilities["extensions"] = json!({ EXTENSION: {} });
    }
    capabilities
}

/// A stateless request, the client declaring the extension or not.
async fn request(
    client: &TestClient,
    method: &str,
    mut params: Value,
    tasks: bool,
) -> Result<Value, mcp_runtime::ErrorObject> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities(tasks),
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "1"},
    });
    client.request(method, params).await
}

fn check(definition: &str, result: &Value) {
    spec_tasks().check(definition, result).unwrap_or_else(|e| panic!("{e}\n{result:#}"));
}

/// Calls `tool` declaring the extension; its task id (the answer must be a task handle).
async fn start(client: &TestClient, tool: &str, arguments: Value) -> String {
    let handle = request(client, "tools/call", json!({"name": tool, "arguments": arguments}), true).await.unwrap();
    assert_eq!(handle["resultType"], "task", "{handle}");
    check("CreateTaskResult", &handle);
    for absent in ["result", "error", "inputRequests", "requestState"] {
        assert!(handle.get(absent).is_none(), "a task handle has no `{absent}`: {handle}");
    }
    handle["taskId"].as_str().expect("taskId").to_owned()
}

async fn get(client: &TestClient, task: &str) -> Value {
    let detail = request(client, "tasks/get", json!({"taskId": task}), true).await.unwrap();
    assert_eq!(detail["resultType"], "complete", "{detail}");
    check("GetTaskResult", &detail);
    detail
}

/// Polls until the task's status is `status` or terminal.
async fn until(client: &TestClient, task: &str, status: &str) -> Value {
    for _ in 0..200 {
        let detail = get(client, task).await;
        if detail["status"] == status
            || ["completed", "failed", "cancelled"].contains(&detail["status"].as_str().unwrap())
        {
            return detail;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {task} never reached {status}");
}

/// Every message against 2026-07-28's schema, but the extension's results (checked against
/// its own schema where they are read).
fn assert_valid(client: &TestClient) {
    let core: Vec<_> = client
        .transcript()
        .into_iter()
        .filter(|m| {
            m.message["result"]["resultType"] != "task"
                && !m.answers.as_deref().is_some_and(|a| a.starts_with("tasks/"))
        })
        .collect();
    spec_2026_07_28().assert_all_valid(&core);
}

fn client() -> (TestClient, Arc<AtomicBool>) {
    let dropped = Arc::new(AtomicBool::new(false));
    (TestClient::connect_uninitialized(server(Arc::clone(&dropped))), dropped)
}

#[tokio::test]
async fn a_call_that_waits_becomes_a_task_one_answered_at_once_does_not() {
    let (client, _) = client();
    let discovered = request(&client, "server/discover", json!({}), true).await.unwrap();
    assert_eq!(discovered["capabilities"]["extensions"], json!({ EXTENSION: {} }));

    let at_once = request(&client, "tools/call", json!({"name": "quick"}), true).await.unwrap();
    assert_eq!(
        (at_once["resultType"].as_str(), at_once["content"][0]["text"].as_str()),
        (Some("complete"), Some("done at once"))
    );

    let task = start(&client, "slow", json!({"millis": 30})).await;
    let done = until(&client, &task, "completed").await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "slept 30 ms");
    assert!(done["result"].get("resultType").is_none(), "the inlined result is the tool's: {done}");
    assert!(done["ttlMs"].as_u64().is_some_and(|ttl| ttl > 0) && done["pollIntervalMs"].as_u64().is_some());
    // Done is done: cancelling it is acknowledged, and changes nothing.
    let ack = request(&client, "tasks/cancel", json!({"taskId": task}), true).await.unwrap();
    assert_eq!(ack, json!({"resultType": "complete", "_meta": ack["_meta"]}));
    assert_eq!(get(&client, &task).await["status"], "completed");
    assert_valid(&client);
}

#[tokio::test]
async fn the_extension_is_needed_for_required_tools_and_the_task_methods() {
    let (client, _) = client();
    let plain =
        request(&client, "tools/call", json!({"name": "slow", "arguments": {"millis": 5}}), false).await.unwrap();
    assert_eq!(plain["content"][0]["text"], "slept 5 ms", "an optional task is a plain call for this client");
    let refused = request(&client, "tools/call", json!({"name": "only_as_task"}), false).await.unwrap_err();
    assert_eq!(refused.code, -32021);
    assert_eq!(refused.data, Some(json!({"requiredCapabilities": {"extensions": { EXTENSION: {} }}})));
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let error = request(&client, method, json!({"taskId": "x", "inputResponses": {}}), false).await.unwrap_err();
        assert_eq!(error.code, -32021, "{method}");
        let unknown = request(&client, method, json!({"taskId": "no-such-task", "inputResponses": {}}), true).await;
        assert_eq!(unknown.unwrap_err().code, -32602, "{method} of an unknown task");
    }
    for removed in ["tasks/list", "tasks/result"] {
        assert_eq!(
            request(&client, removed, json!({"taskId": "x"}), true).await.unwrap_err().code,
            -32601,
            "{removed}"
        );
    }
    let task = start(&client, "only_as_task", json!({})).await;
    assert_eq!(until(&client, &task, "completed").await["result"]["content"][0]["text"], "task done");
}

#[tokio::test]
async fn input_is_asked_through_the_task_and_may_be_answered_in_parts() {
    let (client, _) = client();
    let task = start(&client, "two_questions", json!({})).await;
    let waiting = until(&client, &task, "input_required").await;
    assert_eq!(waiting["status"], "input_required");
    let requests = waiting["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["confirm", "name"]);
    assert_eq!(requests["name"]["method"], "elicitation/create");

    let name = json!({"name": {"action": "accept", "content": {"name": "Ada"}}, "unknown": {"action": "decline"}});
    let ack = request(&client, "tasks/update", json!({"taskId": task, "inputResponses": name}), true).await.unwrap();
    check("UpdateTaskResult", &ack);
    let partial = get(&client, &task).await;
    assert_eq!(partial["status"], "input_required", "one answer of two: {partial}");
    assert_eq!(partial["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["confirm"]);

    let confirm = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    request(&client, "tasks/update", json!({"taskId": task, "inputResponses": confirm}), true).await.unwrap();
    let done = until(&client, &task, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "Ada: true");
    assert!(done.get("inputRequests").is_none());
}

#[tokio::test]
async fn input_asked_before_the_first_wait_is_a_round_trip_then_the_call_becomes_a_task() {
    let (client, _) = client();
    let first = request(&client, "tools/call", json!({"name": "ask_then_work"}), true).await.unwrap();
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert!(first.get("taskId").is_none());
    let answer = json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}});
    let params = json!({"name": "ask_then_work", "inputResponses": answer, "requestState": first["requestState"]});
    let handle = request(&client, "tools/call", params, true).await.unwrap();
    assert_eq!(handle["resultType"], "task", "{handle}");
    assert!(handle.get("requestState").is_none(), "{handle}");
    let done = until(&client, handle["taskId"].as_str().unwrap(), "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Alice!");
}

#[tokio::test]
async fn a_tool_error_completes_the_task_a_panic_fails_it_and_cancel_drops_the_handler() {
    let (client, dropped) = client();
    let task = start(&client, "tool_error", json!({})).await;
    let done = until(&client, &task, "completed").await;
    assert_eq!((done["status"].as_str(), done["result"]["isError"].as_bool()), (Some("completed"), Some(true)));

    let task = start(&client, "crashes", json!({})).await;
    let failed = until(&client, &task, "failed").await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], -32603);
    assert!(failed.get("result").is_none());

    let task = start(&client, "endless", json!({})).await;
    assert_eq!(get(&client, &task).await["status"], "working");
    let ack = request(&client, "tasks/cancel", json!({"taskId": task}), true).await.unwrap();
    check("CancelTaskResult", &ack);
    assert_eq!(until(&client, &task, "cancelled").await["status"], "cancelled");
    assert!(dropped.load(Ordering::SeqCst), "the cancelled handler was dropped");
}

#[tokio::test]
async fn progress_inside_a_task_is_its_status_message() {
    let (client, _) = client();
    let task = start(&client, "reports", json!({})).await;
    let mut messages = Vec::new();
    loop {
        let detail = get(&client, &task).await;
        messages.push(detail["statusMessage"].clone());
        if detail["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(messages.contains(&json!("halfway there")), "{messages:?}");
    assert!(
        !client.received().await.iter().any(|m| m["method"] == "notifications/progress"),
        "no progress notifications"
    );
}

// ---------------------------------------------------------------------------------------------
// 2025-11-25: experimental tasks, requested by the client with `task` on `tools/call`.

/// Asks the user's name inside the task, after working a moment.
#[mcp_tool(task = "optional")]
async fn ask_in_task(ctx: Context) -> Result<String, ClientError> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    match ctx.elicit::<Name>("Your name?").await? {
        Elicitation::Accept(Name { name }) => Ok(format!("Hello, {name}!")),
        _ => Ok("Hello, stranger!".into()),
    }
}

/// Never a task.
#[mcp_tool]
fn plain() -> &'static str {
    "plain"
}

fn session_server() -> Server {
    server!().tools(tools![slow, only_as_task, ask_in_task, plain, endless, tool_error]).state(Dropped::default())
}

fn check_2025(definition: &str, result: &Value) {
    spec_2025_11_25().check(definition, result).unwrap_or_else(|e| panic!("{e}\n{result:#}"));
}

#[tokio::test]
async fn session_tasks_are_asked_for_polled_and_their_result_fetched() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let client = TestClient::options()
        .version("2025-11-25")
        .capabilities(json!({"elicitation": {}}))
        .on_request(move |method, params| {
            record.lock().unwrap().push((method.to_owned(), params.clone()));
            Some(Ok(json!({"action": "accept", "content": {"name": "Grace"}})))
        })
        .connect(session_server())
        .await;
    let listed = client.request("tools/list", json!({})).await.unwrap();
    let support: Vec<_> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].clone(), t["execution"]["taskSupport"].clone()))
        .collect();
    assert!(
        support.contains(&(json!("slow"), json!("optional"))) && support.contains(&(json!("plain"), Value::Null)),
        "{support:?}"
    );

    let created = client
        .request("tools/call", json!({"name": "slow", "arguments": {"millis": 30}, "task": {"ttl": 60000}}))
        .await
        .unwrap();
    check_2025("CreateTaskResult", &created);
    let task = created["task"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!((created["task"]["status"].as_str(), created["task"]["ttl"].as_u64()), (Some("working"), Some(60000)));
    let polled = client.request("tasks/get", json!({"taskId": task})).await.unwrap();
    check_2025("GetTaskResult", &polled);
    // `tasks/result` waits for the end.
    let result = client.request("tasks/result", json!({"taskId": task})).await.unwrap();
    assert_eq!(result["content"][0]["text"], "slept 30 ms");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task);
    assert_eq!(client.request("tasks/get", json!({"taskId": task})).await.unwrap()["status"], "completed");

    // Input inside a task: the request to the client names the task.
    let created = client.request("tools/call", json!({"name": "ask_in_task", "task": {}})).await.unwrap();
    let task = created["task"]["taskId"].as_str().unwrap().to_owned();
    let result = client.request("tasks/result", json!({"taskId": task})).await.unwrap();
    assert_eq!(result["content"][0]["text"], "Hello, Grace!");
    let asked = seen.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].0, "elicitation/create");
    assert_eq!(asked[0].1["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task);
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn session_tasks_follow_the_tools_declared_support_and_cancel_once() {
    let client = TestClient::options().version("2025-11-25").connect(session_server()).await;
    let initialized = client.transcript()[0].message.clone();
    assert_eq!(
        initialized["result"]["capabilities"]["tasks"],
        json!({"cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    let forbidden = client.request("tools/call", json!({"name": "plain", "task": {}})).await.unwrap_err();
    assert_eq!(forbidden.code, -32601, "{forbidden:?}");
    let required = client.request("tools/call", json!({"name": "only_as_task"})).await.unwrap_err();
    assert_eq!(required.code, -32601, "{required:?}");
    // A tool error fails the task in this era's terms, and `tasks/result` still returns it.
    let created = client.request("tools/call", json!({"name": "tool_error", "task": {}})).await.unwrap();
    let task = created["task"]["taskId"].as_str().unwrap().to_owned();
    let result = client.request("tasks/result", json!({"taskId": task})).await.unwrap();
    assert_eq!(result["isError"], true);
    assert_eq!(client.request("tasks/get", json!({"taskId": task})).await.unwrap()["status"], "failed");

    let created = client.request("tools/call", json!({"name": "endless", "task": {}})).await.unwrap();
    let task = created["task"]["taskId"].as_str().unwrap().to_owned();
    let cancelled = client.request("tasks/cancel", json!({"taskId": task})).await.unwrap();
    check_2025("CancelTaskResult", &cancelled);
    assert_eq!(cancelled["status"], "cancelled");
    let again = client.request("tasks/cancel", json!({"taskId": task})).await.unwrap_err();
    assert_eq!(again.code, -32602, "a terminal task is not cancelled twice: {again:?}");
    assert_eq!(client.request("tasks/get", json!({"taskId": "nope"})).await.unwrap_err().code, -32602);
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn a_listen_stream_with_task_ids_gets_each_change_of_those_tasks() {
    let (client, _) = client();
    let task = start(&client, "reports", json!({})).await;
    let mut params = json!({"notifications": {"taskIds": [task]}});
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities(true),
    });
    let (id, _done) = client.start_request("subscriptions/listen", params.clone()).await;
    let ack = client.next_message().await;
    assert_eq!(ack["params"]["notifications"], json!({"taskIds": [task]}), "{ack}");
    let mut seen = Vec::new();
    loop {
        let notification = client.next_message().await;
        assert_eq!(notification["method"], "notifications/tasks", "{notification}");
        assert_eq!(notification["params"]["taskId"], task);
        assert_eq!(notification["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], json!(id));
        check("TaskStatusNotificationParams", &notification["params"]);
        seen.push(notification["params"]["status"].clone());
        if notification["params"]["status"] == "completed" {
            assert_eq!(notification["params"]["result"]["content"][0]["text"], "arrived");
            break;
        }
    }
    assert_eq!(seen.last(), Some(&json!("completed")), "{seen:?}");
    client.notify("notifications/cancelled", json!({"requestId": id})).await;

    // Task ids without the extension: -32021.
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities(false);
    assert_eq!(client.request("subscriptions/listen", params).await.unwrap_err().code, -32021);
}

#[tokio::test]
async fn a_session_task_is_that_sessions_alone() {
    let server = TestServer::start(session_server());
    let owner = TestClient::options().version("2025-11-25").connect_to(&server).await;
    let other = TestClient::options().version("2025-11-25").connect_to(&server).await;
    let created = owner.request("tools/call", json!({"name": "endless", "task": {}})).await.unwrap();
    let task = created["task"]["taskId"].as_str().unwrap().to_owned();

    // Another session, knowing the id, finds no such task: nothing to read, wait on or cancel.
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let refused = other.request(method, json!({"taskId": task})).await.unwrap_err();
        assert_eq!(refused.code, -32602, "{method}: {refused:?}");
        assert!(refused.message.starts_with("Unknown task"), "{refused:?}");
    }
    // Nor does a stateless request of any client.
    let stateless = server.connect_uninitialized();
    let refused = request(&stateless, "tasks/get", json!({"taskId": task}), true).await.unwrap_err();
    assert_eq!(refused.code, -32602, "{refused:?}");

    let polled = owner.request("tasks/get", json!({"taskId": task})).await.unwrap();
    assert_eq!(polled["status"], "working", "the other session's cancel did nothing: {polled}");
    let cancelled = owner.request("tasks/cancel", json!({"taskId": task})).await.unwrap();
    assert_eq!(cancelled["status"], "cancelled");
}

/// Gives its text back after a moment.
#[mcp_tool(task = "optional")]
async fn echo_later(text: String) -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    text
}

#[tokio::test]
async fn task_records_are_charged_to_their_owner_and_to_the_server() {
    const KIB: usize = 1024;
    let server = TestServer::start(
        server!()
            .tools(tools![echo_later, quick])
            .max_session_bytes(64 * KIB)
            .max_retained_bytes(160 * KIB)
            .task_ttl(Some(Duration::from_millis(300))),
    );
    let text = |kib: usize| "x".repeat(kib * KIB);

    // In a session, the session's tasks share its allowance.
    let session = TestClient::options().version("2025-11-25").connect_to(&server).await;
    let call = |kib| json!({"name": "echo_later", "arguments": {"text": text(kib)}, "task": {}});
    let first = session.request("tools/call", call(40)).await.unwrap();
    let task = first["task"]["taskId"].as_str().unwrap().to_owned();
    let result = session.request("tasks/result", json!({"taskId": task})).await.unwrap();
    assert_eq!(result["content"][0]["text"].as_str().map(str::len), Some(40 * KIB));
    let refused = session.request("tools/call", call(40)).await.unwrap_err();
    assert_eq!(refused.code, -32602, "{refused:?}");
    assert!(refused.message.contains("past the limit"), "{refused:?}");

    // Stateless callers without an identity: each task has an allowance of its own, and all
    // of them draw on the server's.
    let stateless = server.connect_uninitialized();
    let call = |kib| json!({"name": "echo_later", "arguments": {"text": text(kib)}});
    let mut kept = Vec::new();
    let busy = loop {
        match request(&stateless, "tools/call", call(40), true).await {
            Ok(handle) => kept.push(handle["taskId"].as_str().unwrap().to_owned()),
            Err(error) => break error,
        }
        assert!(kept.len() < 10, "the server kept {} records of 40 KiB in 160", kept.len());
    };
    eprintln!("{} task records of 40 KiB kept under a 160 KiB pool, then: {}", kept.len(), busy.message);
    assert_eq!(busy.code, -32603, "{busy:?}");
    assert!(busy.message.starts_with("Server busy"), "{busy:?}");
    assert!(!kept.is_empty(), "some records fit");
    // The server serves on: a call that keeps nothing, and a task that fits once records expire.
    assert_eq!(
        request(&stateless, "tools/call", json!({"name": "quick"}), true).await.unwrap()["resultType"],
        "complete"
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    let again = request(&stateless, "tools/call", call(40), true).await.unwrap();
    assert_eq!(again["resultType"], "task", "expired records gave their bytes back: {again}");
}

#[tokio::test]
async fn a_listen_stream_is_charged_what_it_keeps() {
    let server =
        TestServer::start(server!().tools(tools![quick]).resources(resources![note]).max_session_bytes(64 * 1024));
    let client = server.connect_uninitialized();
    let uris: Vec<String> = (0..2000).map(|i| format!("note://{i:060}")).collect();
    let params = json!({"notifications": {"resourceSubscriptions": uris}});
    let refused = request(&client, "subscriptions/listen", params, false).await.unwrap_err();
    assert_eq!(refused.code, -32602, "{refused:?}");
    assert!(refused.message.contains("past its limit"), "{refused:?}");
    let params = json!({"notifications": {"resourceSubscriptions": &uris[..10]}});
    let (_, _done) = client.start_request("subscriptions/listen", with_meta(params)).await;
    let ack = client.next_message().await;
    assert_eq!(ack["params"]["notifications"]["resourceSubscriptions"].as_array().map(Vec::len), Some(10), "{ack}");
}

/// A note.
#[mcp_resource(uri = "note://{id}")]
fn note(id: String) -> String {
    id
}

/// `params` with a 2026-07-28 `_meta`.
fn with_meta(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities(false),
    });
    params
}
