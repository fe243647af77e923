//! Middleware: layers around every request that see it, may answer it early and watch its
//! response, in the order they were added; the audit log and (feature `rate-limit`) the rate
//! limit built on them, over the in-process client and over real HTTP sessions.

use mcp_runtime::middleware::{AuditLog, AuditOutcome, AuditRecord, Middleware, RequestInfo, Rewrite, Verdict};
use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_tests::{HttpClient, spec_2025_11_25, spec_2026_07_28};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

static SECRET_CALLS: AtomicUsize = AtomicUsize::new(0);

/// Echoes its text.
#[mcp_tool]
fn echo(text: String) -> String {
    text
}

/// Counts its calls; a middleware keeps it from running.
#[mcp_tool]
fn secret() -> String {
    SECRET_CALLS.fetch_add(1, Ordering::SeqCst);
    "the secret".to_owned()
}

/// Logs a user in.
#[mcp_tool]
fn login(user: String, password: String) -> String {
    format!("{user} logged in with {} characters", password.len())
}

/// Fails as a tool.
#[mcp_tool]
fn refuse() -> Result<String, String> {
    Err("refused".to_owned())
}

/// Never answers unless cancelled.
#[mcp_tool]
async fn wait_forever() -> String {
    std::future::pending::<()>().await;
    unreachable!()
}

type Log = Arc<Mutex<Vec<String>>>;

/// Writes what it sees, named.
struct Recorder(&'static str, Log);

impl Middleware for Recorder {
    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
        let (name, log) = (self.0, &self.1);
        log.lock().unwrap().push(format!("{name} saw {} {}", request.method(), request.target().unwrap_or("-")));
        let log = Arc::clone(log);
        Verdict::watch(move |response| {
            let how = match response.error_code() {
                Some(code) => format!("error {code}"),
                None if response.is_tool_error() => "tool error".to_owned(),
                None => "ok".to_owned(),
            };
            log.lock().unwrap().push(format!("{name} watched {how}"));
        })
    }
}

/// Answers calls of `secret` itself: with an error, or with a tool's error result.
struct Gate {
    as_result: bool,
}

impl Middleware for Gate {
    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
        if request.method() != "tools/call" || request.target() != Some("secret") {
            return Verdict::Continue;
        }
        if self.as_result {
            Verdict::Answer(Ok(json!({"content": [{"type": "text", "text": "not for you"}], "isError": true})))
        } else {
            Verdict::error(mcp_runtime::ErrorObject::new(-32001, "the gate is closed"))
        }
    }
}

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

#[tokio::test]
async fn layers_see_requests_in_order_watch_in_reverse_and_may_answer_early() {
    let log = Log::default();
    let server = server!()
        .tools(tools![echo, secret])
        .middleware(Recorder("outer", Arc::clone(&log)))
        .middleware(Gate { as_result: false })
        .middleware(Recorder("inner", Arc::clone(&log)));
    let client = TestClient::connect(server).await;
    take(&log); // initialize

    assert_eq!(client.call_tool("echo", json!({"text": "hi"})).await.unwrap().text(), Some("hi"));
    assert_eq!(
        take(&log),
        ["outer saw tools/call echo", "inner saw tools/call echo", "inner watched ok", "outer watched ok"]
    );

    // The gate answers: the handler never runs, the layer inside the gate never sees the
    // request, the one outside sees the gate's answer.
    let before = SECRET_CALLS.load(Ordering::SeqCst);
    let refused = client.request("tools/call", json!({"name": "secret", "arguments": {}})).await.unwrap_err();
    assert_eq!((refused.code, refused.message.as_str()), (-32001, "the gate is closed"));
    assert_eq!(SECRET_CALLS.load(Ordering::SeqCst), before, "the tool did not run");
    assert_eq!(take(&log), ["outer saw tools/call secret", "outer watched error -32001"]);

    // Every request passes through, not only tool calls; unknown tools are the handler's error.
    client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(
        take(&log),
        ["outer saw tools/list -", "inner saw tools/list -", "inner watched ok", "outer watched ok"]
    );
    let unknown = client.request("tools/call", json!({"name": "nope", "arguments": {}})).await.unwrap_err();
    assert_eq!(unknown.code, -32602);
    assert_eq!(take(&log)[3], "outer watched error -32602");
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn an_early_result_is_shaped_for_each_era() {
    let server = || server!().tools(tools![echo, secret]).middleware(Gate { as_result: true });
    let before = SECRET_CALLS.load(Ordering::SeqCst);

    let session = TestClient::connect(server()).await;
    let result = session.call_tool("secret", json!({})).await.unwrap();
    assert!(result.is_error && result.text() == Some("not for you"), "{result:?}");
    spec_2025_11_25().assert_all_valid(&session.transcript());

    let stateless = TestClient::connect_uninitialized(server());
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let params = json!({"name": "secret", "arguments": {}, "_meta": meta});
    let answer = stateless.request("tools/call", params).await.unwrap();
    assert_eq!(answer["resultType"], "complete", "{answer}");
    assert_eq!(answer["isError"], true);
    assert_eq!(answer["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "mcp-tests");
    spec_2026_07_28().assert_all_valid(&stateless.transcript());
    assert_eq!(SECRET_CALLS.load(Ordering::SeqCst), before);
}

/// Panics on `tools/call`.
struct Broken;

impl Middleware for Broken {
    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
        assert_ne!(request.method(), "tools/call", "a bug in a middleware");
        Verdict::Continue
    }
}

#[tokio::test]
async fn a_panicking_middleware_fails_its_request_and_the_server_keeps_serving() {
    let log = Log::default();
    let server = server!().tools(tools![echo]).middleware(Recorder("outer", Arc::clone(&log))).middleware(Broken);
    let client = TestClient::connect(server).await;
    let failed = client.request("tools/call", json!({"name": "echo", "arguments": {"text": "x"}})).await.unwrap_err();
    assert_eq!((failed.code, failed.message.as_str()), (-32603, "Internal error: a middleware failed"));
    assert_eq!(take(&log).last().map(String::as_str), Some("outer watched error -32603"));
    assert!(client.request("tools/list", json!({})).await.unwrap()["tools"].is_array());
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

/// Waits once (so its handler goes on on a task of its own), then echoes its text; runs as a
/// task when asked.
#[mcp_tool(task = "optional")]
async fn echo_later(text: String) -> String {
    tokio::task::yield_now().await;
    text
}

/// Fills `echo`'s and `echo_later`'s missing `text`, redacts `login`'s password, appends a
/// content block to every tool's result and hides `secret` from lists; writes down the results
/// it was shown, as they came.
struct Rewriter(Log);

impl Middleware for Rewriter {
    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
        let (method, seen) = (request.method().to_owned(), Arc::clone(&self.0));
        let rewrite = Rewrite::new().result(move |result| {
            seen.lock().unwrap().push(result.as_ref().map_or_else(|e| e.message.clone(), |r| r.to_string()));
            result.map(|mut result| {
                match method.as_str() {
                    "tools/call" => {
                        result["content"].as_array_mut().unwrap().push(json!({"type": "text", "text": "rewritten"}))
                    }
                    "tools/list" => result["tools"].as_array_mut().unwrap().retain(|tool| tool["name"] != "secret"),
                    _ => {}
                }
                result
            })
        });
        let Some(tool) = request.target().filter(|_| request.method() == "tools/call") else {
            return rewrite.into();
        };
        let mut arguments = request.arguments_value().unwrap_or_else(|| json!({}));
        match tool {
            "echo" | "echo_later" => {
                arguments.as_object_mut().unwrap().entry("text").or_insert(json!("filled in"));
            }
            "login" => {
                // New params whole: the name they give is ignored (the caller's scopes were
                // checked against the one sent).
                arguments["password"] = json!("***");
                let params = json!({"name": "secret", "arguments": arguments});
                return rewrite.params(params.as_object().unwrap().clone()).into();
            }
            _ => {}
        }
        rewrite.arguments(arguments).into()
    }
}

/// Writes down the arguments it sees.
struct ArgumentsSeen(Log);

impl Middleware for ArgumentsSeen {
    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
        if let Some(arguments) = request.arguments() {
            self.0.lock().unwrap().push(arguments.get().to_owned());
        }
        Verdict::Continue
    }
}

fn texts(result: &serde_json::Value) -> Vec<&str> {
    result["content"].as_array().unwrap().iter().map(|block| block["text"].as_str().unwrap()).collect()
}

fn rewriting_server(seen: &Log, inner: &Log) -> Server {
    server!()
        .tools(tools![echo, echo_later, login, secret])
        .middleware(Rewriter(Arc::clone(seen)))
        .middleware(ArgumentsSeen(Arc::clone(inner)))
}

#[tokio::test]
async fn a_middleware_rewrites_arguments_and_results_in_a_session() {
    let (seen, inner) = (Log::default(), Log::default());
    let client = TestClient::connect(rewriting_server(&seen, &inner)).await;
    take(&seen);

    // A sync tool, answered at once: the default filled in, the block appended.
    let answer = client.request("tools/call", json!({"name": "echo", "arguments": {}})).await.unwrap();
    assert_eq!(texts(&answer), ["filled in", "rewritten"]);
    assert_eq!(take(&inner), [r#"{"text":"filled in"}"#], "the middleware after it sees the new arguments");
    // A tool that waits, answered from its own task; the client's own value kept.
    let answer = client.request("tools/call", json!({"name": "echo_later", "arguments": {"text": "mine"}})).await;
    assert_eq!(texts(&answer.unwrap()), ["mine", "rewritten"]);
    // Redacted before the tool sees it; still the tool the client named.
    let before = SECRET_CALLS.load(Ordering::SeqCst);
    let answer = client.call_tool("login", json!({"user": "ann", "password": "hunter22"})).await.unwrap();
    assert_eq!(SECRET_CALLS.load(Ordering::SeqCst), before);
    assert_eq!(answer.text(), Some("ann logged in with 3 characters"));
    take(&inner);
    // A list, rewritten.
    let names: Vec<_> = client.list_tools().await.unwrap().iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(!names.contains(&json!("secret")));
    // A task's result (2025-11-25 `tasks/result`) is rewritten once, when the handler ends.
    let created = client
        .request("tools/call", json!({"name": "echo_later", "arguments": {}, "task": {"ttl": 60000}}))
        .await
        .unwrap();
    let task = created["task"]["taskId"].as_str().unwrap().to_owned();
    let result = client.request("tasks/result", json!({"taskId": task})).await.unwrap();
    assert_eq!(texts(&result), ["filled in", "rewritten"]);
    // The rewriter saw each result once, plain: a task's handle is not its result.
    let seen = take(&seen);
    // Three calls, a list, the task's result (not its handle), and `tasks/result` (its own request).
    assert_eq!(seen.len(), 6, "{seen:?}");
    assert!(seen.iter().all(|seen| !seen.contains("\"task\":{")), "{seen:?}");

    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[tokio::test]
async fn a_middleware_rewrites_arguments_and_results_of_stateless_requests() {
    let (seen, inner) = (Log::default(), Log::default());
    let client = TestClient::connect_uninitialized(rewriting_server(&seen, &inner));
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    for tool in ["echo", "echo_later"] {
        let answer = client.request("tools/call", json!({"name": tool, "arguments": {}, "_meta": meta})).await.unwrap();
        assert_eq!(texts(&answer), ["filled in", "rewritten"], "{tool}");
        // Still stateless (its `_meta` kept through the rewrite), decorated after the rewrite.
        assert_eq!(answer["resultType"], "complete", "{answer}");
        assert_eq!(answer["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "mcp-tests");
    }
    let listed = client.request("tools/list", json!({"_meta": meta})).await.unwrap();
    assert_eq!(listed["tools"].as_array().unwrap().len(), 3, "{listed}");
    assert!(listed["ttlMs"].is_u64() && listed["resultType"] == "complete", "{listed}");
    let seen = take(&seen);
    assert_eq!(seen.len(), 3);
    assert!(seen.iter().all(|seen| !seen.contains("resultType") && !seen.contains("serverInfo")), "{seen:?}");
    spec_2026_07_28().assert_all_valid(&client.transcript());
}

/// Rewrites every result with a bug.
struct BrokenRewriter;

impl Middleware for BrokenRewriter {
    fn on_request(&self, _: &RequestInfo<'_>) -> Verdict {
        Rewrite::new().result(|_| panic!("a bug in a rewriter")).into()
    }
}

#[tokio::test]
async fn a_panicking_rewriter_fails_its_request_and_the_server_keeps_serving() {
    let log = Log::default();
    let server = server!()
        .tools(tools![echo, echo_later])
        .middleware(Recorder("outer", Arc::clone(&log)))
        .middleware(BrokenRewriter);
    let client = TestClient::connect_uninitialized(server);
    let initialize =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let failed = client.request("initialize", initialize).await.unwrap_err();
    assert_eq!((failed.code, failed.message.as_str()), (-32603, "Internal error: a middleware failed"));
    assert_eq!(take(&log).last().map(String::as_str), Some("outer watched error -32603"));
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    for tool in ["echo", "echo_later"] {
        let params = json!({"name": tool, "arguments": {"text": "x"}, "_meta": meta});
        let failed = client.request("tools/call", params).await.unwrap_err();
        assert_eq!(failed.code, -32603, "{tool}");
    }
}

type Records = Arc<Mutex<Vec<AuditRecord>>>;

fn audited(records: &Records) -> AuditLog {
    let records = Arc::clone(records);
    AuditLog::new().redact(["user"]).to(move |record| records.lock().unwrap().push(record.clone()))
}

/// Waits for the `n`th record: a watcher runs when its request ends, which a cancelled
/// request does after its notification is handled.
async fn record(records: &Records, n: usize) -> AuditRecord {
    for _ in 0..500 {
        if let Some(record) = records.lock().unwrap().get(n) {
            return record.clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no audit record #{n}: {:?}", records.lock().unwrap());
}

#[tokio::test]
async fn the_audit_log_records_who_called_what_and_how_it_ended() {
    let records = Records::default();
    let server = server!().tools(tools![echo, login, refuse, wait_forever]).middleware(audited(&records));
    let client = TestClient::connect(server).await;

    client.call_tool("login", json!({"user": "ann", "password": "hunter2"})).await.unwrap();
    client.request("tools/list", json!({})).await.unwrap(); // not a tool call: not recorded
    client.call_tool("refuse", json!({})).await.unwrap();
    client.request("tools/call", json!({"name": "nope", "arguments": {"token": "t"}})).await.unwrap_err();
    let (id, _answer) = client.start_request("tools/call", json!({"name": "wait_forever", "arguments": {}})).await;
    client.notify("notifications/cancelled", json!({"requestId": id})).await;

    let login = record(&records, 0).await;
    assert_eq!((login.method.as_str(), login.target.as_deref()), ("tools/call", Some("login")));
    assert_eq!(login.arguments, Some(json!({"user": "[redacted]", "password": "[redacted]"})));
    assert_eq!(login.outcome, AuditOutcome::Ok);
    assert_eq!(login.caller, None, "one stdio-like client: no caller to name");
    let json = serde_json::to_value(&login).unwrap();
    assert!(json["time"].as_str().unwrap().ends_with('Z') && json["durationMs"].is_number(), "{json}");
    assert_eq!(json["outcome"], json!({"status": "ok"}));

    assert_eq!(record(&records, 1).await.outcome, AuditOutcome::ToolError);
    let unknown = record(&records, 2).await;
    assert_eq!(unknown.arguments, Some(json!({"token": "[redacted]"})));
    assert!(matches!(&unknown.outcome, AuditOutcome::Error { code: -32602, message } if message.contains("nope")));
    let cancelled = record(&records, 3).await;
    assert_eq!((cancelled.target.as_deref(), &cancelled.outcome), (Some("wait_forever"), &AuditOutcome::Cancelled));
    assert_eq!(cancelled.request_id, id.to_string());
    assert_eq!(records.lock().unwrap().len(), 4);
}

/// Logs twice from inside a request: once for the client, once on the audit target.
#[mcp_tool]
fn logs_both(ctx: Context) -> &'static str {
    let _ = ctx;
    tracing::warn!("for the client");
    tracing::warn!(target: "mcp_runtime::audit", "user ann's password is hunter2");
    "logged"
}

#[tokio::test]
async fn audit_events_never_reach_the_clients_log() {
    mcp_runtime::logging::init();
    let client = TestClient::connect(server!().tools(tools![login, logs_both]).middleware(AuditLog::new())).await;
    client.request("logging/setLevel", json!({"level": "debug"})).await.unwrap();
    client.call_tool("login", json!({"user": "ann", "password": "hunter2"})).await.unwrap();
    client.call_tool("logs_both", json!({})).await.unwrap();
    let logs = client.received().await;
    // The bridge is on (the tool's ordinary event arrives), and the audit target stays out,
    // even from inside a request.
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["params"]["data"], "for the client");
}

/// One session over real HTTP, audited: its records name the client by its address (never
/// by the session, which a client renews at will), the session by a digest (its id would let
/// a reader of the log use it), and redact secrets by their look, at any depth (issue 31, row 8).
#[tokio::test]
async fn over_http_records_name_the_address_a_digest_of_the_session_and_no_secret() {
    let records = Records::default();
    let service = server!().tools(tools![echo]).middleware(audited(&records)).into_http_service(Default::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(service.unwrap().serve(listener, std::future::pending()));
    let mut client = HttpClient::new(address);
    let session = client.initialize().await;
    client.request(1, "tools/call", json!({"name": "echo", "arguments": {"text": "x"}})).await;
    let secrets = json!({
        "access_token": "SECRET-1", "client_secret": "SECRET-2", "db_password": "SECRET-3",
        "nested": {"list": [{"private_key": "SECRET-4", "apiKey": "SECRET-5"}], "keyword": "kept"},
    });
    client.request(2, "tools/call", json!({"name": "echo", "arguments": secrets})).await;

    let first = record(&records, 0).await;
    assert_eq!(first.caller.as_deref(), Some("address:127.0.0.1"));
    let digest = first.session.clone().unwrap();
    assert_eq!(digest.len(), 16);
    assert!(digest.bytes().all(|b| b.is_ascii_hexdigit()) && !session.contains(&digest), "{digest}");
    let second = record(&records, 1).await;
    assert_eq!(second.session, Some(digest), "one session, one digest");
    let json = serde_json::to_string(&second).unwrap();
    assert!(!json.contains(&session), "the session id in clear: {json}");
    assert!(!json.contains("SECRET"), "a secret in clear: {json}");
    assert_eq!(second.arguments.unwrap()["nested"]["keyword"], "kept");
}

/// Writes down where each request it sees came from.
struct Origin(Log);

impl Middleware for Origin {
    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
        let headers = request.http_parts().map(|parts| parts.headers.len());
        let origin =
            format!("{:?} {:?} {:?}", request.caller_key(), headers.is_some(), request.arguments().map(|a| a.get()));
        self.0.lock().unwrap().push(origin);
        Verdict::Continue
    }
}

#[tokio::test]
async fn over_http_a_rewritten_request_keeps_where_it_came_from() {
    let (seen, origins) = (Log::default(), Log::default());
    let server =
        server!().tools(tools![echo]).middleware(Rewriter(Arc::clone(&seen))).middleware(Origin(Arc::clone(&origins)));
    let service = server.into_http_service(Default::default()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(service.serve(listener, std::future::pending()));
    let mut client = HttpClient::new(address);
    client.initialize().await;
    let messages = client.request(1, "tools/call", json!({"name": "echo", "arguments": {}})).await;
    assert_eq!(texts(&messages.last().unwrap()["result"]), ["filled in", "rewritten"]);
    let origins = take(&origins);
    assert_eq!(
        origins.last().map(String::as_str),
        Some(r#"Some("address:127.0.0.1") true Some("{\"text\":\"filled in\"}")"#),
        "{origins:?}"
    );
}

#[cfg(feature = "rate-limit")]
mod rate_limit {
    use super::*;
    use mcp_runtime::middleware::{Quota, RateLimit};
    use serde_json::Value;
    use std::net::SocketAddr;
    use std::num::NonZeroU32;

    /// Two calls per caller, then one an hour.
    fn two_calls() -> RateLimit {
        let quota = Quota::per_hour(NonZeroU32::new(1).unwrap()).allow_burst(NonZeroU32::new(2).unwrap());
        RateLimit::per_caller(quota)
    }

    fn text(messages: &[Value]) -> Option<&str> {
        messages.last()?["result"]["content"][0]["text"].as_str()
    }

    fn error(messages: &[Value]) -> Value {
        messages.last().map(|m| m["error"].clone()).unwrap_or_default()
    }

    async fn serve(server: Server, config: mcp_runtime::http::HttpConfig) -> SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(server.into_http_service(config).unwrap().serve(listener, std::future::pending()));
        address
    }

    fn call(text: &str) -> Value {
        json!({"name": "echo", "arguments": {"text": text}})
    }

    /// Replicas sharing a Redis store count on their own: a server built with both says so,
    /// once, at start; one without the shared store says nothing.
    #[cfg(feature = "redis")]
    #[tokio::test]
    async fn a_server_with_a_shared_store_says_its_rate_limit_counts_per_process() {
        let (log, _guard) = mcp_tests::log::CapturedLog::start();
        let _alone = TestClient::connect(server!().tools(tools![echo]).middleware(two_calls())).await;
        assert!(log.lines_with("RateLimit").is_empty());
        // Building the server does not connect to Redis: nothing listens at this address.
        let store = mcp_runtime::SessionStore::redis("redis://127.0.0.1:9/").unwrap();
        let shared = server!()
            .tools(tools![echo])
            .middleware(two_calls())
            .session_store(store)
            .request_state_secret("the same on every replica");
        let client = TestClient::connect(shared).await;
        let warned = log.lines_with("RateLimit counts each caller's requests in this process only");
        assert_eq!(warned.len(), 1, "{warned:?}");
        assert!(warned[0].contains("WARN") && warned[0].contains("n times its quota"), "{warned:?}");
        assert_eq!(
            client.call_tool("echo", json!({"text": "still served"})).await.unwrap().text(),
            Some("still served")
        );
    }

    /// The allowance is the client's address's: a fresh session does not renew it, and a
    /// client at another address has its own (issue 31, row 9).
    #[tokio::test]
    async fn a_new_session_does_not_renew_the_allowance_and_each_address_has_its_own() {
        let address = serve(server!().tools(tools![echo]).middleware(two_calls()), Default::default()).await;
        let mut one = HttpClient::new(address);
        one.initialize().await;
        assert_eq!(text(&one.request(1, "tools/call", call("a")).await), Some("a"));
        assert_eq!(text(&one.request(2, "tools/call", call("b")).await), Some("b"));
        let refused = error(&one.request(3, "tools/call", call("c")).await);
        assert_eq!(refused["code"], -32000, "{refused}");
        assert!(refused["message"].as_str().unwrap().starts_with("Rate limit exceeded"), "{refused}");
        let retry = refused["data"]["retryAfterMs"].as_u64().unwrap();
        assert!(retry > 60_000 && retry <= 3_600_000, "about an hour: {retry}");
        // Other methods are not counted.
        assert!(one.request(4, "tools/list", json!({})).await[0]["result"]["tools"].is_array());
        spec_2025_11_25().assert_all_valid(&one.transcript());

        let mut renewed = HttpClient::new(address);
        renewed.initialize().await;
        assert_eq!(error(&renewed.request(1, "tools/call", call("d")).await)["code"], -32000, "a new session");
        let mut elsewhere = HttpClient::new(address).from_source([127, 0, 0, 2].into());
        elsewhere.initialize().await;
        assert_eq!(text(&elsewhere.request(1, "tools/call", call("e")).await), Some("e"));
    }

    /// A stateless (2026-07-28) call without a token, from `client`.
    async fn stateless_call(client: &HttpClient, text: &str) -> Vec<Value> {
        let mut params = call(text);
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let headers = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "echo")];
        client.post_with(&message, &headers).await.messages().await
    }

    /// Anonymous stateless callers are told apart by their addresses: one client spending its
    /// allowance locks out no other (issue 31, row 9).
    #[tokio::test]
    async fn anonymous_stateless_callers_each_have_their_own_allowance() {
        let address = serve(server!().tools(tools![echo]).middleware(two_calls()), Default::default()).await;
        let greedy = HttpClient::new(address);
        assert_eq!(text(&stateless_call(&greedy, "a").await), Some("a"));
        assert_eq!(text(&stateless_call(&greedy, "b").await), Some("b"));
        assert_eq!(error(&stateless_call(&greedy, "c").await)["code"], -32000);
        let other = HttpClient::new(address).from_source([127, 0, 0, 3].into());
        assert_eq!(text(&stateless_call(&other, "d").await), Some("d"), "another client is not locked out");
        spec_2026_07_28().assert_all_valid(&other.transcript());
    }

    /// Over stdio (here in memory) the one client is the process at the other end.
    #[tokio::test]
    async fn a_local_client_has_one_allowance() {
        let client = TestClient::connect(server!().tools(tools![echo]).middleware(two_calls())).await;
        for text in ["a", "b"] {
            client.call_tool("echo", json!({"text": text})).await.unwrap();
        }
        let refused = client.call_tool("echo", json!({"text": "c"})).await.unwrap_err();
        assert_eq!(refused.code, -32000, "{refused:?}");
    }

    #[tokio::test]
    async fn all_requests_counts_every_method() {
        let address =
            serve(server!().tools(tools![echo]).middleware(two_calls().all_requests()), Default::default()).await;
        let mut client = HttpClient::new(address);
        client.initialize().await; // counted: a new session's first request
        assert!(client.request(1, "tools/list", json!({})).await[0]["result"].is_object());
        assert_eq!(error(&client.request(2, "tools/list", json!({})).await)["code"], -32000);
    }

    /// With authorization, the allowance is the user's, whatever session or request carries it.
    #[cfg(feature = "auth")]
    #[tokio::test]
    async fn with_authorization_the_allowance_is_the_users() {
        use jsonwebtoken::{EncodingKey, Header};
        use mcp_runtime::auth::{AuthConfig, JwtKey, JwtVerifier};
        const SECRET: &[u8] = b"middleware-test-secret-of-32-bytes-or-more";
        const RESOURCE: &str = "https://mcp.example.com/mcp";
        let token = |user: &str| {
            let now = jsonwebtoken::get_current_timestamp();
            let claims = json!({"aud": RESOURCE, "sub": user, "exp": now + 600, "scope": ""});
            jsonwebtoken::encode(&Header::default(), &claims, &EncodingKey::from_secret(SECRET).unwrap()).unwrap()
        };
        let verifier = JwtVerifier::new(JwtKey::hmac_secret(SECRET).unwrap());
        let config = mcp_runtime::http::HttpConfig::default()
            .auth(AuthConfig::new(verifier).resource(RESOURCE).authorization_server("https://auth.example.com"));
        let records = Records::default();
        let server = server!().tools(tools![echo]).middleware(two_calls()).middleware(audited(&records));
        let address = serve(server, config).await;
        let call = json!({"name": "echo", "arguments": {"text": "x"}});

        // Alice spends her allowance across two sessions; Bob still has his.
        let mut first = HttpClient::new(address).with_bearer(&token("alice"));
        first.initialize().await;
        let mut second = HttpClient::new(address).with_bearer(&token("alice"));
        second.initialize().await;
        assert_eq!(text(&first.request(1, "tools/call", call.clone()).await), Some("x"));
        assert_eq!(text(&second.request(1, "tools/call", call.clone()).await), Some("x"));
        assert_eq!(error(&first.request(2, "tools/call", call.clone()).await)["code"], -32000);
        let mut bob = HttpClient::new(address).with_bearer(&token("bob"));
        bob.initialize().await;
        assert_eq!(text(&bob.request(1, "tools/call", call.clone()).await), Some("x"));

        // The audit log (inside the limit) names the users, and never saw the refused call.
        let callers: Vec<_> = (0..3).map(|n| records.lock().unwrap().get(n).and_then(|r| r.caller.clone())).collect();
        assert_eq!(callers, [Some("user:alice".into()), Some("user:alice".into()), Some("user:bob".into())]);
    }
}
