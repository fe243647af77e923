//! stdio: newline-delimited JSON-RPC on stdin/stdout.
//!
//! One task serves the connection: it reads a burst of input, dispatches every message in it,
//! and writes the answers, so a call answered at once costs a read and a write and no thread
//! hand-off (see `streams` for how stdin and stdout become pollable). Handlers that wait
//! continue on tasks of their own and queue what they send; the task writes that too, in as
//! few writes as the client allows.

mod lines;
mod outbox;
mod streams;

use crate::engine::outgoing::Outgoing;
use crate::engine::{Connection, Received};
use crate::error::Result;
use crate::jsonrpc::{self, ErrorObject, code};
use crate::server::ServerCore;
use crate::transport::signal::shutdown_signal;
use lines::{Line, Lines};
use outbox::Outbox;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Messages handlers may queue before they wait (backpressure on a slow client).
const OUTBOUND_QUEUE: usize = 1024;

/// Clones of the outbound sink (about two per request still running) past which no new input
/// is read.
const PENDING_LIMIT: usize = 1024;

/// How long the client has to take the last messages once serving ends.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(1);

pub(crate) async fn serve(server: Arc<ServerCore>) -> Result<()> {
    let mut input = Lines::new(streams::stdin()?, server.max_message_size);
    let (sink, queued) = mpsc::channel::<Outgoing>(OUTBOUND_QUEUE);
    let mut outbox = Outbox::new(queued, streams::stdout());
    if std::io::stdin().is_terminal() {
        greet(&server);
    }
    let too_large =
        format!("Invalid Request: message larger than the {}-byte limit; it was skipped", server.max_message_size);
    let connection = Connection::new(server, sink.clone());
    // Backpressure: no new input while the client is not reading what it was sent, or while
    // too many requests are running, so a client that writes without reading cannot make
    // results pile up in memory; its pipe fills and its writes block until it reads again.
    let busy = |outbox: &Outbox| !outbox.has_room() || sink.strong_count() > PENDING_LIMIT;
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);

    'serve: loop {
        while !busy(&outbox) {
            let received = match input.next_line() {
                Some(Line::Message(bytes)) => connection.receive_now(bytes, &sink),
                Some(Line::TooLarge) => Received::Answer(jsonrpc::encode_error(
                    None,
                    &ErrorObject::new(code::INVALID_REQUEST, too_large.as_str()),
                )),
                None => break,
            };
            match received {
                Received::Answer(bytes) => outbox.push(bytes),
                Received::Nothing => {}
                Received::Exit => break 'serve,
            }
        }
        if input.is_finished() {
            break; // stdin closed
        }
        if outbox.write_ready().is_err() {
            break; // stdout is gone
        }
        let reads = input.wants_input() && !busy(&outbox);
        tokio::select! {
            biased;
            () = &mut shutdown => {
                tracing::info!("shutdown signal received");
                break;
            }
            stepped = outbox.step() => if stepped.is_err() {
                break; // stdout is gone
            },
            read = input.fill(), if reads => if let Err(err) = read {
                tracing::error!("reading stdin failed: {err}");
                break;
            },
            // Re-checks `busy` as requests finish. (An `async` block, so no timer is made, nor
            // the clock read, on the turns that do not use it.)
            () = async { tokio::time::sleep(Duration::from_millis(1)).await }, if !reads => {}
        }
    }

    // Requests still running get the grace period to answer, and their answers go out.
    let drained = connection.drain();
    tokio::pin!(drained);
    loop {
        tokio::select! {
            biased;
            stepped = outbox.step() => if stepped.is_err() {
                return Ok(());
            },
            () = &mut drained => break,
        }
    }
    outbox.flush(FLUSH_TIMEOUT).await;
    Ok(())
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
