//! stdio: newline-delimited JSON-RPC on stdin/stdout.
//!
//! Reading and writing happen on two plain OS threads rather than tokio's blocking pool:
//! a blocking read of stdin cannot be cancelled, and a runtime waits for its blocking pool on
//! shutdown, so a server would hang on SIGTERM until the client wrote one more line.
//! The writer drains everything queued before each flush, so bursts cost one write.

use crate::engine::outgoing::Outgoing;
use crate::engine::{Connection, Flow};
use crate::error::Result;
use crate::jsonrpc::{ErrorObject, code};
use crate::server::ServerCore;
use crate::transport::signal::shutdown_signal;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Messages queued for the client before a sender waits (backpressure on a slow reader).
const OUTBOUND_QUEUE: usize = 1024;

/// Clones of the outbound sink (about two per request whose answer is not queued yet) past
/// which no new input is read.
const PENDING_LIMIT: usize = 1024;

/// How long the writer may take to flush what is queued once serving ends.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(1);

enum Frame {
    Message(Vec<u8>),
    TooLarge,
}

pub(crate) async fn serve(server: Arc<ServerCore>) -> Result<()> {
    let (out_tx, out_rx) = mpsc::channel::<Outgoing>(OUTBOUND_QUEUE);
    let written = spawn_writer(out_rx);
    let (in_tx, mut in_rx) = mpsc::channel::<Frame>(64);
    spawn_reader(server.max_message_size, in_tx)?;
    if std::io::stdin().is_terminal() {
        greet(&server);
    }

    let limit = server.max_message_size;
    let connection = Connection::new(server, out_tx.clone());
    let sink = &out_tx;
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    'serve: loop {
        // Backpressure: take no new input while the outbound queue is full (the client is not
        // reading) or too many requests have yet to queue their answer, so a client that writes
        // without reading cannot make results pile up in memory; the pipe then fills and its
        // writes block until it reads again. Each such request holds a clone of the sink.
        while out_tx.strong_count() > PENDING_LIMIT {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(1)) => {}
                () = &mut shutdown => {
                    tracing::info!("shutdown signal received");
                    break 'serve;
                }
            }
        }
        tokio::select! {
            room = out_tx.reserve() => match room {
                Ok(permit) => drop(permit),
                Err(_) => break, // the writer stopped: stdout is gone
            },
            () = &mut shutdown => {
                tracing::info!("shutdown signal received");
                break;
            }
        }
        tokio::select! {
            frame = in_rx.recv() => match frame {
                Some(Frame::Message(bytes)) => {
                    if connection.receive(&bytes, sink).await == Flow::Exit {
                        break;
                    }
                }
                Some(Frame::TooLarge) => {
                    let message = format!("Invalid Request: message larger than the {limit}-byte limit; it was skipped");
                    connection.reject(ErrorObject::new(code::INVALID_REQUEST, message), sink).await;
                }
                None => break, // stdin closed
            },
            () = &mut shutdown => {
                tracing::info!("shutdown signal received");
                break;
            }
        }
    }
    connection.drain().await;
    // An empty message tells the writer to flush and stop: user code may still hold a
    // `Context`, so the queue itself may never close.
    let _ = out_tx.send(Outgoing { bytes: Vec::new(), is_response: false }).await;
    let _ = tokio::time::timeout(FLUSH_TIMEOUT, written).await;
    Ok(())
}

fn spawn_writer(mut outbound: mpsc::Receiver<Outgoing>) -> oneshot::Receiver<()> {
    let (done_tx, done_rx) = oneshot::channel();
    std::thread::Builder::new()
        .name("mcp-stdout".into())
        .spawn(move || {
            let mut out = std::io::BufWriter::with_capacity(64 * 1024, raw_stdout());
            'serve: while let Some(message) = outbound.blocking_recv() {
                let mut next = Some(message);
                while let Some(Outgoing { mut bytes, .. }) = next.take() {
                    if bytes.is_empty() {
                        break 'serve;
                    }
                    // One write per message: a message larger than the buffer goes out in a
                    // single syscall, newline included.
                    bytes.push(b'\n');
                    if out.write_all(&bytes).is_err() {
                        break 'serve;
                    }
                    next = outbound.try_recv().ok();
                }
                if out.flush().is_err() {
                    break;
                }
            }
            let _ = out.flush();
            let _ = done_tx.send(());
        })
        .expect("failed to spawn the stdout writer thread");
    done_rx
}

/// stdout without the standard library's line buffering, which rescans every message for
/// newlines; the writer buffers and flushes on its own. Nothing else writes to stdout.
#[cfg(unix)]
fn raw_stdout() -> Box<dyn Write + Send> {
    use std::os::fd::AsFd;
    match std::io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(std::fs::File::from(fd)),
        Err(_) => Box::new(std::io::stdout()),
    }
}

#[cfg(not(unix))]
fn raw_stdout() -> Box<dyn Write + Send> {
    Box::new(std::io::stdout())
}

fn spawn_reader(limit: usize, frames: mpsc::Sender<Frame>) -> Result<()> {
    std::thread::Builder::new().name("mcp-stdin".into()).spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut line = Vec::new();
        let mut oversized = false;
        loop {
            let buffer = match input.fill_buf() {
                Ok(buffer) => buffer,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err) => {
                    tracing::error!("reading stdin failed: {err}");
                    return;
                }
            };
            if buffer.is_empty() {
                if !oversized && !is_blank(&line) {
                    let _ = frames.blocking_send(Frame::Message(line));
                }
                return; // EOF: dropping `frames` tells the server
            }
            let (chunk, consumed, complete) = match buffer.iter().position(|&b| b == b'\n') {
                Some(end) => (&buffer[..end], end + 1, true),
                None => (buffer, buffer.len(), false),
            };
            if !oversized && line.len() + chunk.len() > limit {
                oversized = true;
                line = Vec::new();
            }
            if !oversized {
                line.extend_from_slice(chunk);
            }
            input.consume(consumed);
            if complete {
                let frame = if oversized { Frame::TooLarge } else { Frame::Message(std::mem::take(&mut line)) };
                oversized = false;
                if matches!(&frame, Frame::Message(m) if is_blank(m)) {
                    continue;
                }
                if frames.blocking_send(frame).is_err() {
                    return; // the server stopped listening
                }
            }
        }
    })?;
    Ok(())
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Someone ran the server in a terminal: say what it is and how to talk to it (on stderr).
fn greet(server: &ServerCore) {
    let name = &server.info.name;
    let version = &server.info.version;
    eprintln!(
        "{name} {version} is an MCP server speaking JSON-RPC on stdin/stdout.\n\
         Connect it to an MCP client (Claude Desktop, VS Code, the MCP Inspector), or paste these lines:\n\
         {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"terminal\",\"version\":\"0\"}}}}}}\n\
         {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n\
         {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}}\n\
         Press Ctrl-D (end of input) or Ctrl-C to stop."
    );
}
