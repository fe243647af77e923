//! One HTTP session: its engine [`Connection`], its `GET` stream, and the streams of the
//! `POST`s it answered with SSE, kept for a while for clients that resume them.

use super::failure::Failure;
use super::replication::shared::{SharedPump, SharedReader, SharedSession};
use super::sse::{self, EventStream, STANDALONE, StreamSettings};
use crate::core::ServerCore;
use crate::engine::Connection;
use crate::session::budget::Budget;
use crate::session::outgoing::{Outgoing, Sink};
use crate::sync::lock;
use hyper::body::Bytes;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::mpsc;

/// Messages queued on one stream's sink before the engine waits.
const SINK_QUEUE: usize = 64;

/// Answered `POST` streams kept for replay, per session.
const RETAINED_STREAMS: usize = 32;

/// Unused request sinks kept for the session's next requests (one per concurrent `POST` is
/// enough; clients rarely run more at once).
const SPARE_SINKS: usize = 4;

pub(super) struct HttpSession {
    pub id: String,
    pub connection: Connection,
    streams: Streams,
    /// Sinks of requests answered at once that left them as new, for the next requests: a
    /// channel costs two allocations, and most requests never send on theirs.
    spare_sinks: Mutex<Vec<(Sink, mpsc::Receiver<Outgoing>)>>,
    last_active: Mutex<Instant>,
    /// The issuer and principal of the token that started the session (feature `auth`): later
    /// requests must come from the same user (or client).
    #[cfg(feature = "auth")]
    pub owner: std::sync::OnceLock<crate::auth::SessionOwner>,
}

/// A session's streams: in this process, or in a store shared by the server's replicas.
enum Streams {
    Local(Arc<LocalStreams>),
    Shared(Arc<dyn SharedSession>),
}

/// The SSE body of one answer: a stream's events, from this process or from the store.
pub(super) enum Reader {
    Local(sse::Reader),
    Shared(Box<dyn SharedReader>),
}

impl Reader {
    /// The next frame to write, or `None` when this connection's part of the stream is over.
    pub async fn next(&mut self) -> Option<Bytes> {
        match self {
            Self::Local(reader) => reader.next().await,
            Self::Shared(reader) => reader.next().await,
        }
    }
}

/// Moves a request's messages into its stream, until its answer.
pub(super) enum Pump {
    Local(LocalPump),
    Shared(Box<dyn SharedPump>),
}

impl Pump {
    /// Moves what is queued already, then `answer` when the engine returned it at once, then
    /// (on a task, if needed) the rest until the answer.
    pub fn start(self, answer: Option<Outgoing>) {
        match self {
            Self::Local(pump) => pump.start(answer),
            Self::Shared(pump) => pump.start(answer),
        }
    }
}

/// Every stream of a session kept in this process.
struct LocalStreams {
    settings: StreamSettings,
    /// The session's byte budget, charged for every event kept.
    budget: Arc<Budget>,
    standalone: Arc<EventStream>,
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    next_id: u64,
    /// Streams by id, with the sink that feeds each (weakly: the stream must not keep it open).
    streams: HashMap<u64, (Arc<EventStream>, mpsc::WeakSender<Outgoing>)>,
    /// Complete streams, oldest first, dropped past [`RETAINED_STREAMS`].
    retired: VecDeque<u64>,
    /// Sinks whose handler closed its SSE connection in its first poll, before the request
    /// had a stream: the stream opened for it then closes after its priming event.
    closed_early: Vec<mpsc::WeakSender<Outgoing>>,
}

impl HttpSession {
    /// A new session; must run inside the tokio runtime (it spawns its `GET` stream's pump).
    pub fn new(id: String, core: Arc<ServerCore>, settings: StreamSettings) -> Arc<Self> {
        let (unsolicited, mut messages) = mpsc::channel::<Outgoing>(SINK_QUEUE);
        let connection = Connection::new(core, unsolicited);
        let streams = LocalStreams::of(&connection, settings);
        let standalone = Arc::clone(&streams.standalone);
        tokio::spawn(async move {
            while let Some(message) = messages.recv().await {
                standalone.push(&message.bytes).await;
            }
        });
        let closer = Arc::clone(&streams);
        connection.set_stream_closer(Box::new(move |sink| closer.close_connection_of(sink)));
        Self::assemble(id, connection, Streams::Local(streams))
    }

    /// A session whose streams live in a store shared with the other replicas of the server:
    /// `part` makes its part there from its id and what it sends outside any request. Its
    /// requests to the client are numbered from `first_request_id`. Must run inside the tokio
    /// runtime.
    pub fn new_shared(
        id: String,
        core: Arc<ServerCore>,
        first_request_id: i64,
        part: impl FnOnce(&str, mpsc::Receiver<Outgoing>) -> Arc<dyn SharedSession>,
    ) -> Arc<Self> {
        let (unsolicited, messages) = mpsc::channel::<Outgoing>(SINK_QUEUE);
        let connection = Connection::shared(core, unsolicited, first_request_id);
        let shared = part(&id, messages);
        let closer = Arc::clone(&shared);
        connection.set_stream_closer(Box::new(move |sink| closer.close_connection_of(sink)));
        Self::assemble(id, connection, Streams::Shared(shared))
    }

    /// What both kinds of session are made of, once their streams are set up.
    fn assemble(id: String, connection: Connection, streams: Streams) -> Arc<Self> {
        connection.set_transport(Some(id.clone()), "tcp");
        Arc::new(Self {
            id,
            connection,
            streams,
            spare_sinks: Mutex::new(Vec::new()),
            last_active: Mutex::new(Instant::now()),
            #[cfg(feature = "auth")]
            owner: std::sync::OnceLock::new(),
        })
    }

    /// The session's part in a shared store, if it lives in one.
    pub fn shared(&self) -> Option<&dyn SharedSession> {
        match &self.streams {
            Streams::Local(_) => None,
            Streams::Shared(shared) => Some(&**shared),
        }
    }

    pub fn touch(&self) {
        *lock(&self.last_active) = Instant::now();
    }

    /// Idle: no request since `timeout` ago, and no stream connected.
    pub fn is_idle(&self, now: Instant, timeout: std::time::Duration) -> bool {
        now.saturating_duration_since(*lock(&self.last_active)) >= timeout && !self.has_reader()
    }

    fn has_reader(&self) -> bool {
        match &self.streams {
            Streams::Local(streams) => streams.any_reader(),
            Streams::Shared(shared) => shared.has_reader(),
        }
    }

    /// Where one request's messages go (its progress, logs, requests to the client, answer),
    /// and where they arrive: a spare one if there is one.
    pub fn request_sink(&self) -> (Sink, mpsc::Receiver<Outgoing>) {
        lock(&self.spare_sinks).pop().unwrap_or_else(|| mpsc::channel(SINK_QUEUE))
    }

    /// Keeps a request's sink for the next request if it is as new: nothing queued, not
    /// closed, and no handle left elsewhere (a handler's clone, or the weak one that
    /// `close_sse_stream` records), so no message of this request can reach the next.
    pub fn recycle_sink(&self, sink: Sink, messages: mpsc::Receiver<Outgoing>) {
        if sink.strong_count() == 1 && sink.weak_count() == 0 && messages.is_empty() && !messages.is_closed() {
            let mut spare = lock(&self.spare_sinks);
            if spare.len() < SPARE_SINKS {
                spare.push((sink, messages));
            }
        }
    }

    /// A stream for one request whose handler sends before answering, or waits: the reader
    /// for the `POST`'s answer (which starts with the priming event), and the pump that moves
    /// `messages` (from `sink`) into the stream.
    /// `request`: its id, for a stream kept in a shared store (ignored otherwise).
    pub fn open_stream(
        &self,
        sink: &Sink,
        messages: mpsc::Receiver<Outgoing>,
        request: Option<crate::jsonrpc::RequestId>,
    ) -> (Reader, Pump) {
        let streams = match &self.streams {
            Streams::Local(streams) => streams,
            Streams::Shared(shared) => {
                let (reader, pump) = shared.open_stream(sink, messages, request);
                return (Reader::Shared(reader), Pump::Shared(pump));
            }
        };
        let mut table = lock(&streams.table);
        let id = table.next_id;
        table.next_id += 1;
        let stream = Arc::new(EventStream::new(id, streams.settings.clone(), Arc::clone(&streams.budget)));
        table.streams.insert(id, (Arc::clone(&stream), sink.downgrade()));
        let closed_early =
            table.closed_early.iter().position(|weak| weak.upgrade().is_some_and(|s| s.same_channel(sink)));
        if let Some(index) = closed_early {
            table.closed_early.swap_remove(index);
        }
        drop(table);
        let reader = stream.attach(None);
        stream.prime();
        if closed_early.is_some() {
            stream.close_connection();
        }
        (Reader::Local(reader), Pump::Local(LocalPump { messages, stream, streams: Arc::clone(streams) }))
    }

    /// Queues a message on the `GET` stream.
    pub async fn send_unsolicited(&self, message: &[u8]) {
        match &self.streams {
            Streams::Local(streams) => streams.standalone.push(message).await,
            Streams::Shared(shared) => shared.send_unsolicited(message).await,
        }
    }

    /// A reader for a `GET`: resuming the stream of `last_event` (`(stream, seq)`), or the
    /// session's own `GET` stream. `Ok(None)` when that stream is no longer kept; `Err` when
    /// the store that keeps it is unreachable.
    pub async fn listen(&self, last_event: Option<(u64, u64)>) -> Result<Option<Reader>, Failure> {
        let streams = match &self.streams {
            Streams::Local(streams) => streams,
            Streams::Shared(shared) => return Ok(shared.listen(last_event).await?.map(Reader::Shared)),
        };
        let Some((stream, seq)) = last_event else {
            let reader = streams.standalone.attach(None).lead_with(super::sse::retry_frame(streams.settings.retry));
            return Ok(Some(Reader::Local(reader)));
        };
        let stream = match stream {
            STANDALONE => Arc::clone(&streams.standalone),
            id => match lock(&streams.table).streams.get(&id) {
                Some((stream, _)) => Arc::clone(stream),
                None => return Ok(None),
            },
        };
        Ok(stream.knows(seq).then(|| Reader::Local(stream.attach(Some(seq)))))
    }

    /// Ends the session's `GET` stream. A request's stream ends by itself once its answer
    /// (or its cancellation) has gone through: ending it here could cut it off before an
    /// answer still on its way from the engine (the shutdown race that lost answers).
    pub fn end(&self) {
        match &self.streams {
            Streams::Local(streams) => streams.standalone.complete(),
            Streams::Shared(shared) => shared.end_here(),
        }
    }

    /// Ends the session here because its time ran out here (idle, or no request after
    /// `initialize`); in a shared store, everywhere too unless another replica kept it alive.
    pub fn expire(&self) {
        if let Streams::Shared(shared) = &self.streams {
            shared.expire_here();
        }
        self.end();
    }
}

/// Moves a request's messages from its sink into its stream in this process, until its answer.
pub(super) struct LocalPump {
    messages: mpsc::Receiver<Outgoing>,
    stream: Arc<EventStream>,
    streams: Arc<LocalStreams>,
}

impl LocalPump {
    /// Moves what is queued already, then `answer` when the engine returned it at once: such
    /// a request then needs no task. Otherwise, or if the stream's log is full, a task takes
    /// over until the answer; nothing here waits, since the reader that frees the log is not
    /// yet handed to the client.
    pub fn start(mut self, mut answer: Option<Outgoing>) {
        if answer.is_some() {
            // What the handler queued came before its answer; anything later would follow an
            // answered request's end, so the sink takes no more.
            self.messages.close();
        }
        let mut waiting = None;
        while let Some(message) = self.messages.try_recv().ok().or_else(|| answer.take()) {
            if !self.stream.try_push(&message.bytes) {
                waiting = Some(message);
                break;
            }
            if message.is_response() {
                return self.finish();
            }
        }
        tokio::spawn(async move {
            let mut next = waiting;
            loop {
                let message = match next.take() {
                    Some(message) => message,
                    None => match self.messages.recv().await.or_else(|| answer.take()) {
                        Some(message) => message,
                        None => break,
                    },
                };
                self.stream.push(&message.bytes).await;
                if message.is_response() {
                    break;
                }
            }
            // Answered, or the request ended without an answer (cancelled).
            self.finish();
        });
    }

    fn finish(&self) {
        self.stream.complete();
        self.streams.retire(self.stream.id());
    }
}

impl LocalStreams {
    /// The streams of `connection`'s session: its `GET` stream, and room for the others.
    fn of(connection: &Connection, settings: StreamSettings) -> Arc<Self> {
        let budget = Arc::clone(&connection.session().budget);
        let standalone = Arc::new(EventStream::new(STANDALONE, settings.clone(), Arc::clone(&budget)));
        let table = Table { next_id: STANDALONE + 1, ..Table::default() };
        Arc::new(Self { settings, budget, standalone, table: Mutex::new(table) })
    }

    fn any_reader(&self) -> bool {
        self.standalone.has_reader() || lock(&self.table).streams.values().any(|(s, _)| s.has_reader())
    }

    /// [`Context::close_sse_stream`](crate::Context::close_sse_stream): finds the stream `sink`
    /// feeds and ends its connection.
    /// A request without a stream yet (in its handler's first poll) gets the close once its
    /// stream opens; one answered with plain JSON never opens one, so the close is moot.
    fn close_connection_of(&self, sink: &Sink) {
        let mut table = lock(&self.table);
        let fed = table.streams.values().find(|(_, weak)| weak.upgrade().is_some_and(|s| s.same_channel(sink)));
        match fed {
            Some((stream, _)) => stream.close_connection(),
            None => {
                table.closed_early.retain(|weak| weak.upgrade().is_some());
                table.closed_early.push(sink.downgrade());
            }
        }
    }

    /// Keeps a complete stream for resumption: at most [`RETAINED_STREAMS`], and while the
    /// budget is strained, the oldest go first, so replay data gives way to live streams.
    fn retire(&self, id: u64) {
        let mut table = lock(&self.table);
        table.retired.push_back(id);
        while table.retired.len() > RETAINED_STREAMS || (table.retired.len() > 1 && self.budget.is_strained()) {
            let Some(old) = table.retired.pop_front() else { break };
            table.streams.remove(&old);
        }
    }
}
