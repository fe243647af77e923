//! Drives a server binary over stdio, as a client process would.

use crate::{TIMEOUT, spec_2025_11_25};
use mcp_runtime::testing::ServerMessage;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// A server process with piped stdin/stdout (stderr is inherited, so its logs show in test
/// output). Every line it prints must be a JSON-RPC message; anything else fails the test.
pub struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    methods: HashMap<Value, String>,
    transcript: Vec<ServerMessage>,
}

impl StdioServer {
    /// Starts `program`.
    pub fn spawn(program: &str) -> Self {
        Self::spawn_with(program, |_| {})
    }

    /// Starts `program` after `configure` has added arguments, environment variables or a
    /// working directory to its command (or sent its stderr elsewhere).
    pub fn spawn_with(program: &str, configure: impl FnOnce(&mut Command)) -> Self {
        let mut command = Command::new(program);
        command.stderr(Stdio::inherit());
        configure(&mut command);
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        Self { child, stdin, stdout, methods: HashMap::new(), transcript: Vec::new() }
    }

    /// The process id, to send it signals.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("the server is running")
    }

    /// Writes one line (a newline is added).
    pub async fn send_line(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line).await.expect("write to the server");
        stdin.write_all(b"\n").await.expect("write to the server");
        stdin.flush().await.expect("flush to the server");
    }

    /// Sends a request without waiting for its answer.
    pub async fn send_request(&mut self, id: Value, method: &str, params: Value) {
        self.methods.insert(id.clone(), method.to_owned());
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(message.to_string().as_bytes()).await;
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_line(message.to_string().as_bytes()).await;
    }

    /// The next message, or `None` at end of output.
    pub async fn recv(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(TIMEOUT, self.stdout.next_line())
            .await
            .expect("the server answered in time")
            .expect("read the server's stdout")?;
        let message: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("the server printed a non-JSON line ({e}): {line}"));
        assert!(!line.contains('\n'), "messages must not contain newlines");
        let answers =
            message.get("id").filter(|_| message.get("method").is_none()).and_then(|id| self.methods.get(id).cloned());
        self.transcript.push(ServerMessage { message: message.clone(), answers });
        Some(message)
    }

    /// The next line as it is, not recorded (for bulk output), or `None` at end of output.
    pub async fn recv_line(&mut self) -> Option<String> {
        tokio::time::timeout(TIMEOUT, self.stdout.next_line())
            .await
            .expect("the server answered in time")
            .expect("read the server's stdout")
    }

    /// Sends a request and returns its response, collecting the notifications that came first.
    pub async fn request(&mut self, id: i64, method: &str, params: Value) -> (Value, Vec<Value>) {
        self.send_request(json!(id), method, params).await;
        let mut notifications = Vec::new();
        loop {
            let message = self.recv().await.expect("the server closed stdout before answering");
            if message.get("method").is_none() && message["id"] == json!(id) {
                return (message, notifications);
            }
            notifications.push(message);
        }
    }

    /// The handshake: `initialize` then `notifications/initialized`; returns the result.
    pub async fn initialize(&mut self, version: &str) -> Value {
        let params = json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "stdio-test", "version": "0"}});
        let (response, _) = self.request(0, "initialize", params).await;
        self.notify("notifications/initialized", json!({})).await;
        response["result"].clone()
    }

    /// Takes the server's stdin, to write from another task while this one reads; later
    /// `send_*` calls panic.
    pub fn take_stdin(&mut self) -> ChildStdin {
        self.stdin.take().expect("stdin is open")
    }

    /// Closes stdin (end of input for the server).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the process to exit, failing the test after `within`.
    pub async fn wait(&mut self, within: Duration) -> ExitStatus {
        tokio::time::timeout(within, self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("the server did not exit within {within:?}"))
            .expect("wait for the server")
    }

    /// Every remaining line until end of output.
    pub async fn drain(&mut self) -> Vec<Value> {
        let mut rest = Vec::new();
        while let Some(message) = self.recv().await {
            rest.push(message);
        }
        rest
    }

    /// Validates everything the server printed against the 2025-11-25 schema.
    pub fn assert_schema_valid(&self) {
        spec_2025_11_25().assert_all_valid(&self.transcript);
    }
}
