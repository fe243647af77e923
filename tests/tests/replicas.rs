//! Many replicas, one server: three replicas of the conformance fixture share their sessions,
//! streams and notifications through one real Redis, behind a real nginx that balances them
//! round robin without stickiness (`mcp_tests::cluster`). A session's consecutive requests
//! reach different replicas; replicas die (SIGKILL), restart, and Redis goes away and comes
//! back, and the session goes on. `scripts/services.sh` installs redis-server and nginx, and
//! the fixture must be built (`cargo build -p conformance`).
#![cfg(feature = "services")]

use hyper::StatusCode;
use mcp_tests::HttpClient;
use mcp_tests::cluster::Cluster;
use mcp_tests::http::Reply;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const REPLICAS: usize = 3;

/// How long a request may take while Redis is down: the answer must be a quick 503, not a hang.
const OUTAGE_ANSWER: Duration = Duration::from_secs(8);

/// How long the replicas may take to find Redis again once it is back.
const RECOVERY: Duration = Duration::from_secs(15);

/// The status and the body, read whole, of a reply (for assertions that show what came back).
async fn read(reply: Reply) -> (StatusCode, String, Vec<u8>) {
    let status = reply.status;
    let content_type = reply.content_type();
    (status, content_type, reply.bytes().await)
}

fn text(body: &[u8]) -> String {
    String::from_utf8_lossy(body).into_owned()
}

fn initialize(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "replicas-test", "version": "0"},
    }})
}

fn call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

/// A session opened through the load balancer: `initialize` reaches one replica,
/// `notifications/initialized` most likely another.
async fn open_session(cluster: &Cluster) -> HttpClient {
    let mut client = HttpClient::new(cluster.address());
    let reply = client.post(&initialize(0)).await;
    assert_eq!(reply.status, StatusCode::OK, "initialize through the load balancer");
    let session = reply.header("mcp-session-id").expect("initialize gives a session id").to_owned();
    let messages = reply.messages().await;
    assert!(messages[0].get("result").is_some(), "{messages:?}");
    client.session = Some(session.clone());
    let (status, _, body) =
        read(client.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await).await;
    assert_eq!(
        status,
        StatusCode::ACCEPTED,
        "notifications/initialized of session {session} through the load balancer (a 404 means the replica that \
         got it does not know the session its neighbour started): {}",
        text(&body)
    );
    client
}

/// The response among the messages of an answer (the last one), with what came before it.
fn response(messages: &[Value]) -> &Value {
    messages.last().expect("an answer with at least one message")
}

/// Calls `test_simple_text` in the client's session and checks its answer; `when` says when,
/// for the failure message.
async fn call_simple_text(client: &HttpClient, id: i64, when: &str) {
    let session = client.session.clone().unwrap_or_default();
    let reply = client.post(&call(id, "test_simple_text", json!({}))).await;
    if reply.status != StatusCode::OK {
        let (status, _, body) = read(reply).await;
        panic!("{when}: call {id} of session {session} got {status}: {}", text(&body));
    }
    let messages = reply.messages().await;
    assert_eq!(
        response(&messages)["result"]["content"][0]["text"],
        "This is a simple text response for testing.",
        "{when}: call {id} of session {session}: {messages:?}"
    );
}

/// Calls the fixture's hidden `test_trigger_resource_update` for `uri` through `client`.
async fn trigger_update(client: &HttpClient, id: i64, uri: &str) {
    let reply = client.post(&call(id, "test_trigger_resource_update", json!({"uri": uri}))).await;
    if reply.status != StatusCode::OK {
        let (status, _, body) = read(reply).await;
        panic!("updating {uri}: {status}: {}", text(&body));
    }
    let messages = reply.messages().await;
    assert_eq!(response(&messages)["result"]["content"][0]["text"], format!("Updated {uri}"), "{messages:?}");
}

/// (a) A replica killed with SIGKILL between two calls of a session: the next calls succeed, in
/// the same session, with no new `initialize`; so do they once a second replica is killed and
/// only one is left, whichever replica started the session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_outlives_the_replicas_killed_between_its_calls() {
    let mut cluster = Cluster::start(REPLICAS);
    let client = open_session(&cluster).await;
    let mut id = 1;
    for _ in 0..2 * REPLICAS {
        call_simple_text(&client, id, "with every replica up").await;
        id += 1;
    }
    cluster.kill9(0);
    for _ in 0..2 * REPLICAS {
        call_simple_text(&client, id, "after replica 0 was killed").await;
        id += 1;
    }
    cluster.kill9(2);
    for _ in 0..REPLICAS {
        call_simple_text(&client, id, "with replica 1 alone left").await;
        id += 1;
    }
}

/// (b) A replica killed while it holds the session's `GET` stream: the client reconnects
/// through the load balancer with `Last-Event-ID` and receives every notification the other
/// replicas sent meanwhile, in order, and nothing it had already received.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_get_stream_resumes_on_another_replica_with_what_was_sent_meanwhile() {
    let mut cluster = Cluster::start(REPLICAS);
    let client = open_session(&cluster).await;
    let uris: Vec<String> = (0..4).map(|i| format!("test://template/stream-{i}/data")).collect();
    for (i, uri) in uris.iter().enumerate() {
        let messages = client.request(10 + i as i64, "resources/subscribe", json!({"uri": uri})).await;
        assert!(response(&messages).get("result").is_some(), "subscribing to {uri}: {messages:?}");
    }

    // The GET stream straight at replica 0 (not through nginx), to know which one to kill.
    let mut direct = HttpClient::new(cluster.replicas()[0].address());
    direct.session = client.session.clone();
    let reply = direct.get(None).await;
    if reply.status != StatusCode::OK {
        let (status, _, body) = read(reply).await;
        panic!("GET stream of the session at replica 0: {status}: {}", text(&body));
    }
    let mut events = reply.events();
    trigger_update(&client, 20, &uris[0]).await;
    let mut last_id = None;
    let first = loop {
        let event = events.next().await.expect("the GET stream ended before the first update");
        last_id = event.id.clone().or(last_id);
        if event.has_data && !event.data.is_empty() {
            break event.json();
        }
    };
    assert_eq!(first["method"], "notifications/resources/updated", "{first}");
    assert_eq!(first["params"]["uri"], uris[0].as_str(), "{first}");
    let last_id = last_id.expect("the GET stream's events have ids (for Last-Event-ID)");

    cluster.kill9(0);
    drop(events);
    for (i, uri) in uris[1..].iter().enumerate() {
        trigger_update(&client, 21 + i as i64, uri).await;
    }

    let reply = client.get(Some(&last_id)).await;
    if reply.status != StatusCode::OK {
        let (status, _, body) = read(reply).await;
        panic!("resuming the GET stream after {last_id} through the load balancer: {status}: {}", text(&body));
    }
    let mut events = reply.events();
    let mut updated = Vec::new();
    let wanted = uris.len() - 1;
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        while updated.len() < wanted {
            let Some(message) = events.next_message().await else { break };
            if message["method"] == "notifications/resources/updated" {
                updated.push(message["params"]["uri"].as_str().unwrap_or_default().to_owned());
            }
        }
    })
    .await;
    assert_eq!(
        updated,
        uris[1..],
        "the notifications sent while the stream's replica was dead, replayed after {last_id} (each once, in order)"
    );
}

/// (c) Every replica restarted, one by one and then all at once: the session goes on, with
/// what it set (its log level).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_outlives_restarting_every_replica() {
    let mut cluster = Cluster::start(REPLICAS);
    let client = open_session(&cluster).await;
    let messages = client.request(1, "logging/setLevel", json!({"level": "error"})).await;
    assert!(response(&messages).get("result").is_some(), "logging/setLevel: {messages:?}");
    let mut id = 2;
    for i in 0..REPLICAS {
        cluster.restart(i);
        for _ in 0..2 {
            call_simple_text(&client, id, &format!("after restarting replica {i} (one by one)")).await;
            id += 1;
        }
    }
    for i in 0..REPLICAS {
        cluster.kill9(i);
    }
    for i in 0..REPLICAS {
        cluster.restart(i);
    }
    for _ in 0..2 * REPLICAS {
        call_simple_text(&client, id, "after restarting every replica at once").await;
        id += 1;
    }
    // The level the session set before any restart still holds: the tool's `info` lines stay home.
    for _ in 0..REPLICAS {
        let messages =
            client.request(id, "tools/call", json!({"name": "test_tool_with_logging", "arguments": {}})).await;
        assert_eq!(
            response(&messages)["result"]["content"][0]["text"],
            "Tool with logging executed successfully",
            "{messages:?}"
        );
        let logs: Vec<&Value> = messages.iter().filter(|m| m["method"] == "notifications/message").collect();
        assert!(logs.is_empty(), "`info` logs after logging/setLevel error and the restarts: {logs:?}");
        id += 1;
    }
}

/// A `SessionState` value follows its session from replica to replica: each call through the
/// load balancer reaches the next replica, and counts on from what the last one saved, also
/// after a replica that held the value is killed and restarted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_state_follows_the_session_across_replicas() {
    let mut cluster = Cluster::start(REPLICAS);
    let client = open_session(&cluster).await;
    let mut expected = 0;
    let count = |client: HttpClient, id: i64| async move {
        let messages = client.request(id, "tools/call", json!({"name": "test_session_counter", "arguments": {}})).await;
        response(&messages)["result"]["structuredContent"]["result"]
            .as_u64()
            .or_else(|| response(&messages)["result"]["content"][0]["text"].as_str()?.parse().ok())
            .unwrap_or_else(|| panic!("a count: {messages:?}"))
    };
    for id in 1..=2 * REPLICAS as i64 {
        expected += 1;
        assert_eq!(count(client.clone(), id).await, expected, "call {id} counts on from the last replica's value");
    }
    cluster.kill9(1);
    cluster.restart(1);
    for id in 100..100 + 2 * REPLICAS as i64 {
        expected += 1;
        assert_eq!(count(client.clone(), id).await, expected, "call {id}, after a replica restarted");
    }
    // A second session has its own count.
    let other = open_session(&cluster).await;
    assert_eq!(count(other, 1).await, 1, "another session starts from the default");
}

/// What a request while Redis is down gets: its status, content type and body, within
/// [`OUTAGE_ANSWER`].
async fn during_outage(client: &HttpClient, message: &Value, what: &str) -> (StatusCode, String, Vec<u8>) {
    tokio::time::timeout(OUTAGE_ANSWER, async { read(client.post(message).await).await }).await.unwrap_or_else(|_| {
        panic!("{what} while Redis is down: no answer within {OUTAGE_ANSWER:?} (it must fail fast)")
    })
}

/// Checks a 503 with a JSON-RPC error body (for request `id` when the body names one).
fn assert_unavailable((status, content_type, body): &(StatusCode, String, Vec<u8>), id: i64, what: &str) {
    assert_eq!(*status, StatusCode::SERVICE_UNAVAILABLE, "{what} while Redis is down: {}", text(body));
    assert_eq!(content_type, "application/json", "{what} while Redis is down: {}", text(body));
    let error: Value = serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{what} while Redis is down: the body is not JSON ({e}): {}", text(body)));
    assert_eq!(error["jsonrpc"], "2.0", "{error}");
    assert!(error["error"]["code"].is_i64(), "a JSON-RPC error: {error}");
    assert!(error["error"]["message"].is_string(), "a JSON-RPC error: {error}");
    assert!(error["result"].is_null(), "{error}");
    if let Some(answered) = error.get("id") {
        assert_eq!(answered, &json!(id), "{error}");
    }
}

/// (d) Redis stopped: a request that needs it gets 503 with a JSON-RPC error body at once, not
/// a hang: a new session, or a call reaching a replica that has not served the session yet (one
/// restarted just before the outage). A replica that served the session answers from what it
/// keeps. Once Redis is back (with its data, as a Redis that persists comes back), the session
/// goes on everywhere and new sessions start, without restarting any replica.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_down_is_a_quick_503_and_service_resumes_when_it_is_back() {
    let mut cluster = Cluster::start(REPLICAS);
    let client = open_session(&cluster).await;
    for id in 1..=REPLICAS as i64 {
        call_simple_text(&client, id, "before Redis stops").await;
    }
    // This replica has not served the session since it restarted: it needs the store to.
    cluster.kill9(0);
    cluster.restart(0);

    cluster.redis().stop();
    let mut unavailable = 0;
    for id in 10..10 + 2 * REPLICAS as i64 {
        let answer = during_outage(&client, &call(id, "test_simple_text", json!({})), "a call of a session").await;
        if answer.0 == StatusCode::OK {
            let body: Value = serde_json::from_slice(&answer.2).expect("JSON");
            assert_eq!(body["result"]["content"][0]["text"], "This is a simple text response for testing.", "{body}");
        } else {
            assert_unavailable(&answer, id, "a call of a session on a replica that never served it");
            unavailable += 1;
        }
    }
    assert!(unavailable >= 1, "the restarted replica needed Redis to serve the session, and got an answer anyway");
    let fresh = HttpClient::new(cluster.address());
    let answer = during_outage(&fresh, &initialize(1), "initialize").await;
    assert_unavailable(&answer, 1, "initialize");

    cluster.redis().restart();
    let pids: Vec<Option<u32>> = cluster.replicas().iter().map(|r| r.pid()).collect();
    let deadline = Instant::now() + RECOVERY;
    let mut id = 100;
    loop {
        let (status, _, body) = read(client.post(&call(id, "test_simple_text", json!({}))).await).await;
        id += 1;
        if status == StatusCode::OK {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the session did not resume within {RECOVERY:?} of Redis coming back: {status} {}",
            text(&body)
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for _ in 0..REPLICAS {
        call_simple_text(&client, id, "after Redis came back").await;
        id += 1;
    }
    let other = open_session(&cluster).await;
    call_simple_text(&other, 1, "a session started after Redis came back").await;
    let now: Vec<Option<u32>> = cluster.replicas().iter().map(|r| r.pid()).collect();
    assert_eq!(pids, now, "no replica was restarted");
}

/// A 2026-07-28 request declaring the tasks extension, with the headers such a client sends.
async fn task_request(client: &HttpClient, id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    let name = params["name"].as_str().or(params["taskId"].as_str()).map(str::to_owned);
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut headers = vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", method)];
    if let Some(name) = &name {
        headers.push(("mcp-name", name));
    }
    let (status, _, body) = read(client.post_with(&message, &headers).await).await;
    assert_eq!(status, StatusCode::OK, "{method}: {}", text(&body));
    let answer: Value =
        serde_json::from_slice(&body).unwrap_or_else(|e| panic!("{method}: not JSON ({e}): {}", text(&body)));
    answer["result"].clone()
}

/// A task is created on one replica and polled on the others (its record is in Redis); its
/// input goes through any replica to the one running it; and when the replica running a task
/// dies, polling elsewhere ends it `failed`, saying why, instead of `working` for ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_polled_anywhere_and_fails_when_its_replica_dies() {
    let mut cluster = Cluster::start(REPLICAS);
    let balanced = HttpClient::new(cluster.address());
    let first = HttpClient::new(cluster.replica(0).address());

    // Input through the load balancer reaches the replica running the task.
    let handle =
        task_request(&first, 1, "tools/call", json!({"name": "confirm_delete", "arguments": {"filename": "a.txt"}}))
            .await;
    let task = handle["taskId"].as_str().unwrap_or_else(|| panic!("a task handle: {handle}")).to_owned();
    let deadline = Instant::now() + Duration::from_secs(10);
    let key = loop {
        let detail = task_request(&balanced, 2, "tasks/get", json!({"taskId": task})).await;
        if let Some(key) = detail["inputRequests"].as_object().and_then(|r| r.keys().next().cloned()) {
            break key;
        }
        assert!(Instant::now() < deadline, "the task never asked for input: {detail}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let answer = json!({ key: {"action": "accept", "content": {"confirm": true}} });
    task_request(&balanced, 3, "tasks/update", json!({"taskId": task, "inputResponses": answer})).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let detail = task_request(&balanced, 4, "tasks/get", json!({"taskId": task})).await;
        if detail["status"] == "completed" {
            assert_eq!(detail["result"]["content"][0]["text"], "Deleted a.txt", "{detail}");
            break;
        }
        assert!(Instant::now() < deadline, "the task did not complete after its input: {detail}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Created on replica 0, which then dies.
    let handle =
        task_request(&first, 5, "tools/call", json!({"name": "slow_compute", "arguments": {"seconds": 60}})).await;
    let task = handle["taskId"].as_str().unwrap_or_else(|| panic!("a task handle: {handle}")).to_owned();
    for id in 6..6 + REPLICAS as i64 {
        assert_eq!(task_request(&balanced, id, "tasks/get", json!({"taskId": task})).await["status"], "working");
    }
    cluster.kill9(0);
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let detail = task_request(&balanced, 20, "tasks/get", json!({"taskId": task})).await;
        if detail["status"] == "failed" {
            assert!(detail["statusMessage"].as_str().is_some_and(|m| m.contains("replica")), "{detail}");
            assert_eq!(detail["error"]["code"], -32603, "{detail}");
            break;
        }
        assert_eq!(detail["status"], "working", "{detail}");
        assert!(Instant::now() < deadline, "the dead replica's task still works: {detail}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// A session's task is that session's on every replica: another session that knows its id
/// finds no such task, wherever the load balancer sends it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_task_is_its_own_on_every_replica() {
    let cluster = Cluster::start(REPLICAS);
    let owner = open_session(&cluster).await;
    let other = open_session(&cluster).await;
    let params = json!({"name": "slow_compute", "arguments": {"seconds": 60}, "task": {}});
    let created = owner.request(1, "tools/call", params).await;
    let task = response(&created)["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task handle: {created:?}"))
        .to_owned();
    // Twice round the replicas: each of them is asked by each session.
    for id in 0..2 * REPLICAS as i64 {
        let refused = other.request(10 + id, "tasks/get", json!({"taskId": task})).await;
        assert_eq!(response(&refused)["error"]["code"], -32602, "{refused:?}");
        let refused = other.request(30 + id, "tasks/cancel", json!({"taskId": task})).await;
        assert_eq!(response(&refused)["error"]["code"], -32602, "{refused:?}");
        let polled = owner.request(50 + id, "tasks/get", json!({"taskId": task})).await;
        assert_eq!(response(&polled)["result"]["status"], "working", "{polled:?}");
    }
}
