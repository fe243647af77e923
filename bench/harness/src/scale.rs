//! Memory at scale (issue 37, item 4): one `bench-ours http` process holding 100,000 idle
//! sessions, a third of them with an open GET stream (each on a connection of its own, as a
//! client listening for the server's messages keeps it), measured by the process's resident
//! memory; and what they cost the sessions that work: the p99 of 16 sessions calling `echo`,
//! before the idle ones are opened and while they are held.

use crate::report::percentile;
use crate::{Exe, HttpServer, PROTOCOL, Result, proc_status_kb};
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Connections one source address opens at most: the ephemeral ports of one address towards
/// one destination (Linux's default range is 28,232 ports).
const STREAMS_PER_SOURCE: usize = 20_000;

/// What the scenario measured.
pub struct Scale {
    /// VmRSS with every session open and `streams` of them listening, in KiB.
    pub rss_kb: f64,
    /// VmRSS projected for a third of the sessions listening, in KiB: the measured figure plus
    /// the GET streams it could not open at their measured cost each (the same as `rss_kb`
    /// when the limit of open files let the harness open them all).
    pub projected_kb: f64,
    /// GET streams held.
    pub streams: usize,
    /// p99 of the 16 working sessions before the idle ones were opened, in µs.
    pub p99_quiet: f64,
    /// The same while they are held.
    pub p99_crowded: f64,
}

/// Descriptors left for everything else: the server keeps up to 1,024 out of its connection
/// cap (`fd_limit.rs`), and a connection past the cap waits, so the working sessions need
/// room beyond that.
const SPARE_FILES: u64 = 2_048;

/// Loads of 16 sessions measured before the idle sessions and beside them; each p99 reported is
/// the median of theirs. One load's p99 is its worst 1%, which one scheduler tick can make
/// (unpinned, note 59): a single load read 325 µs quiet and 600 µs crowded where the rounds of
/// the main HTTP scenario range from 173 to 809.
const LOADS: usize = 5;

/// Opens `sessions` idle sessions on a fresh server, a third of them listening (or as many as
/// the limit of open files allows each process: a GET stream holds a connection, so a
/// descriptor in the server and one here), and measures it.
pub async fn measure(exe: &Exe, sessions: usize, calls: u64) -> Result<Scale> {
    let wanted = sessions / 3;
    let files = raise_open_files(wanted as u64 + SPARE_FILES)?;
    let listening = wanted.min(files.saturating_sub(SPARE_FILES) as usize);
    if listening < wanted {
        eprintln!(
            "scale: {listening} GET streams of {wanted}: open files are limited to {files} a process \
             (raising the hard limit needs CAP_SYS_RESOURCE); the rest are projected at the measured cost"
        );
    }
    let cap = (sessions + 1_000).to_string();
    let server = HttpServer::spawn_with(exe, &[("BENCH_MAX_SESSIONS", cap)]).await?;
    let p99_quiet = median_p99(&server, calls).await?;

    eprintln!("scale: {sessions} sessions");
    let ids = server.open_sessions(sessions).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let without_streams = proc_status_kb(server.pid, "VmRSS")?;
    eprintln!("scale: {listening} GET streams");
    let mut streams = Vec::with_capacity(listening);
    for (i, id) in ids.iter().take(listening).enumerate() {
        let source = Ipv4Addr::new(127, 0, 0, 2 + (i / STREAMS_PER_SOURCE) as u8);
        streams.push(listen(source, server.port, id).await.map_err(|e| format!("GET stream {i}: {e}"))?);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_kb = proc_status_kb(server.pid, "VmRSS")?;
    let per_stream = (rss_kb - without_streams) / listening.max(1) as f64;
    let projected_kb = rss_kb + per_stream * (wanted - listening) as f64;

    eprintln!("scale: 16 sessions calling, beside them");
    let p99_crowded = median_p99(&server, calls).await?;
    // The streams were held through the load: the server must not have ended any.
    let ended = count_ended(&mut streams).await;
    if ended > 0 {
        return Err(format!("{ended} of {listening} GET streams ended while they were held").into());
    }
    Ok(Scale { rss_kb, projected_kb, streams: listening, p99_quiet, p99_crowded })
}

/// The median of [`LOADS`] loads' p99, 16 sessions calling, `calls` calls each load.
async fn median_p99(server: &HttpServer, calls: u64) -> Result<f64> {
    let mut p99s = Vec::with_capacity(LOADS);
    for _ in 0..LOADS {
        p99s.push(percentile(&server.load(16, calls).await?.latencies, 99.0));
    }
    p99s.sort_by(f64::total_cmp);
    Ok(p99s[LOADS / 2])
}

/// A GET stream of session `id`, opened from `source`, once its answer's head says it is one.
async fn listen(source: Ipv4Addr, port: u16, id: &str) -> Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    // Reset when dropped, not closed: closed by this side, the streams would hold their ports
    // in TIME_WAIT for a minute, and the next placement's run of the scenario ran out of
    // ports 10,284 streams in.
    socket.set_zero_linger()?;
    socket.bind(SocketAddr::from((source, 0)))?;
    let mut stream = socket.connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
    let request = format!(
        "GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\naccept: text/event-stream\r\n\
         mcp-session-id: {id}\r\nmcp-protocol-version: {PROTOCOL}\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await?;
    let mut head = Vec::new();
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer)).await??;
        if n == 0 || head.len() > 16 * 1024 {
            return Err("the connection ended before the answer's head".into());
        }
        head.extend_from_slice(&buffer[..n]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    if !head.starts_with("http/1.1 200") || !head.contains("text/event-stream") {
        return Err(format!("not an event stream: {head}").into());
    }
    Ok(stream)
}

/// How many of `streams` the server has closed (read to their end: what they sent is
/// keep-alive comments).
async fn count_ended(streams: &mut [TcpStream]) -> usize {
    let mut ended = 0;
    let mut buffer = [0u8; 4096];
    for stream in streams {
        loop {
            match stream.try_read(&mut buffer) {
                Ok(0) => {
                    ended += 1;
                    break;
                }
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(_) => {
                    ended += 1;
                    break;
                }
            }
        }
    }
    ended
}

/// Raises this process's limit of open files towards `wanted` (its children inherit it): the
/// soft limit up to the hard one, and the hard one too where that is allowed (as root with
/// CAP_SYS_RESOURCE). The limit in force.
fn raise_open_files(wanted: u64) -> Result<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return Err(std::io::Error::last_os_error().into());
        }
        if limit.rlim_cur >= wanted {
            return Ok(limit.rlim_cur);
        }
        let raised = libc::rlimit { rlim_cur: wanted, rlim_max: limit.rlim_max.max(wanted) };
        if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
            return Ok(wanted);
        }
        let soft = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
        if libc::setrlimit(libc::RLIMIT_NOFILE, &soft) != 0 {
            return Err(std::io::Error::last_os_error().into());
        }
    }
    Ok(limit.rlim_max)
}
