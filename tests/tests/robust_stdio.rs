//! Robustness over stdio: bad input gets a clear error and loses nothing; no input crashes or
//! wedges the server. Each test sends something hostile to the `robust-server` binary
//! (`mcp_tests::robust`), checks the answer, then checks that the server still serves.

use mcp_tests::robust::{HANG_TIMEOUT_MS, TOOL_TIMEOUT, nested_arrays};
use mcp_tests::{StdioServer, rss_mib};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

const BIN: &str = env!("CARGO_BIN_EXE_robust-server");

async fn started() -> StdioServer {
    let mut server = StdioServer::spawn(BIN);
    server.initialize("2025-11-25").await;
    server
}

/// The server still answers a ping, lists its tools and runs one; then it exits cleanly on EOF
/// and everything it printed was schema-valid.
async fn assert_still_serves(mut server: StdioServer) {
    let (pong, _) = server.request(900_001, "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}), "{pong}");
    let (list, _) = server.request(900_002, "tools/list", json!({})).await;
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(9), "{list}");
    let (echo, _) =
        server.request(900_003, "tools/call", json!({"name": "echo", "arguments": {"text": "still here"}})).await;
    assert_eq!(echo["result"]["content"][0]["text"], "still here", "{echo}");
    server.close_stdin();
    let status = server.wait(Duration::from_secs(3)).await;
    assert!(status.success(), "exit status {status}");
    server.assert_schema_valid();
}

/// Sends one raw line and returns the single message it gets.
async fn answer(server: &mut StdioServer, line: &[u8]) -> Value {
    server.send_line(line).await;
    server.recv().await.expect("an answer")
}

/// An error answer with `code`, without an id (the id could not be read or there was none).
fn assert_error_without_id(answer: &Value, code: i64, text: &str) {
    assert_eq!(answer["error"]["code"], code, "{answer}");
    assert!(answer.get("id").is_none(), "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(text), "`{message}` should mention `{text}`");
}

fn assert_error_with_id(answer: &Value, id: Value, code: i64, text: &str) {
    assert_eq!(answer["id"], id, "{answer}");
    assert_eq!(answer["error"]["code"], code, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(text), "`{message}` should mention `{text}`");
}

fn tool_error_text(answer: &Value) -> &str {
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    answer["result"]["content"][0]["text"].as_str().unwrap_or_default()
}

fn call_line(id: i64, name: &str, arguments: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        .to_string()
        .into_bytes()
}

#[tokio::test]
async fn malformed_json_is_a_parse_error() {
    let mut server = started().await;
    for line in [&b"{this is not json"[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", b"}", b"{\"a\":1}}", b"nul"] {
        let answer = answer(&mut server, line).await;
        assert_error_without_id(&answer, -32700, "Parse error");
    }
    assert_still_serves(server).await;
}

#[tokio::test]
async fn non_object_messages_are_invalid_requests() {
    let mut server = started().await;
    for line in ["42", "\"ping\"", "null", "true", "[]"] {
        let answer = answer(&mut server, line.as_bytes()).await;
        assert_error_without_id(&answer, -32600, "Invalid Request");
    }
    let batch = answer(&mut server, br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).await;
    assert_error_without_id(&batch, -32600, "batches are not supported");
    assert_still_serves(server).await;
}

#[tokio::test]
async fn invalid_id_types_are_invalid_requests_without_an_id() {
    let mut server = started().await;
    for id in ["1.5", "{}", "null", "true", "[1]", "1e3", "99999999999999999999"] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let answer = answer(&mut server, line.as_bytes()).await;
        assert_error_without_id(&answer, -32600, "id must be a string or an integer");
    }
    assert_still_serves(server).await;
}

#[tokio::test]
async fn a_wrong_jsonrpc_version_is_an_invalid_request_with_the_id() {
    let mut server = started().await;
    for version in [r#""jsonrpc":"1.0","#, r#""jsonrpc":2.0,"#, r#""jsonrpc":null,"#, ""] {
        let line = format!(r#"{{{version}"id":7,"method":"ping"}}"#);
        let answer = answer(&mut server, line.as_bytes()).await;
        assert_error_with_id(&answer, json!(7), -32600, "jsonrpc must be \"2.0\"");
    }
    assert_still_serves(server).await;
}

#[tokio::test]
async fn unknown_methods_are_method_not_found() {
    let mut server = started().await;
    let (answer, _) = server.request(3, "tools/explode", json!({})).await;
    assert_error_with_id(&answer, json!(3), -32601, "tools/explode");
    // An unknown notification is ignored: no answer, and the next request is answered.
    server.notify("notifications/unheard_of", json!({})).await;
    assert_still_serves(server).await;
}

#[tokio::test]
async fn wrong_parameter_types_are_named() {
    let mut server = started().await;
    let scalar = answer(&mut server, br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"add"}"#).await;
    assert_error_with_id(&scalar, json!(1), -32600, "params must be an object");
    let (name, _) = server.request(2, "tools/call", json!({"name": 5})).await;
    assert_error_with_id(&name, json!(2), -32602, "`name`: invalid type: integer `5`, expected a string");
    let (arguments, _) = server.request(3, "tools/call", json!({"name": "add", "arguments": [1, 2]})).await;
    assert_error_with_id(&arguments, json!(3), -32602, "`arguments` must be an object");
    let (unknown, _) = server.request(4, "tools/call", json!({"name": "nope", "arguments": {}})).await;
    assert_error_with_id(&unknown, json!(4), -32602, "Unknown tool: nope");
    let (cursor, _) = server.request(5, "tools/list", json!({"cursor": 5})).await;
    assert_error_with_id(&cursor, json!(5), -32602, "cursor");
    let (typed, _) = server.request(6, "tools/call", json!({"name": "add", "arguments": {"a": "one", "b": 2}})).await;
    let text = tool_error_text(&typed);
    assert!(text.contains("`a`") && text.contains("expected i64"), "{text}");
    assert_still_serves(server).await;
}

#[tokio::test]
async fn missing_arguments_are_tool_errors_and_extra_ones_are_ignored() {
    let mut server = started().await;
    let (missing, _) = server.request(1, "tools/call", json!({"name": "add", "arguments": {"a": 1}})).await;
    assert!(tool_error_text(&missing).contains("missing field `b`"), "{missing}");
    let (none, _) = server.request(2, "tools/call", json!({"name": "add"})).await;
    assert!(tool_error_text(&none).contains("missing field `a`"), "{none}");
    let (extra, _) =
        server.request(3, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2, "c": 3}})).await;
    assert_eq!(extra["result"]["content"][0]["text"], "3", "{extra}");
    assert_still_serves(server).await;
}

#[tokio::test]
async fn a_10_mb_message_is_refused_and_skipped() {
    let mut server = started().await;
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
        "x".repeat(10 << 20)
    );
    let answer = answer(&mut server, huge.as_bytes()).await;
    assert_error_without_id(&answer, -32600, "message larger than the 4194304-byte limit");
    assert_still_serves(server).await;
}

#[tokio::test]
async fn deeply_nested_json_is_an_error_not_a_stack_overflow() {
    let mut server = started().await;
    // Valid JSON, but an array: refused as a batch (the decoder skips it without recursing).
    let top = answer(&mut server, nested_arrays(100_000).as_bytes()).await;
    assert_error_without_id(&top, -32600, "batches are not supported");
    let objects = format!("{}1{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000));
    let objects = answer(&mut server, objects.as_bytes()).await;
    assert_error_without_id(&objects, -32600, "Invalid Request");
    let unclosed = answer(&mut server, "[".repeat(100_000).as_bytes()).await;
    assert_error_without_id(&unclosed, -32700, "Parse error");
    let in_params =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"deep":{}}}}}"#, nested_arrays(100_000));
    let ping = answer(&mut server, in_params.as_bytes()).await;
    assert_eq!(ping["result"], json!({}), "{ping}");
    let in_arguments = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{}}}}}}}"#,
        nested_arrays(100_000)
    );
    let call = answer(&mut server, in_arguments.as_bytes()).await;
    assert!(tool_error_text(&call).contains("invalid arguments for tool `echo`"), "{call}");
    let unclosed = answer(&mut server, format!(r#"{{"a":{}"#, "{\"a\":".repeat(100_000)).as_bytes()).await;
    assert_error_without_id(&unclosed, -32700, "Parse error");
    assert_still_serves(server).await;
}

#[tokio::test]
async fn invalid_utf8_is_a_parse_error() {
    let mut server = started().await;
    let bare = answer(&mut server, b"\xff\xfe\xfd").await;
    assert_error_without_id(&bare, -32700, "Parse error");
    let in_string = answer(&mut server, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"\xc3\x28\"}}}").await;
    assert_error_without_id(&in_string, -32700, "Parse error");
    let overlong = answer(&mut server, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"\xc0\xafping\"}").await;
    assert_error_without_id(&overlong, -32700, "Parse error");
    assert_still_serves(server).await;
}

#[tokio::test]
async fn a_thousand_pipelined_requests_are_all_answered() {
    const COUNT: i64 = 1000;
    let mut server = started().await;
    let mut stdin = server.take_stdin();
    let writer = tokio::spawn(async move {
        let mut lines = Vec::new();
        for id in 1..=COUNT {
            let line = if id % 2 == 0 {
                call_line(id, "echo", json!({"text": format!("message {id}")}))
            } else {
                json!({"jsonrpc": "2.0", "id": format!("s{id}"), "method": "ping"}).to_string().into_bytes()
            };
            lines.extend_from_slice(&line);
            lines.push(b'\n');
        }
        stdin.write_all(&lines).await.unwrap();
        stdin.flush().await.unwrap();
        stdin
    });
    let mut seen = std::collections::HashSet::new();
    for _ in 0..COUNT {
        let answer = server.recv().await.expect("an answer");
        match &answer["id"] {
            Value::Number(id) => {
                let id = id.as_i64().unwrap();
                assert_eq!(answer["result"]["content"][0]["text"], format!("message {id}"), "{answer}");
                assert!(seen.insert(id.to_string()), "answered twice: {answer}");
            }
            Value::String(id) => {
                assert_eq!(answer["result"], json!({}), "{answer}");
                assert!(seen.insert(id.clone()), "answered twice: {answer}");
            }
            _ => panic!("unexpected message {answer}"),
        }
    }
    assert_eq!(seen.len(), COUNT as usize);
    drop(writer.await.unwrap());
    // stdin was taken: close it by dropping, then the server exits on EOF.
    let status = server.wait(Duration::from_secs(3)).await;
    assert!(status.success(), "exit status {status}");
    server.assert_schema_valid();
}

#[tokio::test]
async fn a_duplicate_in_flight_id_is_refused_and_the_first_request_is_answered() {
    let mut server = started().await;
    server.send_line(&call_line(42, "nap", json!({"millis": 300}))).await;
    let duplicate = answer(&mut server, &call_line(42, "echo", json!({"text": "again"}))).await;
    assert_error_with_id(&duplicate, json!(42), -32600, "already in use");
    let first = server.recv().await.unwrap();
    assert_eq!(first["id"], 42, "{first}");
    assert_eq!(first["result"]["content"][0]["text"], "slept 300 ms", "{first}");
    // Once answered, the id may be used again.
    let (reused, _) = server.request(42, "tools/call", json!({"name": "echo", "arguments": {"text": "reused"}})).await;
    assert_eq!(reused["result"]["content"][0]["text"], "reused", "{reused}");
    assert_still_serves(server).await;
}

/// On stdio a request is registered in flight only once its handler waits (nothing else can
/// arrive during its first poll); a cancellation must still find it then.
#[tokio::test]
async fn a_cancelled_request_is_never_answered() {
    let mut server = started().await;
    server.send_line(&call_line(7, "nap", json!({"millis": 200}))).await;
    server.notify("notifications/cancelled", json!({"requestId": 7})).await;
    let (pong, _) = server.request(8, "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}), "{pong}");
    // End of input: the server waits for what is in flight (the nap, had it not been
    // cancelled, would finish within the grace period) and exits.
    server.close_stdin();
    let rest = server.drain().await;
    assert!(rest.iter().all(|message| message["id"] != 7), "a cancelled request was answered: {rest:?}");
    let status = server.wait(Duration::from_secs(3)).await;
    assert!(status.success(), "exit status {status}");
    server.assert_schema_valid();
}

#[tokio::test]
async fn a_panicking_tool_is_an_error_result() {
    let mut server = started().await;
    for id in 1..=3 {
        let (answer, _) = server.request(id, "tools/call", json!({"name": "boom", "arguments": {}})).await;
        assert!(tool_error_text(&answer).contains("tool `boom` failed unexpectedly (it panicked)"), "{answer}");
    }
    // Arguments are parsed before the tool runs, by user code too: its panic is caught alike.
    let (answer, _) = server.request(4, "tools/call", json!({"name": "touchy", "arguments": {"value": "x"}})).await;
    assert!(tool_error_text(&answer).contains("tool `touchy` failed unexpectedly (it panicked)"), "{answer}");
    assert_still_serves(server).await;
}

#[tokio::test]
async fn tools_that_never_return_time_out() {
    let mut server = started().await;
    let start = Instant::now();
    server.send_line(&call_line(1, "hang", json!({}))).await;
    server.send_line(&call_line(2, "stall", json!({}))).await;
    // Others are served while they hang.
    let (echo, _) = server.request(3, "tools/call", json!({"name": "echo", "arguments": {"text": "meanwhile"}})).await;
    assert_eq!(echo["result"]["content"][0]["text"], "meanwhile");
    let hang = server.recv().await.unwrap();
    assert_eq!(hang["id"], 1, "{hang}");
    assert_eq!(tool_error_text(&hang), format!("tool `hang` timed out after {HANG_TIMEOUT_MS} ms and was stopped"));
    let stall = server.recv().await.unwrap();
    assert_eq!(stall["id"], 2, "{stall}");
    let limit = TOOL_TIMEOUT.as_millis();
    assert_eq!(tool_error_text(&stall), format!("tool `stall` timed out after {limit} ms and was stopped"));
    let elapsed = start.elapsed();
    assert!(elapsed >= TOOL_TIMEOUT && elapsed < TOOL_TIMEOUT * 3, "{elapsed:?}");
    assert_still_serves(server).await;
}

#[tokio::test]
async fn a_client_that_does_not_read_gets_backpressure_not_unbounded_memory() {
    // 8000 answers of 16 KiB: 125 MiB if the server buffered them all. Each request is padded
    // to 1 KiB (the tool ignores the extra argument), so the requests (8 MiB) overflow even the
    // 1 MiB pipe the server asks for: once it stops reading, the writer must stall.
    const COUNT: usize = 8000;
    const SIZE: usize = 16 * 1024;
    const CAP_MIB: u64 = 100;
    let mut server = started().await;
    let pid = server.pid();
    let baseline = rss_mib(pid);
    let mut stdin = server.take_stdin();
    let written = Arc::new(AtomicUsize::new(0));
    let writer = tokio::spawn({
        let written = Arc::clone(&written);
        async move {
            for id in 1..=COUNT {
                let mut line = call_line(id as i64, "blob", json!({"size": SIZE, "padding": "x".repeat(1024)}));
                line.push(b'\n');
                stdin.write_all(&line).await.unwrap();
                written.fetch_add(1, Ordering::SeqCst);
            }
            stdin.flush().await.unwrap();
            stdin
        }
    });
    // Do not read; wait until the server stops taking requests (the writer stalls).
    let mut last = 0;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = written.load(Ordering::SeqCst);
        if now == last || Instant::now() > deadline {
            break;
        }
        last = now;
    }
    let stalled_at = written.load(Ordering::SeqCst);
    let peak = rss_mib(pid);
    eprintln!("baseline {baseline} MiB; writer stalled after {stalled_at} of {COUNT} requests at {peak} MiB");
    assert!(stalled_at < COUNT, "the server kept reading while its output was not read");
    assert!(peak < CAP_MIB, "RSS {peak} MiB while the client did not read (cap {CAP_MIB} MiB)");

    // Reading again: every request is answered, in full, once.
    let mut seen = vec![false; COUNT + 1];
    for _ in 0..COUNT {
        let line = server.recv_line().await.expect("an answer");
        let answer: Value = serde_json::from_str(&line).expect("a JSON answer");
        let id = answer["id"].as_u64().expect("a numeric id") as usize;
        assert_eq!(answer["result"]["content"][0]["text"].as_str().map(str::len), Some(SIZE));
        assert!(!std::mem::replace(&mut seen[id], true), "answered twice: {id}");
    }
    // Measured before stdin closes: on EOF the server exits at once.
    let stdin = writer.await.unwrap();
    let after = rss_mib(pid);
    eprintln!("after reading everything: {after} MiB");
    assert!(after < CAP_MIB, "RSS {after} MiB after the client caught up");
    drop(stdin);
    let status = server.wait(Duration::from_secs(3)).await;
    assert!(status.success(), "exit status {status}");
}

#[tokio::test]
async fn progress_from_a_handler_that_finishes_at_once_precedes_its_result() {
    // No await in `ticks` waits here, so the handler finishes in its first poll and its answer
    // takes the direct path out, while its progress went through the handlers' queue.
    let mut server = started().await;
    let params = json!({"name": "ticks", "arguments": {"count": 50, "millis": 0}, "_meta": {"progressToken": "p"}});
    let (answer, before) = server.request(7, "tools/call", params).await;
    assert_eq!(answer["result"]["content"][0]["text"], "50 ticks", "{answer}");
    let progress: Vec<f64> = before
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, (1..=50).map(f64::from).collect::<Vec<_>>());
    assert_still_serves(server).await;
}
