//! stdio: newline-delimited JSON-RPC on stdin/stdout.
//!
//! A thread of its own serves the connection, as a plain JSON-RPC loop would: it blocks
//! reading stdin, dispatches every message of a burst and writes the answers, so a call
//! answered at once costs a read and a write and no wake-up beyond the read's. Handlers that
//! wait continue on the runtime's tasks and queue what they send; the outbox's writer thread
//! writes that. Serving ends at end of input, on `exit`, when stdout is gone, or on SIGINT or
//! SIGTERM, which the runtime side waits for; then the requests still running get the grace
//! period and their answers are written. A watchdog thread (`watchdog.rs`) reports a handler
//! that blocks the connection's thread and notices the end of input meanwhile.

mod lines;
mod outbox;
mod streams;
mod watchdog;

use crate::core::ServerCore;
use crate::engine::first_poll::FirstPolls;
use crate::engine::{Connection, Received};
use crate::error::Result;
use crate::jsonrpc::{self, ErrorObject, code};
use crate::message;
use crate::session::outgoing::{Outgoing, Sink};
use crate::transport::signal::shutdown_signal;
use lines::{Line, Lines};
use outbox::Outbox;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Messages handlers may queue before they wait (backpressure on a slow client).
const OUTBOUND_QUEUE: usize = 1024;

/// Clones of the outbound sink (one per request still running, held by its task) past which no
/// new input is read.
const PENDING_LIMIT: usize = 512;

/// How often the connection's thread checks whether requests have finished, when too many run.
const PENDING_POLL: Duration = Duration::from_millis(1);

/// Answers of a burst written at once when the client waits for them on another CPU, rather
/// than after the whole burst: it works on those while the rest are served.
const EARLY_WRITE: usize = 8;

/// How long the client has to take the last messages once serving ends.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(1);

/// Serves `server` over stdin and stdout until stdin ends or a signal comes (boxed here: see
/// [`Serving`](super::Serving)).
#[inline(never)]
pub(crate) fn serve(server: Arc<ServerCore>) -> super::Serving<'static> {
    Box::pin(serve_stdio(server))
}

async fn serve_stdio(server: Arc<ServerCore>) -> Result<()> {
    let input = Lines::new(streams::stdin()?, server.settings.max_message_size);
    let busy_poll = server.settings.stdio_busy_poll;
    let grace = server.settings.shutdown_grace;
    let too_large = format!(
        "Invalid Request: message larger than the {}-byte limit; it was skipped",
        server.settings.max_message_size
    );
    let (sink, queued) = mpsc::channel(OUTBOUND_QUEUE);
    let outbox = Outbox::new(queued, streams::stdout()?);
    if std::io::stdin().is_terminal() {
        greet(&server);
    }
    let first_polls = Arc::new(FirstPolls::default());
    let connection = Arc::new(Connection::serial(server, sink.clone(), Arc::clone(&first_polls)));
    connection.set_transport(None, "pipe");
    let mut input = input;
    answer_initialize(&mut input, &connection, &sink, &outbox);
    // Cancelled when serving ends, by whichever side sees it first.
    let stop = CancellationToken::new();
    let writer = outbox.spawn_writer(stop.clone())?;
    watchdog::spawn(first_polls, stop.clone(), grace)?;
    let (finished, mut reader) = tokio::sync::oneshot::channel();
    let runtime = tokio::runtime::Handle::current();
    std::thread::Builder::new().name("mcp-stdio".into()).spawn({
        let (connection, stop) = (Arc::clone(&connection), stop.clone());
        move || {
            // Handlers that wait are spawned on the runtime, and find it from their first poll.
            let _runtime = runtime.enter();
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let alone = false;
                Reader { input, connection: &connection, sink, outbox, stop: &stop, too_large, busy_poll, alone }
                    .serve();
            }));
            let _ = finished.send(outcome);
            stop.cancel();
        }
    })?;

    let shutdown = shutdown_signal();
    tokio::select! {
        () = shutdown => tracing::info!("shutdown signal received"),
        () = stop.cancelled() => {}
    }
    stop.cancel(); // the connection's thread dispatches nothing more, should it still be reading
    // Requests still running get the grace period to answer, and their answers go out.
    connection.drain().await;
    writer.close(FLUSH_TIMEOUT).await;
    match reader.try_recv() {
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        _ => Ok(()), // finished, or still blocked reading stdin: the process exits around it
    }
}

/// A client writes `initialize` as soon as it has started the server: when it is waiting
/// already, it is answered here, before the connection's thread and its helpers are started,
/// so the first answer waits for no thread to be made and scheduled (on a busy machine, a new
/// thread can wait behind other processes for milliseconds). Nothing here waits: stdin has
/// input, answering `initialize` runs no user code, and stdout's pipe is empty. (A failed read
/// or write is left for the connection's thread to meet and report.)
fn answer_initialize(input: &mut Lines, connection: &Connection, sink: &Sink, outbox: &Outbox) {
    if !streams::stdin_ready() || input.fill().is_err() {
        return;
    }
    while let Some(bytes) = input.next_message_if(message::is_initialize) {
        if let Received::Answer(answer) = connection.receive_now(bytes, sink) {
            outbox.push(answer.bytes);
        }
    }
    let _ = outbox.write();
}

/// The connection's thread.
struct Reader<'a> {
    input: Lines,
    connection: &'a Connection,
    sink: Sink,
    outbox: Outbox,
    stop: &'a CancellationToken,
    /// The error for a line over the size limit.
    too_large: String,
    /// How long to poll stdin after a burst of several messages (`Server::stdio_busy_poll`).
    busy_poll: Duration,
    /// The last poll had the CPU to itself: the client runs on another one, so it can work on
    /// answers while the rest of a burst is served.
    alone: bool,
}

impl Reader<'_> {
    fn serve(mut self) {
        loop {
            let mut burst = 0;
            let mut unwritten = 0;
            while let Some(line) = self.input.next_line() {
                burst += 1;
                let received = match line {
                    Line::Message(bytes) => self.connection.receive_now(bytes, &self.sink),
                    Line::TooLarge => Received::Answer(Outgoing::message(jsonrpc::encode_error(
                        None,
                        &ErrorObject::new(code::INVALID_REQUEST, self.too_large.as_str()),
                    ))),
                };
                match received {
                    Received::Answer(answer) => {
                        self.outbox.push(answer.bytes);
                        unwritten += 1;
                        // One write per burst, unless a client on another CPU waits for it:
                        // then it gets the first answers while the rest are served.
                        if unwritten == EARLY_WRITE && self.alone && self.input.client_waits() {
                            if self.outbox.write().is_err() {
                                return;
                            }
                            unwritten = 0;
                        }
                    }
                    Received::Nothing => {}
                    Received::Exit => {
                        let _ = self.outbox.write();
                        return;
                    }
                }
            }
            if self.outbox.write().is_err() || self.input.is_finished() {
                return; // stdout is gone, or stdin closed
            }
            // Backpressure: a client that writes without reading cannot make answers pile up in
            // memory. Writes block while it does not read, and no new input is read while too
            // many requests run; its pipe fills and its writes block until it reads again.
            while self.sink.strong_count() > PENDING_LIMIT && !self.stop.is_cancelled() {
                std::thread::sleep(PENDING_POLL);
            }
            // A client that sent several messages at once keeps its requests in flight, so
            // its next ones are likely on their way: poll for them rather than sleep and be
            // woken, while that costs no other thread the CPU. One that sends a message at a
            // time waits for each answer first; polling would only keep busy the CPU it may be
            // sharing with us.
            if burst > 1
                && let Some(alone) = streams::await_stdin(self.busy_poll)
            {
                self.alone = alone;
            }
            if let Err(err) = self.input.fill() {
                tracing::error!("reading stdin failed: {err}");
                return;
            }
            if self.stop.is_cancelled() {
                return;
            }
        }
    }
}

/// Someone ran the server in a terminal: say what it is and how to talk to it (on stderr).
fn greet(server: &ServerCore) {
    let name = &server.settings.info.name;
    let version = &server.settings.info.version;
    eprintln!(
        "{name} {version} is an MCP server speaking JSON-RPC on stdin/stdout.\n\
         Connect it to an MCP client (Claude Desktop, VS Code, the MCP Inspector), or paste these lines:\n\
         {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"terminal\",\"version\":\"0\"}}}}}}\n\
         {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n\
         {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}}\n\
         Press Ctrl-D (end of input) or Ctrl-C to stop."
    );
}
