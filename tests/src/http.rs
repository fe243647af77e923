//! A small Streamable HTTP client for tests: raw requests with chosen headers, SSE parsing,
//! and a transcript of every JSON-RPC message the server sent, for schema validation.

use crate::TIMEOUT;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{HeaderMap, Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use mcp_runtime::testing::ServerMessage;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

/// POSTs `body` to `/mcp` over a raw socket with exactly the header lines `lines` besides
/// Host, Accept, Content-Type, Connection and Content-Length: for what [`HttpClient`] would not
/// send (a name given twice, which it merges; bytes beyond ASCII). The whole answer, as text.
pub async fn post_raw(address: SocketAddr, lines: &[&[u8]], body: &str) -> String {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut request = b"POST /mcp HTTP/1.1\r\nhost: localhost\r\naccept: application/json, text/event-stream\r\n\
        content-type: application/json\r\nconnection: close\r\n"
        .to_vec();
    for line in lines {
        request.extend_from_slice(line);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(format!("content-length: {}\r\n\r\n{body}", body.len()).as_bytes());
    let mut stream = tokio::net::TcpStream::connect(address).await.expect("connect to the server");
    stream.write_all(&request).await.expect("send the request");
    let mut answer = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut answer))
        .await
        .expect("no answer within the timeout")
        .expect("read the answer");
    String::from_utf8_lossy(&answer).into_owned()
}

/// A client of one MCP endpoint. Each request uses a fresh connection.
#[derive(Clone)]
pub struct HttpClient {
    address: SocketAddr,
    path: String,
    /// The session id, once `initialize` gave one.
    pub session: Option<String>,
    methods: Arc<Mutex<HashMap<String, String>>>,
    transcript: Arc<Mutex<Vec<ServerMessage>>>,
    /// Headers sent with every request (e.g. `Authorization`), before those of a call.
    pub default_headers: Vec<(String, String)>,
    /// The local address connections start from (all of 127.0.0.0/8 is local on Linux, so one
    /// test can be several clients); the system's choice when `None`.
    pub source: Option<IpAddr>,
    /// Speaks HTTPS through this connector, for this server name.
    #[cfg(feature = "tls")]
    pub tls: Option<(tokio_rustls::TlsConnector, tokio_rustls::rustls::pki_types::ServerName<'static>)>,
}

/// One HTTP answer, its body not read yet.
pub struct Reply {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    body: Incoming,
    client: HttpClient,
}

/// One server-sent event.
#[derive(Clone, Debug, Default)]
pub struct Event {
    /// `id:`.
    pub id: Option<String>,
    /// `data:` lines joined by newlines.
    pub data: String,
    /// `retry:`.
    pub retry: Option<u64>,
    /// Whether the frame had a `data:` field at all.
    pub has_data: bool,
}

impl Event {
    /// The data as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("event data is not JSON ({e}): {:?}", self.data))
    }
}

/// An SSE body being read.
pub struct Events {
    body: Incoming,
    buffer: Vec<u8>,
    client: HttpClient,
}

impl HttpClient {
    /// A client of `http://address/mcp`.
    pub fn new(address: SocketAddr) -> Self {
        Self::with_path(address, "/mcp")
    }

    /// A client of `http://address{path}`.
    pub fn with_path(address: SocketAddr, path: &str) -> Self {
        Self {
            address,
            path: path.to_owned(),
            session: None,
            methods: Arc::default(),
            transcript: Arc::default(),
            default_headers: Vec::new(),
            source: None,
            #[cfg(feature = "tls")]
            tls: None,
        }
    }

    /// This client, connecting from the local address `source` (e.g. `127.0.0.2`): to the
    /// server, another client than one connecting from `127.0.0.1`.
    pub fn from_source(mut self, source: IpAddr) -> Self {
        self.source = Some(source);
        self
    }

    /// This client, sending `Authorization: Bearer <token>` with every request.
    pub fn with_bearer(mut self, token: &str) -> Self {
        self.default_headers.retain(|(name, _)| name != "authorization");
        self.default_headers.push(("authorization".into(), format!("Bearer {token}")));
        self
    }

    /// Every JSON-RPC message received so far.
    pub fn transcript(&self) -> Vec<ServerMessage> {
        self.transcript.lock().unwrap().clone()
    }

    /// Sends one HTTP request. `headers` are added to the defaults (Host, and for a session
    /// `Mcp-Session-Id` and `MCP-Protocol-Version: 2025-11-25`); one with an empty value
    /// removes the default of that name.
    pub async fn send(&self, method: Method, path: &str, headers: &[(&str, &str)], body: Vec<u8>) -> Reply {
        let stream = match self.source {
            None => tokio::net::TcpStream::connect(self.address).await,
            Some(source) => {
                let socket = match source {
                    IpAddr::V4(_) => tokio::net::TcpSocket::new_v4(),
                    IpAddr::V6(_) => tokio::net::TcpSocket::new_v6(),
                }
                .expect("a socket");
                socket.bind(SocketAddr::new(source, 0)).expect("bind the client's source address");
                socket.connect(self.address).await
            }
        }
        .expect("connect to the server");
        #[cfg(feature = "tls")]
        let mut sender = match &self.tls {
            Some((connector, name)) => {
                let stream = connector.connect(name.clone(), stream).await.expect("TLS handshake");
                let (sender, connection) =
                    hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("HTTP handshake");
                tokio::spawn(connection);
                sender
            }
            None => plain(stream).await,
        };
        #[cfg(not(feature = "tls"))]
        let mut sender = plain(stream).await;
        let mut all: Vec<(String, String)> = vec![("host".into(), self.address.to_string())];
        if let Some(session) = &self.session {
            all.push(("mcp-session-id".into(), session.clone()));
            all.push(("mcp-protocol-version".into(), "2025-11-25".into()));
        }
        all.extend(self.default_headers.iter().cloned());
        for (name, value) in headers {
            let name = name.to_ascii_lowercase();
            all.retain(|(n, _)| *n != name);
            if !value.is_empty() {
                all.push((name, (*value).to_owned()));
            }
        }
        let mut request = Request::builder().method(method).uri(path);
        for (name, value) in &all {
            request = request.header(name.as_str(), value.as_str());
        }
        let request = request.body(Full::new(Bytes::from(body))).expect("a valid request");
        let response = tokio::time::timeout(TIMEOUT, sender.send_request(request))
            .await
            .expect("no answer within the timeout")
            .expect("the HTTP request failed");
        let (parts, body) = response.into_parts();
        Reply { status: parts.status, headers: parts.headers, body, client: self.clone() }
    }

    /// POSTs a JSON-RPC message to the endpoint, accepting JSON and SSE; `headers` as in
    /// [`send`](Self::send).
    pub async fn post_with(&self, message: &Value, headers: &[(&str, &str)]) -> Reply {
        if let (Some(id), Some(method)) = (message.get("id"), message.get("method").and_then(Value::as_str)) {
            self.methods.lock().unwrap().insert(id.to_string(), method.to_owned());
        }
        let mut all = vec![("accept", "application/json, text/event-stream"), ("content-type", "application/json")];
        all.extend_from_slice(headers);
        self.send(Method::POST, &self.path.clone(), &all, message.to_string().into_bytes()).await
    }

    /// POSTs a JSON-RPC message with the default headers.
    pub async fn post(&self, message: &Value) -> Reply {
        self.post_with(message, &[]).await
    }

    /// Opens the GET stream (or resumes one with `Last-Event-ID`).
    pub async fn get(&self, last_event_id: Option<&str>) -> Reply {
        let mut headers = vec![("accept", "text/event-stream")];
        if let Some(id) = last_event_id {
            headers.push(("last-event-id", id));
        }
        self.send(Method::GET, &self.path.clone(), &headers, Vec::new()).await
    }

    /// `initialize` then `notifications/initialized`; keeps the session id.
    pub async fn initialize(&mut self) -> String {
        let reply = self
            .post(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "http-test", "version": "0"},
            }}))
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        let session = reply.header("mcp-session-id").expect("initialize gives a session id").to_owned();
        let messages = reply.messages().await;
        assert!(messages[0].get("result").is_some(), "{messages:?}");
        self.session = Some(session.clone());
        let reply = self.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED);
        session
    }

    /// Sends a request and returns every message of its answer, the response last.
    pub async fn request(&self, id: i64, method: &str, params: Value) -> Vec<Value> {
        let reply = self.post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        assert_eq!(reply.status, StatusCode::OK, "{method}");
        reply.messages().await
    }

    fn record(&self, message: &Value) {
        let answers = if message.get("method").is_none() {
            message.get("id").and_then(|id| self.methods.lock().unwrap().get(&id.to_string()).cloned())
        } else {
            None
        };
        self.transcript.lock().unwrap().push(ServerMessage { message: message.clone(), answers });
    }
}

impl Reply {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().expect("a visible-ASCII header"))
    }

    /// The media type, without parameters.
    pub fn content_type(&self) -> String {
        self.header("content-type").unwrap_or_default().split(';').next().unwrap_or_default().trim().to_owned()
    }

    /// The whole body.
    pub async fn bytes(self) -> Vec<u8> {
        let body = tokio::time::timeout(TIMEOUT, self.body.collect()).await.expect("the body did not end in time");
        body.expect("reading the body").to_bytes().to_vec()
    }

    /// A JSON body (recorded in the transcript when it is a JSON-RPC message).
    pub async fn json(self) -> Value {
        let client = self.client.clone();
        let bytes = self.bytes().await;
        let value: Value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
        client.record(&value);
        value
    }

    /// The SSE body.
    pub fn events(self) -> Events {
        assert_eq!(self.content_type(), "text/event-stream");
        Events { body: self.body, buffer: Vec::new(), client: self.client }
    }

    /// Every JSON-RPC message of the answer, JSON or SSE, until the body ends.
    pub async fn messages(self) -> Vec<Value> {
        match self.content_type().as_str() {
            "application/json" => vec![self.json().await],
            "text/event-stream" => {
                let mut events = self.events();
                let mut messages = Vec::new();
                while let Some(event) = events.next().await {
                    if !event.data.is_empty() {
                        messages.push(event.json());
                    }
                }
                messages
            }
            other => panic!("unexpected content type `{other}` (status {})", self.status),
        }
    }
}

impl Events {
    /// The next event (comments and events without data are returned too, `has_data` false),
    /// or `None` when the stream ends. JSON data is recorded in the transcript.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = find_blank_line(&self.buffer) {
                let frame: Vec<u8> = self.buffer.drain(..end.1).collect();
                let event = parse_event(&String::from_utf8_lossy(&frame[..end.0]));
                if event.has_data && !event.data.is_empty() {
                    self.client.record(&event.json());
                }
                if event.id.is_none() && !event.has_data && event.retry.is_none() {
                    continue; // a comment (keep-alive)
                }
                return Some(event);
            }
            let frame = tokio::time::timeout(TIMEOUT, self.body.frame()).await.expect("no event within the timeout");
            match frame {
                None => return None,
                Some(Err(err)) => panic!("reading the SSE stream failed: {err}"),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
            }
        }
    }

    /// The next event that carries a message.
    pub async fn next_message(&mut self) -> Option<Value> {
        loop {
            let event = self.next().await?;
            if !event.data.is_empty() {
                return Some(event.json());
            }
        }
    }
}

/// `(end of the frame, end of the separator)`.
/// An HTTP/1.1 connection over plain TCP.
async fn plain(stream: tokio::net::TcpStream) -> hyper::client::conn::http1::SendRequest<Full<Bytes>> {
    let (sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("HTTP handshake");
    tokio::spawn(connection);
    sender
}

fn find_blank_line(buffer: &[u8]) -> Option<(usize, usize)> {
    buffer.windows(2).position(|w| w == b"\n\n").map(|i| (i, i + 2))
}

fn parse_event(frame: &str) -> Event {
    let mut event = Event::default();
    let mut data: Vec<&str> = Vec::new();
    for line in frame.lines() {
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => event.id = Some(value.to_owned()),
            "data" => {
                event.has_data = true;
                data.push(value);
            }
            "retry" => event.retry = value.parse().ok(),
            _ => {}
        }
    }
    event.data = data.join("\n");
    event
}

/// The address an HTTP server process logs when it starts serving (`... http://127.0.0.1:PORT/mcp`),
/// read from its stderr; the lines after it stay to be read.
pub async fn logged_address(
    stderr: tokio::process::ChildStderr,
) -> (SocketAddr, tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStderr>>) {
    use tokio::io::AsyncBufReadExt as _;
    let mut log = tokio::io::BufReader::new(stderr).lines();
    let address = tokio::time::timeout(TIMEOUT, async {
        while let Some(line) = log.next_line().await.expect("read the server's log") {
            if let Some(url) = line.split("http://").nth(1) {
                let authority = url.split('/').next().unwrap_or(url);
                return authority.parse::<SocketAddr>().expect("a socket address");
            }
        }
        panic!("the server ended before serving");
    })
    .await
    .expect("the server names its address");
    (address, log)
}

/// Starts the server `command` runs, its stderr piped: the child (killed when dropped), the
/// address it logged, and the rest of its log, collected until it ends.
pub async fn start_logged(
    mut command: tokio::process::Command,
) -> (tokio::process::Child, SocketAddr, tokio::task::JoinHandle<Vec<String>>) {
    let mut child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let (address, log) = logged_address(child.stderr.take().unwrap()).await;
    (child, address, collect_lines(log))
}

/// The rest of a server's log, collected until it ends.
fn collect_lines(
    mut log: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStderr>>,
) -> tokio::task::JoinHandle<Vec<String>> {
    tokio::spawn(async move {
        let mut lines = Vec::new();
        while let Ok(Some(line)) = log.next_line().await {
            lines.push(line);
        }
        lines
    })
}

/// A bare HTTP/1.1 service of a test (an identity provider, a hostile server): binds a port of
/// 127.0.0.1 and answers each request with `answer(state, request)` until the returned task is
/// aborted.
pub async fn serve_http1<S, F, Fut>(
    state: impl FnOnce(SocketAddr) -> Arc<S>,
    answer: F,
) -> (SocketAddr, Arc<S>, tokio::task::JoinHandle<()>)
where
    S: Send + Sync + 'static,
    F: Fn(Arc<S>, Request<Incoming>) -> Fut + Copy + Send + Sync + 'static,
    Fut: Future<Output = Result<hyper::Response<Full<Bytes>>, std::convert::Infallible>> + Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let state = state(address);
    let served = Arc::clone(&state);
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let state = Arc::clone(&served);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| answer(Arc::clone(&state), request));
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    (address, state, task)
}

/// A JSON answer of a test's HTTP service ([`serve_http1`]).
pub fn json_answer(status: StatusCode, body: Value) -> hyper::Response<Full<Bytes>> {
    hyper::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}
