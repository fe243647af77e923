//! Hostile clients over Streamable HTTP (issue 15), on real sockets: headers parsed strictly
//! (ambiguous or unacceptable forms refused), slow clients cut off, open connections capped,
//! and the session table shared fairly. Raw requests go through a plain `TcpStream`, so the
//! test controls every byte (two `Host` headers, a body sent a byte at a time).

use mcp_runtime::http::{HttpConfig, McpHttpService};
use mcp_tests::HttpClient;
use mcp_tests::http::start_logged;
use mcp_tests::log::CapturedLog;
use mcp_tests::robust::server;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

/// A server on a free port, stopped when dropped.
struct Running {
    address: SocketAddr,
    service: McpHttpService,
    _stop: oneshot::Sender<()>,
}

async fn start(config: HttpConfig) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = server().shutdown_grace(Duration::from_millis(50)).into_http_service(config).unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(service.clone().serve(listener, async {
        let _ = stopped.await;
    }));
    Running { address, service, _stop: stop }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}"#;

/// Sends `head` (the request line and headers, without the blank line) and `body` on a new
/// connection; returns the status code of the answer.
async fn raw_status(address: SocketAddr, head: &str, body: &str) -> u16 {
    let stream = TcpStream::connect(address).await.unwrap();
    status_of(&raw(stream, head, body).await)
}

/// Sends `head` and `body` on `stream`; returns the whole answer.
async fn raw(mut stream: TcpStream, head: &str, body: &str) -> String {
    let request = format!("{head}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
    stream.write_all(request.as_bytes()).await.unwrap();
    read_to_end(&mut stream).await
}

/// A connection to `address` from the loopback address `from` (all of 127.0.0.0/8 is local on
/// Linux), so one test can be several clients.
async fn connect_from(from: [u8; 4], address: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((from, 0))).unwrap();
    socket.connect(address).await.unwrap()
}

const POST_HEAD: &str = "POST /mcp HTTP/1.1\r\nhost: localhost\r\naccept: application/json, text/event-stream\r\ncontent-type: application/json";

/// `initialize` from `from`; the status and the session id.
async fn initialize_from(from: [u8; 4], address: SocketAddr) -> (u16, Option<String>) {
    let answer = raw(connect_from(from, address).await, POST_HEAD, INITIALIZE).await;
    let session = answer
        .lines()
        .find_map(|line| line.to_ascii_lowercase().strip_prefix("mcp-session-id:").map(|id| id.trim().to_owned()));
    (status_of(&answer), session)
}

/// POSTs `body` on session `session`; the status.
async fn post_on(address: SocketAddr, session: &str, body: &str) -> u16 {
    let head = format!("{POST_HEAD}\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25");
    raw_status(address, &head, body).await
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

async fn read_to_end(stream: &mut TcpStream) -> String {
    read_to_end_within(stream, Duration::from_secs(5)).await
}

async fn read_to_end_within(stream: &mut TcpStream, limit: Duration) -> String {
    let mut answer = Vec::new();
    tokio::time::timeout(limit, stream.read_to_end(&mut answer)).await.expect("the server answers and closes").unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

fn status_of(answer: &str) -> u16 {
    answer.split(' ').nth(1).and_then(|code| code.parse().ok()).unwrap_or_else(|| panic!("no status in {answer:?}"))
}

/// A POST of `initialize` with the usual headers, then `extra` header lines.
async fn post_initialize(address: SocketAddr, host: &str, extra: &[&str]) -> u16 {
    let mut head = format!("POST /mcp HTTP/1.1\r\nhost: {host}");
    if !extra.iter().any(|line| line.to_ascii_lowercase().starts_with("accept:")) {
        head.push_str("\r\naccept: application/json, text/event-stream");
    }
    if !extra.iter().any(|line| line.to_ascii_lowercase().starts_with("content-type:")) {
        head.push_str("\r\ncontent-type: application/json");
    }
    for line in extra {
        head.push_str("\r\n");
        head.push_str(line);
    }
    raw_status(address, &head, INITIALIZE).await
}

#[tokio::test]
async fn hosts_that_only_start_like_loopback_are_refused() {
    let running = start(HttpConfig::default()).await;
    let port = running.address.port();
    assert_eq!(post_initialize(running.address, &format!("[::1]:{port}"), &[]).await, 200);
    assert_eq!(post_initialize(running.address, "localhost", &[]).await, 200);
    for host in ["[::1].evil.com", "[::1]evil", "[::1]:80.evil.com", "localhost@evil.com", "localhost:", "[localhost]"]
    {
        assert_eq!(post_initialize(running.address, host, &[]).await, 403, "Host: {host}");
    }
}

#[tokio::test]
async fn two_hosts_are_a_bad_request_and_two_origins_are_refused() {
    let running = start(HttpConfig::default()).await;
    let address = running.address;
    assert_eq!(post_initialize(address, "localhost", &["host: localhost"]).await, 400);
    assert_eq!(post_initialize(address, "localhost", &["host: evil.example.com"]).await, 400);
    assert_eq!(post_initialize(address, "localhost", &["origin: http://localhost"]).await, 200);
    let two = ["origin: http://localhost", "origin: http://evil.example.com"];
    assert_eq!(post_initialize(address, "localhost", &two).await, 403);
    let same_twice = ["origin: http://localhost", "origin: http://localhost"];
    assert_eq!(post_initialize(address, "localhost", &same_twice).await, 403);
}

#[tokio::test]
async fn a_post_must_accept_json_or_sse_and_q_0_refuses() {
    let running = start(HttpConfig::default()).await;
    let address = running.address;
    // No Accept at all: 406, as the reference servers answer.
    let head = "POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json";
    assert_eq!(raw_status(address, head, INITIALIZE).await, 406);
    for refused in [
        "accept: application/json;q=0",
        "accept: application/json;q=0, text/event-stream;q=0",
        "accept: */*, application/json;q=0.0, text/event-stream;q=0",
        "accept: text/html",
    ] {
        assert_eq!(post_initialize(address, "localhost", &[refused]).await, 406, "{refused}");
    }
    for served in
        ["accept: application/json", "accept: text/event-stream", "accept: */*;q=0.5", "accept: application/json;q=0.1"]
    {
        assert_eq!(post_initialize(address, "localhost", &[served]).await, 200, "{served}");
    }
}

#[tokio::test]
async fn json_q_0_gets_sse_not_json() {
    let running = start(HttpConfig::default()).await;
    let client = HttpClient::new(running.address);
    let initialize: serde_json::Value = serde_json::from_str(INITIALIZE).unwrap();
    let reply = client.post_with(&initialize, &[("accept", "application/json;q=0, text/event-stream")]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_type(), "text/event-stream");
}

#[tokio::test]
async fn bodies_in_another_charset_are_unsupported_not_read_as_utf8() {
    let running = start(HttpConfig::default()).await;
    let address = running.address;
    for refused in [
        "content-type: application/json; charset=utf-16",
        "content-type: application/json;charset=\"ISO-8859-1\"",
        "content-type: text/plain",
    ] {
        assert_eq!(post_initialize(address, "localhost", &[refused]).await, 415, "{refused}");
    }
    let two = ["content-type: application/json", "content-type: application/json; charset=utf-16"];
    assert_eq!(post_initialize(address, "localhost", &two).await, 400);
    for served in ["content-type: application/json; charset=UTF-8", "content-type: Application/JSON"] {
        assert_eq!(post_initialize(address, "localhost", &[served]).await, 200, "{served}");
    }
}

#[tokio::test]
async fn a_flood_of_initialize_from_one_address_fills_only_its_share() {
    let config = HttpConfig::default().max_sessions(6).max_sessions_per_client(5);
    let running = start(config).await;
    let flooder = [127, 0, 0, 1];
    for i in 0..5 {
        assert_eq!(initialize_from(flooder, running.address).await.0, 200, "initialize {i}");
    }
    for _ in 0..20 {
        assert_eq!(initialize_from(flooder, running.address).await.0, 429);
    }
    assert_eq!(running.service.session_count(), 5);
    let (status, session) = initialize_from([127, 0, 0, 2], running.address).await;
    assert_eq!(status, 200, "another client still gets a session");
    assert_eq!(post_on(running.address, &session.unwrap(), INITIALIZED).await, 202);
    // The table is now full for everyone: 503, from the counters.
    assert_eq!(initialize_from([127, 0, 0, 3], running.address).await.0, 503);
}

#[tokio::test]
async fn a_session_without_its_handshake_expires_within_the_handshake_timeout() {
    let config = HttpConfig::default().handshake_timeout(Duration::from_millis(300));
    let running = start(config).await;
    let (status, abandoned) = initialize_from([127, 0, 0, 1], running.address).await;
    assert_eq!(status, 200);
    let (_, completed) = initialize_from([127, 0, 0, 1], running.address).await;
    let completed = completed.unwrap();
    assert_eq!(post_on(running.address, &completed, INITIALIZED).await, 202);
    assert_eq!(running.service.session_count(), 2);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while running.service.session_count() > 1 {
        assert!(tokio::time::Instant::now() < deadline, "the abandoned session is still open");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(post_on(running.address, &abandoned.unwrap(), INITIALIZED).await, 404);
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    assert_eq!(post_on(running.address, &completed, ping).await, 200, "the completed session lives on");
}

/// A body sent a byte at a time is cut off after the body timeout (408, or the connection
/// closed), while other clients are served meanwhile.
#[tokio::test]
async fn a_body_trickled_a_byte_at_a_time_is_cut_off() {
    let running = start(HttpConfig::default().body_timeout(Duration::from_millis(400))).await;
    let stream = TcpStream::connect(running.address).await.unwrap();
    let (mut reading, mut writing) = stream.into_split();
    let head = format!("{POST_HEAD}\r\ncontent-length: 1000\r\n\r\n");
    writing.write_all(head.as_bytes()).await.unwrap();
    let trickle = tokio::spawn(async move {
        for _ in 0..1000 {
            if writing.write_all(b" ").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let started = tokio::time::Instant::now();
    let mut client = HttpClient::new(running.address);
    client.initialize().await; // served while the trickle goes on
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(3), reading.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the trickling connection is still open after 3 s");
    assert!(started.elapsed() >= Duration::from_millis(350), "cut off before the timeout");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 408"), "{answer}");
    trickle.abort();
}

/// A head sent a byte at a time, and a keep-alive connection left idle, are closed after
/// the header timeout (timed from the connection's opening, then from its last answer); a
/// call that takes longer than the timeout is answered on its connection all the same.
#[tokio::test]
async fn connections_without_a_request_close_after_the_header_timeout_and_slow_calls_do_not() {
    let timeout = Duration::from_millis(400);
    let running = start(HttpConfig::default().header_timeout(timeout)).await;
    let (status, session) = initialize_from([127, 0, 0, 1], running.address).await;
    assert_eq!(status, 200);
    let session = session.unwrap();

    // A head trickled a byte at a time.
    let stream = TcpStream::connect(running.address).await.unwrap();
    let (mut reading, mut writing) = stream.into_split();
    let trickle = tokio::spawn(async move {
        for byte in POST_HEAD.bytes().cycle() {
            if writing.write_all(&[byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let started = tokio::time::Instant::now();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(3), reading.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the trickling connection is still open after 3 s");
    assert!(started.elapsed() >= timeout - Duration::from_millis(50), "closed before the timeout");
    trickle.abort();

    // A keep-alive connection: served, then closed once idle for the timeout.
    let mut stream = TcpStream::connect(running.address).await.unwrap();
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let head = format!("{POST_HEAD}\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25");
    let request = format!("{head}\r\ncontent-length: {}\r\n\r\n{ping}", ping.len());
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut buffer = [0u8; 4096];
    let read = stream.read(&mut buffer).await.unwrap();
    assert!(String::from_utf8_lossy(&buffer[..read]).starts_with("HTTP/1.1 200"));
    let answered = tokio::time::Instant::now();
    let closed = tokio::time::timeout(Duration::from_secs(3), stream.read(&mut buffer)).await;
    assert_eq!(closed.expect("the idle connection is still open after 3 s").unwrap(), 0, "closed, with nothing sent");
    assert!(answered.elapsed() >= timeout - Duration::from_millis(50), "closed before the timeout");

    // A call three times as long as the timeout is answered.
    let nap = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nap","arguments":{"millis":1200}}}"#;
    assert_eq!(raw_status(running.address, &format!("{head}\r\naccept: application/json"), nap).await, 200);

    // The session's GET stream, silent for three times the timeout, stays open.
    let mut stream = TcpStream::connect(running.address).await.unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nhost: localhost\r\naccept: text/event-stream\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\n\r\n"
    );
    stream.write_all(get.as_bytes()).await.unwrap();
    let read = stream.read(&mut buffer).await.unwrap();
    assert!(String::from_utf8_lossy(&buffer[..read]).starts_with("HTTP/1.1 200"));
    let quiet = tokio::time::timeout(timeout * 3, async {
        loop {
            if stream.read(&mut buffer).await.unwrap() == 0 {
                return;
            }
        }
    });
    assert!(quiet.await.is_err(), "the open GET stream was closed");
}

/// Two `Mcp-Session-Id` or two `MCP-Protocol-Version` headers are a bad request: which one
/// counts would be a guess, and two layers could each take another.
#[tokio::test]
async fn two_session_ids_or_two_protocol_versions_are_a_bad_request() {
    let running = start(HttpConfig::default()).await;
    let (_, session) = initialize_from([127, 0, 0, 1], running.address).await;
    let session = session.unwrap();
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let base = format!("{POST_HEAD}\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25");
    assert_eq!(raw_status(running.address, &base, ping).await, 200);
    for extra in [
        format!("mcp-session-id: {session}"),
        "mcp-session-id: another".into(),
        "mcp-protocol-version: 2025-06-18".into(),
    ] {
        let answer = raw(TcpStream::connect(running.address).await.unwrap(), &format!("{base}\r\n{extra}"), ping).await;
        assert_eq!(status_of(&answer), 400, "{extra}: {answer}");
        assert!(answer.contains("more than one"), "{answer}");
    }
}

/// With a cap of one connection, a second waits (it is not refused) until the first closes,
/// and the cap's warning is logged once however often the cap is met. (The runtime of
/// `#[tokio::test]` is one thread, so the subscriber set here sees the server's tasks.) The
/// first, silent, would be shed to make room once silent for a tick of the connections'
/// clock (a second here): it closes before.
#[tokio::test]
async fn connections_past_the_cap_wait_and_the_log_says_so_once() {
    let (captured, _capturing) = CapturedLog::start();
    let running = start(HttpConfig::default().max_connections(1).max_connections_per_client(4)).await;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let request = format!("{POST_HEAD}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{ping}", ping.len());

    let idle = TcpStream::connect(running.address).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await; // accepted: it holds the one place
    let mut waiting = Vec::new();
    for _ in 0..3 {
        let mut stream = TcpStream::connect(running.address).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        waiting.push(stream);
    }
    let mut first = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(300), waiting[0].read(&mut first)).await;
    assert!(early.is_err(), "a connection past the cap was served at once");

    drop(idle);
    for mut stream in waiting {
        let answer = read_to_end(&mut stream).await;
        assert_eq!(status_of(&answer), 400, "served once a place is free: {answer}"); // no session id
    }
    assert_eq!(captured.lines_with("connections open").len(), 1, "one warning for the cap, met four times");
}

/// Out of file descriptors (the limit lowered to 32 under a running server, whose connection cap
/// was set by the higher limit it started with; then 64 stalled bodies), the accept loop logs its
/// failure once per interval, not every 50 ms, and sheds the stalled bodies to free descriptors:
/// a fresh client's `initialize` is answered while they are still held.
#[tokio::test]
async fn out_of_file_descriptors_the_accept_loop_warns_once_and_sheds_stalled_bodies() {
    let (mut child, address, lines) =
        start_logged(tokio::process::Command::new(env!("CARGO_BIN_EXE_robust-http-server"))).await;
    let pid = child.id().unwrap().to_string();
    let lowered = std::process::Command::new("prlimit").args(["--pid", &pid, "--nofile=32"]).status().unwrap();
    assert!(lowered.success(), "prlimit --nofile=32");

    let mut stalled = Vec::new();
    for _ in 0..64 {
        stalled.push(stalled_body([127, 0, 0, 1], address).await); // the backlog takes those not accepted
    }
    let (status, _) = initialize_within([127, 0, 0, 2], address, Duration::from_secs(15)).await;
    assert_eq!(status, 200, "a fresh client is answered while the stalled bodies are held");
    let shed = count_closed_by_server(stalled).await;
    child.start_kill().unwrap();
    let _ = child.wait().await;
    let lines = lines.await.unwrap();
    assert!(shed > 0, "no stalled body was shed: {lines:#?}");
    let failures = lines.iter().filter(|line| line.contains("accepting a connection failed")).count();
    assert_eq!(failures, 1, "{lines:#?}");
}

/// A POST from `from` whose head promises a body of 1000 bytes, of which a few come: a stalled
/// body.
async fn stalled_body(from: [u8; 4], address: SocketAddr) -> TcpStream {
    let mut stream = connect_from(from, address).await;
    let request = format!("{POST_HEAD}\r\ncontent-length: 1000\r\n\r\n{{\"jsonrpc\":");
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// `initialize` from `from`, answered within `limit`: the status and the session id.
async fn initialize_within(from: [u8; 4], address: SocketAddr, limit: Duration) -> (u16, Option<String>) {
    let mut stream = connect_from(from, address).await;
    let request =
        format!("{POST_HEAD}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{INITIALIZE}", INITIALIZE.len());
    stream.write_all(request.as_bytes()).await.unwrap();
    let answer = read_to_end_within(&mut stream, limit).await;
    let session = answer
        .lines()
        .find_map(|line| line.to_ascii_lowercase().strip_prefix("mcp-session-id:").map(|id| id.trim().to_owned()));
    (status_of(&answer), session)
}

/// How many of `streams` the server has closed (end of stream, or reset): those it closed
/// earlier show it at once; each of the others is given 2 s, all at the same time.
async fn count_closed_by_server(streams: Vec<TcpStream>) -> usize {
    let mut checks = tokio::task::JoinSet::new();
    for mut stream in streams {
        checks.spawn(async move { closed_by_server(&mut stream, Duration::from_secs(2)).await });
    }
    checks.join_all().await.into_iter().filter(|closed| *closed).count()
}

/// Whether the server closes `stream` within `limit` (after sending what it sends first, if
/// anything).
async fn closed_by_server(stream: &mut TcpStream, limit: Duration) -> bool {
    let mut buffer = [0u8; 4096];
    let until = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(until, stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
            Err(_) => return false,
        }
    }
}

/// A session's `GET` stream from `from`, its head read.
async fn get_stream(from: [u8; 4], address: SocketAddr, session: &str) -> TcpStream {
    let mut stream = connect_from(from, address).await;
    let get = format!(
        "GET /mcp HTTP/1.1\r\nhost: localhost\r\naccept: text/event-stream\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\n\r\n"
    );
    stream.write_all(get.as_bytes()).await.unwrap();
    let mut head = [0u8; 1024];
    let read = stream.read(&mut head).await.unwrap();
    assert!(String::from_utf8_lossy(&head[..read]).starts_with("HTTP/1.1 200"));
    stream
}

/// A session from `from`, its handshake complete.
async fn session_from(from: [u8; 4], address: SocketAddr) -> String {
    let (status, session) = initialize_from(from, address).await;
    assert_eq!(status, 200);
    let session = session.unwrap();
    assert_eq!(post_on(address, &session, INITIALIZED).await, 202);
    session
}

/// Issue 31, row 6: one client opens as many streams as the server has places (below the cap
/// it may). Another client is still served, at once: the first client's newest stream makes
/// room, since it holds more than its share (a tenth of the cap); its other streams stay open.
/// At the cap, the first client's next connection is answered 503 with `Retry-After`.
#[tokio::test]
async fn one_client_past_its_share_of_connections_makes_room_for_another() {
    let cap = 30;
    let running = start(HttpConfig::default().max_connections(cap)).await;
    let mut streams = Vec::new();
    for _ in 0..cap {
        let session = session_from([127, 0, 0, 1], running.address).await;
        streams.push(get_stream([127, 0, 0, 1], running.address, &session).await);
    }
    let (status, session) = initialize_within([127, 0, 0, 2], running.address, Duration::from_secs(15)).await;
    assert_eq!(status, 200, "another client is served");
    assert_eq!(post_on(running.address, &session.unwrap(), INITIALIZED).await, 202);
    let newest = streams.pop().unwrap();
    assert!(closed_by_server(&mut { newest }, Duration::from_secs(5)).await, "the newest stream made room");

    let other = session_from([127, 0, 0, 2], running.address).await;
    let _other_stream = get_stream([127, 0, 0, 2], running.address, &other).await; // the last place
    let mut refused = connect_from([127, 0, 0, 1], running.address).await;
    // Refused before its request is read: the test reads first.
    let answer = read_to_end(&mut refused).await.to_ascii_lowercase();
    assert!(answer.starts_with("http/1.1 503"), "{answer}");
    assert!(answer.contains("retry-after: 1"), "{answer}");
    for mut stream in streams {
        assert!(!closed_by_server(&mut stream, Duration::from_millis(100)).await, "a stream within the share");
    }
}

/// At the cap, with a new client waiting, the connections whose clients sent least are shed:
/// stalled bodies (one per address, each within its share), oldest first, until the new
/// client's `initialize` is answered; a session's open `GET` stream is never shed.
#[tokio::test]
async fn at_the_cap_stalled_bodies_are_shed_and_a_fresh_client_is_answered() {
    let cap = 16;
    // The connections' clock ticks every tenth of the header timeout: a body is stalled once
    // nothing of it came for a whole tick. Bodies still get the default 30 s.
    let config = HttpConfig::default().max_connections(cap).header_timeout(Duration::from_secs(1));
    let running = start(config).await;
    let session = session_from([127, 0, 0, 3], running.address).await;
    let mut live = get_stream([127, 0, 0, 3], running.address, &session).await;

    let mut stalled = Vec::new();
    for i in 1..=2 * cap {
        stalled.push(stalled_body([127, 0, 1, i as u8], running.address).await);
    }
    let (status, _) = initialize_within([127, 0, 0, 2], running.address, Duration::from_secs(15)).await;
    assert_eq!(status, 200, "the fresh client is answered");
    // The stream, the stalled bodies and the fresh client could not all be open at once.
    let must_have_gone = 1 + stalled.len() + 1 - cap;
    let shed = count_closed_by_server(stalled).await;
    assert!(shed >= must_have_gone, "{shed} stalled bodies shed, of at least {must_have_gone}");
    assert!(!closed_by_server(&mut live, Duration::from_millis(200)).await, "the live stream was shed");
}

/// Issue 31's replay under a low file-descriptor limit (`ulimit -n 256`): the connection cap
/// follows the limit (the log says so), and with 300 stalled bodies from one client a fresh
/// client's `initialize` is answered: the stalled bodies beyond the cap were refused (their
/// client is past its share) or shed.
#[tokio::test]
async fn under_a_low_descriptor_limit_the_cap_follows_it_and_stalled_bodies_are_shed() {
    let mut command = tokio::process::Command::new("sh");
    command
        .args(["-c", "ulimit -n 256 && exec \"$0\"", env!("CARGO_BIN_EXE_robust-http-server")])
        .env("RUST_LOG", "info");
    let (mut child, address, lines) = start_logged(command).await;
    let mut stalled = Vec::new();
    for _ in 0..300 {
        stalled.push(stalled_body([127, 0, 0, 1], address).await);
    }
    let started = tokio::time::Instant::now();
    let (status, _) = initialize_within([127, 0, 0, 2], address, Duration::from_secs(15)).await;
    let waited = started.elapsed();
    assert_eq!(status, 200, "the fresh client is answered");
    let shed = count_closed_by_server(stalled).await;
    child.start_kill().unwrap();
    let _ = child.wait().await;
    let lines = lines.await.unwrap();
    eprintln!("initialize answered after {waited:?}; {shed} of 300 stalled bodies refused or shed");
    let cap = 256 - 256 / 8;
    assert!(lines.iter().any(|line| line.contains(&format!("serving at most {cap} connections"))), "{lines:#?}");
    assert!(shed >= 300 + 1 - cap, "{shed} stalled bodies refused or shed, of at least {}", 300 + 1 - cap);
}
