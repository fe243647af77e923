//! A malicious MCP server over Streamable HTTP, written on a bare tokio listener so that the
//! tests see every byte (`tests/tests/client_hostile.rs`, `mount.rs`). It answers the
//! `initialize` handshake and lists its tools like any server, then misbehaves as asked: its
//! tools answer with a flood (one JSON body, one SSE line, one SSE event of many lines), its
//! `GET` stream says `retry: 0` and closes, and it may redirect every request to `/mcp`
//! elsewhere. It records what it received and counts the bytes of each flood it got out
//! before the client hung up. It can also speak 2026-07-28 (`server/discover`) and test the
//! client's side of the protocol where servers seldom go (`client_conformance.rs`): a first
//! request refused with -32022, tools of its choosing, a `GET` stream slow to open, and a
//! call whose stream closes before its answer, which comes when the client resumes it.

use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

/// The tools of the server: `ok` answers `fine`; the others flood.
pub const TOOLS: [&str; 4] = ["ok", "flood_json", "flood_sse_line", "flood_sse_event"];

/// What the server does besides answering the handshake.
#[derive(Clone, Debug)]
pub struct Behaviour {
    /// How many bytes a flooding tool sends (stopping earlier when the client hangs up).
    pub flood_bytes: usize,
    /// Answer a `GET` with an SSE stream that says `retry: 0` and closes (else 405).
    pub retry_zero_stream: bool,
    /// Answer every request to `/mcp` with `307` to this location (other paths are served).
    pub redirect: Option<String>,
    /// Answer `server/discover`, speaking 2026-07-28 (else only the handshake).
    pub stateless: bool,
    /// Refuse the first request with `400` and -32022, naming 2026-07-28 as supported.
    pub refuse_first_version: bool,
    /// The tools `tools/list` shows (their definitions), instead of [`TOOLS`].
    pub tools: Option<Vec<Value>>,
    /// Answer a `GET` after this long with an SSE stream that stays open (else 405).
    pub open_stream: Option<Duration>,
    /// `tools/call` of `resumable` answers with an SSE stream whose priming event has an id
    /// and this `retry` (ms), and closes it; the answer comes on the `GET` that resumes it
    /// (the conformance suite's `sse-retry` scenario).
    pub resumable_retry: Option<u64>,
}

impl Default for Behaviour {
    fn default() -> Self {
        Self {
            flood_bytes: 256 << 20,
            retry_zero_stream: false,
            redirect: None,
            stateless: false,
            refuse_first_version: false,
            tools: None,
            open_stream: None,
            resumable_retry: None,
        }
    }
}

/// The id of the priming event of the `resumable` call's stream.
pub const RESUMABLE_EVENT_ID: &str = "call-1";

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Request {
    /// `GET`, `POST`, `DELETE`.
    pub method: String,
    pub path: String,
    /// Its headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The JSON-RPC method of a `POST`.
    pub rpc_method: Option<String>,
    pub at: Instant,
}

impl Request {
    /// The value of header `name` (lower case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// One flood: how far it got.
#[derive(Clone, Copy, Debug)]
pub struct Flood {
    /// Bytes of the body written before the client hung up (or all of them).
    pub sent: usize,
    /// Whether all of [`Behaviour::flood_bytes`] went out.
    pub completed: bool,
}

#[derive(Default)]
struct Log {
    requests: Mutex<Vec<Request>>,
    floods: Mutex<Vec<Flood>>,
    /// What the server did, and when (`stream opened`, `call stream closed`).
    marks: Mutex<Vec<(&'static str, Instant)>>,
    /// The id of the `resumable` call waiting for its answer.
    pending_call: Mutex<Option<Value>>,
}

impl Log {
    fn mark(&self, what: &'static str) {
        self.marks.lock().unwrap().push((what, Instant::now()));
    }
}

/// The running server; it stops with the test's runtime.
pub struct HostileServer {
    pub address: SocketAddr,
    log: Arc<Log>,
}

impl HostileServer {
    /// Listens on a free port of 127.0.0.1.
    pub async fn start(behaviour: Behaviour) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let log = Arc::new(Log::default());
        let shared = (Arc::new(behaviour), Arc::clone(&log));
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (behaviour, log) = (Arc::clone(&shared.0), Arc::clone(&shared.1));
                tokio::spawn(async move { serve(stream, &behaviour, &log).await });
            }
        });
        Self { address, log }
    }

    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Request> {
        self.log.requests.lock().unwrap().clone()
    }

    /// The `GET` requests received so far.
    pub fn gets(&self) -> Vec<Request> {
        self.requests().into_iter().filter(|r| r.method == "GET").collect()
    }

    /// When the server first did `what` (`"stream opened"`: the head of a `GET` stream went
    /// out; `"call stream closed"`: the `resumable` call's stream was closed).
    pub fn marked(&self, what: &str) -> Option<Instant> {
        self.log.marks.lock().unwrap().iter().find(|(done, _)| *done == what).map(|(_, at)| *at)
    }

    /// Every flood that ended so far.
    pub fn floods(&self) -> Vec<Flood> {
        self.log.floods.lock().unwrap().clone()
    }
}

/// One request per connection (answered with `Connection: close`).
async fn serve(mut stream: TcpStream, behaviour: &Behaviour, log: &Log) {
    let Some((request, body)) = read_request(&mut stream).await else { return };
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = message.get("id").cloned();
    let rpc_method = message.get("method").and_then(Value::as_str).map(str::to_owned);
    let path = request.path.clone();
    log.requests.lock().unwrap().push(Request { rpc_method: rpc_method.clone(), ..request.clone() });
    if let Some(location) = behaviour.redirect.as_deref().filter(|_| path == "/mcp") {
        let head = format!("HTTP/1.1 307 Temporary Redirect\r\nlocation: {location}\r\ncontent-length: 0\r\n");
        return respond(&mut stream, &head, b"").await;
    }
    let posts = log.requests.lock().unwrap().iter().filter(|r| r.method == "POST").count();
    match request.method.as_str() {
        "GET" if behaviour.retry_zero_stream => {
            respond(&mut stream, "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n", b"retry: 0\n\n").await;
        }
        "GET" if request.header("last-event-id") == Some(RESUMABLE_EVENT_ID) => {
            let id = log.pending_call.lock().unwrap().take().unwrap_or(Value::Null);
            let answer =
                json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "resumed"}]}});
            let event = format!("id: call-2\ndata: {answer}\n\n");
            respond(&mut stream, "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n", event.as_bytes()).await;
        }
        "GET" if behaviour.open_stream.is_some() => {
            tokio::time::sleep(behaviour.open_stream.unwrap_or_default()).await;
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\nid: stream-1\ndata: \n\n";
            if stream.write_all(head.as_bytes()).await.is_ok() {
                log.mark("stream opened");
                // Open until the client hangs up.
                let _ = stream.read(&mut [0; 64]).await;
            }
        }
        "POST" if behaviour.refuse_first_version && posts == 1 => {
            let requested = request.header("mcp-protocol-version").unwrap_or_default();
            let error =
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32022, "message": "Unsupported protocol version",
                "data": {"supported": ["2026-07-28"], "requested": requested}}})
                .to_string();
            let head = format!(
                "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                error.len()
            );
            respond(&mut stream, &head, error.as_bytes()).await;
        }
        "GET" => respond(&mut stream, "HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n", b"").await,
        "DELETE" => respond(&mut stream, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n", b"").await,
        _ => {
            let Some(id) = id else {
                return respond(&mut stream, "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n", b"").await;
            };
            let tool = message.pointer("/params/name").and_then(Value::as_str).unwrap_or_default();
            match (rpc_method.as_deref().unwrap_or_default(), tool) {
                ("tools/call", "flood_json" | "flood_sse_line" | "flood_sse_event") => {
                    let flood = flood(&mut stream, tool, &id, behaviour.flood_bytes).await;
                    log.floods.lock().unwrap().push(flood);
                }
                ("tools/call", "resumable") if behaviour.resumable_retry.is_some() => {
                    *log.pending_call.lock().unwrap() = Some(id);
                    let retry = behaviour.resumable_retry.unwrap_or_default();
                    let priming = format!("id: {RESUMABLE_EVENT_ID}\nretry: {retry}\ndata: \n\n");
                    respond(&mut stream, "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n", priming.as_bytes())
                        .await;
                    log.mark("call stream closed");
                }
                (method, _) => {
                    let answer = answer(method, &id, &message, behaviour);
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: hostile-session\r\n\
                         content-length: {}\r\n",
                        answer.len()
                    );
                    respond(&mut stream, &head, answer.as_bytes()).await;
                }
            }
        }
    }
}

/// The answer of a well-behaved server to `method`.
fn answer(method: &str, id: &Value, message: &Value, behaviour: &Behaviour) -> String {
    let result = match method {
        "server/discover" if behaviour.stateless => json!({
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1.0"},
        }),
        "tools/list" if behaviour.tools.is_some() => json!({ "tools": behaviour.tools }),
        "initialize" => json!({
            "protocolVersion": message.pointer("/params/protocolVersion").cloned().unwrap_or(json!("2025-11-25")),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1.0"},
        }),
        "tools/list" => json!({
            "tools": TOOLS.map(|name| json!({"name": name, "inputSchema": {"type": "object"}})),
        }),
        "tools/call" => json!({"content": [{"type": "text", "text": "fine"}]}),
        "ping" => json!({}),
        _ => {
            return json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
                .to_string();
        }
    };
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// Sends a valid answer to request `id` of about `size` bytes: a JSON body delimited by the
/// connection's end, one SSE line, or one SSE event of 1 KiB data lines (joined by the client
/// with `\n`, which JSON reads as whitespace).
async fn flood(stream: &mut TcpStream, tool: &str, id: &Value, size: usize) -> Flood {
    let sse = tool != "flood_json";
    let content_type = if sse { "text/event-stream" } else { "application/json" };
    let head = format!("HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\nconnection: close\r\n\r\n");
    if stream.write_all(head.as_bytes()).await.is_err() {
        return Flood { sent: 0, completed: false };
    }
    let opening = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"pad":["#);
    let (start, line, end) = match tool {
        "flood_sse_event" => {
            (format!("data: {opening}\n"), format!("data: \"{}\",\n", "x".repeat(1014)), "data: \"\"]}}\n\n")
        }
        "flood_sse_line" => (format!("data: {opening}\""), "x".repeat(1024), "\"]}}\n\n"),
        _ => (format!("{opening}\""), "x".repeat(1024), "\"]}}"),
    };
    let mut sent = 0;
    let mut chunk = start.into_bytes();
    while sent < size {
        while chunk.len() < 64 * 1024 {
            chunk.extend_from_slice(line.as_bytes());
        }
        if stream.write_all(&chunk).await.is_err() {
            return Flood { sent, completed: false };
        }
        sent += chunk.len();
        chunk.clear();
    }
    let completed = stream.write_all(end.as_bytes()).await.is_ok();
    Flood { sent, completed }
}

async fn respond(stream: &mut TcpStream, head: &str, body: &[u8]) {
    let mut bytes = format!("{head}connection: close\r\n\r\n").into_bytes();
    bytes.extend_from_slice(body);
    let _ = stream.write_all(&bytes).await;
    let _ = stream.shutdown().await;
}

/// The request line, headers and body (by `Content-Length`) of one request.
async fn read_request(stream: &mut TcpStream) -> Option<(Request, Vec<u8>)> {
    let mut buffer = Vec::new();
    let head_end = loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        buffer.extend_from_slice(&chunk[..n]);
        if buffer.len() > 64 * 1024 {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let (method, path) = (request_line.next()?.to_owned(), request_line.next()?.to_owned());
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length = headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = buffer.split_off(head_end + 4);
    while body.len() < length {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        body.extend_from_slice(&chunk[..n]);
    }
    let request = Request { method, path, headers, rpc_method: None, at: Instant::now() };
    Some((request, body))
}
