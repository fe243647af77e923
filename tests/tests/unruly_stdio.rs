//! Handlers that misbehave, over stdio in a real child process (`unruly-server`): what they
//! print cannot corrupt the protocol stream, what they block cannot keep the process alive, a
//! session cannot run more requests than its cap, and every request is answered at shutdown.

use mcp_tests::StdioServer;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_unruly-server");

/// The JSON-RPC error codes the runtime uses for these cases.
const TOO_MANY_REQUESTS: i64 = -32010;
const SHUTTING_DOWN: i64 = -32011;

/// The server's default shutdown grace, and the margin a test allows beyond it.
const GRACE: Duration = Duration::from_millis(500);
/// What a loaded machine may add to the grace: the tests prove a process ends rather than
/// hangs, and wait only as long as it takes.
const MARGIN: Duration = Duration::from_secs(10);

/// A server whose stderr goes to a file of its own (read with [`stderr_of`]), with `env` set.
async fn started(test: &str, env: &[(&str, &str)]) -> (StdioServer, PathBuf) {
    let log = std::env::temp_dir().join(format!("unruly-{test}-{}.stderr", std::process::id()));
    let file = std::fs::File::create(&log).expect("create the stderr file");
    let mut server = StdioServer::spawn_with(BIN, |command| {
        command.stderr(file).envs(env.iter().copied());
    });
    server.initialize("2025-11-25").await;
    (server, log)
}

fn stderr_of(log: &PathBuf) -> String {
    let text = std::fs::read_to_string(log).expect("read the stderr file");
    let _ = std::fs::remove_file(log);
    text
}

async fn call(server: &mut StdioServer, id: i64, tool: &str, arguments: Value) -> Value {
    server.request(id, "tools/call", json!({"name": tool, "arguments": arguments})).await.0
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text result: {answer}"))
}

fn assert_error(answer: &Value, id: i64, code: i64) {
    assert_eq!(answer["id"], id, "{answer}");
    assert_eq!(answer["error"]["code"], code, "{answer}");
}

/// `print!` without a newline and `println!` in tools go to stderr: every answer arrives whole
/// (a stray line would fail `recv`, a fused one would lose the next answer).
#[tokio::test]
async fn what_tools_print_goes_to_stderr_not_onto_the_protocol_stream() {
    let (mut server, log) = started("print", &[]).await;
    assert_eq!(text(&call(&mut server, 1, "mutter", json!({})).await), "muttered");
    let (pong, _) = server.request(2, "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}), "{pong}");
    assert_eq!(text(&call(&mut server, 3, "shout", json!({})).await), "shouted");
    assert_eq!(text(&call(&mut server, 4, "mutter", json!({})).await), "muttered");
    let (pong, _) = server.request(5, "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}), "{pong}");
    server.close_stdin();
    assert_eq!(server.drain().await, Vec::<Value>::new(), "nothing but answers on stdout");
    assert!(server.wait(Duration::from_secs(3)).await.success());
    server.assert_schema_valid();
    let stderr = stderr_of(&log);
    assert!(stderr.contains("shout-with-newline"), "stderr: {stderr}");
    assert!(stderr.contains("mutter-without-newline"), "stderr: {stderr}");
}

/// With a cap of 2, a third long call at once is refused at once; the two others complete,
/// and once they have, a new call is accepted.
#[tokio::test]
async fn requests_beyond_the_cap_in_flight_are_refused_at_once() {
    let (mut server, log) = started("cap", &[("UNRULY_MAX_IN_FLIGHT", "2")]).await;
    for id in 1..=3 {
        server.send_request(json!(id), "tools/call", json!({"name": "nap", "arguments": {"millis": 400}})).await;
    }
    // Refused at once, not queued: the refusal comes before either call in flight ends.
    let first = server.recv().await.expect("an answer");
    assert_error(&first, 3, TOO_MANY_REQUESTS);
    let message = first["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("2 at once"), "{message}");
    let mut finished = [server.recv().await.expect("an answer"), server.recv().await.expect("an answer")]
        .map(|answer| (answer["id"].as_i64().unwrap_or_default(), text(&answer).to_owned()));
    finished.sort();
    assert_eq!(finished, [(1, "slept 400 ms".to_owned()), (2, "slept 400 ms".to_owned())]);
    assert_eq!(text(&call(&mut server, 4, "nap", json!({"millis": 1})).await), "slept 1 ms");
    server.close_stdin();
    assert!(server.wait(Duration::from_secs(3)).await.success());
    server.assert_schema_valid();
    stderr_of(&log);
}

/// A request still running when the grace ends is answered with an error, not dropped.
#[tokio::test]
async fn a_request_still_running_at_shutdown_gets_an_error() {
    let (mut server, log) = started("shutdown-answer", &[]).await;
    server.send_request(json!(7), "tools/call", json!({"name": "nap", "arguments": {"millis": 60_000}})).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    server.close_stdin();
    let answer = server.recv().await.expect("an answer before stdout closes");
    assert_error(&answer, 7, SHUTTING_DOWN);
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("shutting down"), "{message}");
    assert_eq!(server.drain().await, Vec::<Value>::new());
    assert!(server.wait(GRACE + MARGIN).await.success());
    server.assert_schema_valid();
    stderr_of(&log);
}

/// Sends `tool` (which blocks its thread for good), waits until it runs, then ends the server
/// with `end`; the process must exit within the grace (plus a margin for the watchdog's tick
/// and a loaded machine).
async fn ends_despite(test: &str, tool: &str, end: impl FnOnce(&mut StdioServer)) -> String {
    let (mut server, log) = started(test, &[]).await;
    server.send_request(json!(1), "tools/call", json!({"name": tool, "arguments": {}})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let ended = Instant::now();
    end(&mut server);
    server.wait(GRACE + MARGIN).await;
    assert!(ended.elapsed() < GRACE + MARGIN, "took {:?}", ended.elapsed());
    stderr_of(&log)
}

fn close_stdin(server: &mut StdioServer) {
    server.close_stdin();
}

fn terminate(server: &mut StdioServer) {
    let status = std::process::Command::new("kill").args(["-TERM", &server.pid().to_string()]).status();
    assert!(status.expect("run kill").success());
}

/// An async tool that blocks the connection's thread in its first poll (blocking I/O before
/// its first `.await`) cannot stop stdin EOF from ending the process.
#[tokio::test]
async fn stdin_eof_ends_the_process_while_a_first_poll_blocks() {
    ends_despite("eof-first", "block_first", close_stdin).await;
}

/// Likewise SIGTERM.
#[tokio::test]
async fn sigterm_ends_the_process_while_a_first_poll_blocks() {
    ends_despite("term-first", "block_first", terminate).await;
}

/// A handler that blocks a runtime worker after its first `.await` cannot keep the process
/// alive at stdin EOF either (`#[mcp_runtime::main]` does not wait for it).
#[tokio::test]
async fn stdin_eof_ends_the_process_while_a_worker_is_blocked() {
    ends_despite("eof-later", "block_later", close_stdin).await;
}

/// Likewise SIGTERM.
#[tokio::test]
async fn sigterm_ends_the_process_while_a_worker_is_blocked() {
    ends_despite("term-later", "block_later", terminate).await;
}

/// A first poll that blocks longer than the threshold (500 ms) is reported once per handler,
/// naming it and saying what to do; the calls themselves are answered.
#[tokio::test]
async fn a_first_poll_that_blocks_is_reported_once_naming_the_tool() {
    let (mut server, log) = started("warning", &[]).await;
    for id in 1..=2 {
        assert_eq!(text(&call(&mut server, id, "block_for", json!({"millis": 700})).await), "blocked 700 ms");
    }
    assert_eq!(text(&call(&mut server, 3, "nap", json!({"millis": 1})).await), "slept 1 ms");
    server.close_stdin();
    assert!(server.wait(Duration::from_secs(3)).await.success());
    let stderr = stderr_of(&log);
    let warnings: Vec<&str> = stderr.lines().filter(|line| line.contains("WARN")).collect();
    assert_eq!(warnings.len(), 1, "one warning: {stderr}");
    assert!(warnings[0].contains("`block_for`"), "{}", warnings[0]);
    assert!(warnings[0].contains("#[mcp_tool(blocking)]") && warnings[0].contains("async I/O"), "{}", warnings[0]);
}

/// A client may write all its requests and close stdin at once: a handler that blocks for less
/// than the grace meanwhile does not cost the requests after it their answers.
#[tokio::test]
async fn input_left_after_a_slow_first_poll_is_still_served_at_eof() {
    let (mut server, log) = started("batch", &[]).await;
    server.send_request(json!(1), "tools/call", json!({"name": "block_for", "arguments": {"millis": 300}})).await;
    server.send_request(json!(2), "ping", json!({})).await;
    server.close_stdin();
    let answers = server.drain().await;
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(text(&answers[0]), "blocked 300 ms");
    assert_eq!(answers[1]["result"], json!({}), "{answers:?}");
    assert!(server.wait(Duration::from_secs(3)).await.success());
    stderr_of(&log);
}
