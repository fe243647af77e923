//! A malicious MCP server over stdio (`tests/tests/client_hostile.rs`, `mount.rs`): it answers
//! the `initialize` handshake and lists its tools like any server, then answers a call of its
//! `flood` tool with one line of `FLOOD_BYTES` bytes (default 64 MiB), a valid answer had the
//! client read it all, and says on stderr how much of it went out before the client hung up:
//! `flood stopped after N bytes` or `flood completed: N bytes`. Its `ok` tool answers `fine`.

use serde_json::{Value, json};
use std::io::{BufRead as _, Write as _};

fn main() {
    let size: usize = std::env::var("FLOOD_BYTES").ok().and_then(|v| v.parse().ok()).unwrap_or(64 << 20);
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let Some(id) = message.get("id").cloned() else { continue };
        let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
        let tool = message.pointer("/params/name").and_then(Value::as_str).unwrap_or_default();
        if method == "tools/call" && tool == "flood" {
            flood(&mut out, &id, size);
            continue;
        }
        let answer = match method {
            "initialize" => json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": message.pointer("/params/protocolVersion").cloned().unwrap_or(json!("2025-11-25")),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "flooding", "version": "1.0"},
            }}),
            "tools/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                {"name": "flood", "inputSchema": {"type": "object"}},
                {"name": "ok", "inputSchema": {"type": "object"}},
            ]}}),
            "tools/call" => {
                json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "fine"}]}})
            }
            "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            _ => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}}),
        };
        if writeln!(out, "{answer}").and_then(|()| out.flush()).is_err() {
            return;
        }
    }
}

/// Writes the answer to `id` with `size` bytes of padding on one line, 64 KiB at a time.
fn flood(out: &mut impl std::io::Write, id: &Value, size: usize) {
    let mut sent = 0;
    let mut chunk = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"pad":""#).into_bytes();
    while sent < size {
        chunk.resize(64 * 1024, b'x');
        if let Err(error) = out.write_all(&chunk).and_then(|()| out.flush()) {
            eprintln!("flood stopped after {sent} bytes: {error}");
            std::process::exit(0);
        }
        sent += chunk.len();
        chunk.clear();
    }
    match writeln!(out, r#""}}}}"#).and_then(|()| out.flush()) {
        Ok(()) => eprintln!("flood completed: {sent} bytes"),
        Err(error) => eprintln!("flood stopped after {sent} bytes: {error}"),
    }
}
