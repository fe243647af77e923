//! stdin and stdout of every kind a client hands a server. The other stdio tests use pipes;
//! these use a socket pair (what Node.js clients create: libuv spawns children with
//! `socketpair`, so Claude Desktop, VS Code and the MCP Inspector talk to servers over sockets)
//! and plain files (`server < requests.jsonl > answers.jsonl`).

use mcp_runtime::testing::ServerMessage;
use mcp_tests::{TIMEOUT, spec_2025_11_25};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::process::Stdio;
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_robust-server");

/// Echo calls after the handshake, with a broken line and a ping among them.
const CALLS: i64 = 200;

/// The client's side of a session: the handshake, `CALLS` echo calls, a line that is not
/// JSON and a ping, one message per line.
fn requests() -> String {
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "streams", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    for id in 1..=CALLS {
        let text = format!("call {id}");
        lines.push(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}}}));
    }
    lines.push(json!({"jsonrpc": "2.0", "id": CALLS + 1, "method": "ping"}));
    let mut text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    text.insert_str(text.find("\n").unwrap() + 1, "{not json\n");
    text
}

/// Checks the server's whole output: one schema-valid message per line, every request
/// answered exactly once and correctly, and the broken line answered with a parse error.
fn assert_every_request_answered(output: &str) {
    let mut answers = BTreeMap::new();
    let mut parse_errors = 0;
    let mut transcript = Vec::new();
    for line in output.lines() {
        let message: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        match message["id"].as_i64() {
            Some(id) => {
                let method = match id {
                    0 => "initialize",
                    id if id <= CALLS => "tools/call",
                    _ => "ping",
                };
                transcript.push(ServerMessage { message: message.clone(), answers: Some(method.into()) });
                assert!(answers.insert(id, message).is_none(), "answered twice: {id}");
            }
            None => {
                assert_eq!(message["error"]["code"], -32700, "{message}");
                parse_errors += 1;
                transcript.push(ServerMessage { message, answers: None });
            }
        }
    }
    assert_eq!(parse_errors, 1, "the line that is not JSON gets one parse error");
    assert_eq!(answers.len() as i64, CALLS + 2, "every request is answered: {:?}", answers.keys());
    assert_eq!(answers[&0]["result"]["protocolVersion"], "2025-11-25");
    for id in 1..=CALLS {
        assert_eq!(answers[&id]["result"]["content"][0]["text"], format!("call {id}"), "{}", answers[&id]);
    }
    assert_eq!(answers[&(CALLS + 1)]["result"], json!({}));
    spec_2025_11_25().assert_all_valid(&transcript);
}

#[tokio::test]
async fn requests_read_from_a_file_are_answered_into_a_file() {
    let dir = std::env::temp_dir().join(format!("mcp-stdio-streams-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("requests.jsonl"), dir.join("answers.jsonl"));
    std::fs::write(&input, requests()).unwrap();

    let mut server = Command::new(BIN)
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(std::fs::File::create(&output).unwrap())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("start the server");
    // End of the file is end of input: the server answers everything, then exits cleanly.
    let status = tokio::time::timeout(TIMEOUT, server.wait()).await.expect("the server exits").unwrap();
    assert!(status.success(), "exit status {status}");

    assert_every_request_answered(&std::fs::read_to_string(&output).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn a_socket_pair_serves_like_a_pipe() {
    use std::os::fd::OwnedFd;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let (client, server_end) = std::os::unix::net::UnixStream::pair().unwrap();
    let server_out = server_end.try_clone().unwrap();
    let mut server = Command::new(BIN)
        .stdin(Stdio::from(OwnedFd::from(server_end)))
        .stdout(Stdio::from(OwnedFd::from(server_out)))
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("start the server");
    client.set_nonblocking(true).unwrap();
    let mut client = tokio::net::UnixStream::from_std(client).unwrap();

    // Everything at once, then end of input (a half-close), then read to the server's end.
    client.write_all(requests().as_bytes()).await.unwrap();
    client.shutdown().await.unwrap();
    let mut output = String::new();
    tokio::time::timeout(TIMEOUT, client.read_to_string(&mut output)).await.expect("the server answers").unwrap();
    let status = tokio::time::timeout(TIMEOUT, server.wait()).await.expect("the server exits").unwrap();
    assert!(status.success(), "exit status {status}");

    assert_every_request_answered(&output);
}
