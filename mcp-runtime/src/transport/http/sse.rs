//! Server-Sent Events: the encoding of events, event ids, and [`EventStream`], the bounded log
//! of one stream's events that a live connection reads and a reconnecting client replays.
//!
//! An event id is `<stream>-<seq>`: unique within the session, and naming the stream it
//! belongs to, so `Last-Event-ID` resumes that stream and no other. Stream 0 is the session's
//! `GET` stream; every `POST` answered with SSE gets the next number.
//!
//! One reader at a time is attached to a stream: a resume supersedes the connection it
//! replaces, so no message is sent on two live connections. Readers have a cursor into the
//! log; the writer waits while the log is full of events the attached reader has not sent yet.
//!
//! A log is full at its event count (`HttpConfig::replay_buffer`) or when its session's byte
//! budget (`Server::max_session_bytes`) is spent: events kept only for replay (the reader has
//! sent them) are dropped oldest first to make room.

use crate::session::budget::Budget;
use crate::sync::lock;
use hyper::body::Bytes;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;
use tokio::sync::Notify;

/// The session's `GET` stream.
pub(super) const STANDALONE: u64 = 0;

/// An event id: `(stream, seq)`.
pub(super) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.trim().split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

/// `id:` then the message as `data:` lines (split at line breaks, which SSE would otherwise cut).
pub(super) fn encode_event(stream: u64, seq: u64, data: &[u8]) -> Bytes {
    let mut frame = format!("id: {stream}-{seq}\n").into_bytes();
    if data.is_empty() {
        frame.extend_from_slice(b"data:\n");
    }
    for line in data.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if !(data.is_empty() && line.is_empty()) {
            frame.extend_from_slice(b"data: ");
            frame.extend_from_slice(line);
            frame.push(b'\n');
        }
    }
    frame.push(b'\n');
    Bytes::from(frame)
}

/// A stream's priming event: an id, a `retry:` hint and empty data, so the client can resume
/// from it.
pub(super) fn primer(stream: u64, seq: u64, retry: Duration) -> Bytes {
    Bytes::from(format!("id: {stream}-{seq}\nretry: {}\ndata:\n\n", retry.as_millis()))
}

/// A `retry:` hint alone (no id, no data: clients do not dispatch it as an event).
pub(super) fn retry_frame(retry: Duration) -> Bytes {
    Bytes::from(format!("retry: {}\n\n", retry.as_millis()))
}

/// An SSE comment, to keep an idle connection open.
pub(super) fn keep_alive_frame() -> Bytes {
    Bytes::from_static(b": keep-alive\n\n")
}

/// One message without an id, for an answer that is not resumable (`initialize`).
pub(super) fn unnumbered_event(data: &[u8]) -> Bytes {
    let mut frame = Vec::with_capacity(data.len() + 10);
    frame.extend_from_slice(b"data: ");
    frame.extend_from_slice(data);
    frame.extend_from_slice(b"\n\n");
    Bytes::from(frame)
}

/// How streams behave, from the [`HttpConfig`](super::HttpConfig).
#[derive(Clone, Debug)]
pub(super) struct StreamSettings {
    pub capacity: usize,
    pub retry: Duration,
    pub keep_alive: Option<KeepAlive>,
}

/// Keep-alive comments for idle streams, paced by one ticker shared by every stream rather
/// than a timer per wait: a timer armed for each POST stream made the runtime re-arm its timer
/// (a wake-up of its poller) on every request. A stream still waiting at a tick sends a
/// comment, so an idle stream gets one at most `interval` after it starts waiting.
#[derive(Clone, Debug)]
pub(super) struct KeepAlive {
    interval: Duration,
    tick: Arc<Notify>,
    started: Arc<Once>,
}

impl KeepAlive {
    pub fn new(interval: Duration) -> Self {
        Self { interval, tick: Arc::new(Notify::new()), started: Arc::new(Once::new()) }
    }

    /// Notified at every tick; the ticker starts on first use (inside the runtime) and stops
    /// once no stream settings hold this any more.
    pub(super) fn tick(&self) -> &Notify {
        self.started.call_once(|| {
            tokio::spawn(super::ticker::every(self.interval, Arc::downgrade(&self.tick), Notify::notify_waiters));
        });
        &self.tick
    }
}

/// The log of one stream.
pub(super) struct EventStream {
    id: u64,
    settings: StreamSettings,
    /// The session's: every event kept is charged to it.
    budget: Arc<Budget>,
    state: Mutex<State>,
    /// Readers wait on this for new events (or to learn they were superseded).
    appended: Notify,
    /// The writer waits on this for the reader to catch up.
    consumed: Notify,
}

struct State {
    /// Retained events, contiguous in `seq`.
    events: VecDeque<(u64, Bytes)>,
    /// Their size, charged to the budget.
    bytes: usize,
    next_seq: u64,
    /// No more events will come (the response was sent, or the session ended).
    complete: bool,
    /// The attached reader's generation; 0 when none is attached.
    reader: u64,
    generations: u64,
    /// The next seq the attached reader sends.
    reader_cursor: u64,
    /// The attached reader ends before this seq (the server closed its connection early).
    stop_before: Option<u64>,
    /// The first seq no reader has sent yet: where a fresh (not resuming) `GET` starts.
    undelivered: u64,
}

impl EventStream {
    pub fn new(id: u64, settings: StreamSettings, budget: Arc<Budget>) -> Self {
        let state = State {
            events: VecDeque::new(),
            bytes: 0,
            next_seq: 0,
            complete: false,
            reader: 0,
            generations: 0,
            reader_cursor: 0,
            stop_before: None,
            undelivered: 0,
        };
        Self { id, settings, budget, state: Mutex::new(state), appended: Notify::new(), consumed: Notify::new() }
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    /// Appends the priming event: an id, a `retry:` hint and empty data, so the client can
    /// resume from it.
    pub fn prime(&self) {
        let mut state = lock(&self.state);
        let seq = state.next_seq;
        state.next_seq += 1;
        let frame = primer(self.id, seq, self.settings.retry);
        // A few bytes, and the client needs them to resume: kept whatever the budget.
        self.budget.reserve_anyway(frame.len());
        state.bytes += frame.len();
        state.events.push_back((seq, frame));
        drop(state);
        self.appended.notify_waiters();
    }

    /// Appends one message, waiting while the log is full of events the attached reader has
    /// not sent. Dropped if the stream is complete.
    pub async fn push(&self, message: &[u8]) {
        loop {
            let consumed = self.consumed.notified();
            tokio::pin!(consumed);
            consumed.as_mut().enable();
            if self.try_push(message) {
                return;
            }
            consumed.await;
        }
    }

    /// [`push`](Self::push) if that would not wait; `false` (nothing appended) if it would.
    pub fn try_push(&self, message: &[u8]) -> bool {
        let mut state = lock(&self.state);
        if state.complete {
            return true;
        }
        let seq = state.next_seq;
        let frame = encode_event(self.id, seq, message);
        if !self.make_room(&mut state, frame.len()) {
            return false;
        }
        state.next_seq += 1;
        state.bytes += frame.len();
        state.events.push_back((seq, frame));
        drop(state);
        self.appended.notify_waiters();
        true
    }

    /// Reserves `size` bytes for a new event, under the event count and the budget. Drops the
    /// oldest events to make room: any of them while no reader is attached (as a full log
    /// always has), else only those the reader has sent; `false` when the attached reader must
    /// catch up first. With nothing left to drop, the event is kept whatever its size: it has
    /// to reach the client.
    fn make_room(&self, state: &mut State, size: usize) -> bool {
        loop {
            if state.events.len() < self.settings.capacity && self.budget.try_reserve(size).is_ok() {
                return true;
            }
            let Some(&(oldest, _)) = state.events.front() else {
                self.budget.reserve_anyway(size);
                return true;
            };
            if state.reader != 0 && oldest >= state.reader_cursor {
                return false;
            }
            if let Some((_, dropped)) = state.events.pop_front() {
                state.bytes -= dropped.len();
                self.budget.release(dropped.len());
            }
        }
    }

    /// No more events: attached readers send what is left and end.
    pub fn complete(&self) {
        lock(&self.state).complete = true;
        self.appended.notify_waiters();
        self.consumed.notify_waiters();
    }

    pub fn has_reader(&self) -> bool {
        lock(&self.state).reader != 0
    }

    /// Ends the attached reader's connection after the events logged so far; the stream goes
    /// on, for a client that resumes it.
    pub fn close_connection(&self) {
        let mut state = lock(&self.state);
        if state.reader != 0 {
            state.stop_before = Some(state.next_seq);
        }
        drop(state);
        self.appended.notify_waiters();
    }

    /// Attaches a reader, superseding any other. `after`: the last seq the client saw (a
    /// resume); `None` starts at the first event no reader has sent.
    pub fn attach(self: &std::sync::Arc<Self>, after: Option<u64>) -> Reader {
        let mut state = lock(&self.state);
        let cursor = match after {
            Some(seq) => seq.saturating_add(1),
            None => state.undelivered,
        };
        state.generations += 1;
        state.reader = state.generations;
        state.reader_cursor = cursor;
        state.stop_before = None;
        let generation = state.reader;
        drop(state);
        self.appended.notify_waiters();
        self.consumed.notify_waiters();
        Reader { stream: std::sync::Arc::clone(self), generation, cursor, lead: None, closing: false }
    }

    /// Whether `seq` was ever issued on this stream.
    pub fn knows(&self, seq: u64) -> bool {
        seq < lock(&self.state).next_seq
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.budget.release(lock(&self.state).bytes);
    }
}

/// What a reader does next.
enum Step {
    Send(Bytes),
    End,
    Wait,
}

/// One connection's view of a stream: the SSE body of a `POST` or `GET` answer.
pub(super) struct Reader {
    stream: std::sync::Arc<EventStream>,
    generation: u64,
    cursor: u64,
    /// A frame to send before the log (a `retry:` hint).
    lead: Option<Bytes>,
    /// Closed early: the `retry:` hint went out, the connection ends next.
    closing: bool,
}

impl Reader {
    /// Sends `frame` before anything from the log.
    pub fn lead_with(mut self, frame: Bytes) -> Self {
        self.lead = Some(frame);
        self
    }

    /// The next frame to write, or `None` when this connection's part of the stream is over.
    pub async fn next(&mut self) -> Option<Bytes> {
        if let Some(lead) = self.lead.take() {
            return Some(lead);
        }
        if self.closing {
            return None;
        }
        let stream = std::sync::Arc::clone(&self.stream);
        loop {
            let appended = stream.appended.notified();
            tokio::pin!(appended);
            appended.as_mut().enable();
            match self.step() {
                Step::Send(frame) => return Some(frame),
                Step::End => return None,
                Step::Wait => {}
            }
            match &stream.settings.keep_alive {
                Some(keep_alive) => {
                    tokio::select! {
                        () = &mut appended => {}
                        () = keep_alive.tick().notified() => return Some(keep_alive_frame()),
                    }
                }
                None => appended.await,
            }
        }
    }

    fn step(&mut self) -> Step {
        let stream = &self.stream;
        let mut state = lock(&stream.state);
        if state.reader != self.generation {
            return Step::End; // superseded by a resume
        }
        if state.stop_before.is_some_and(|stop| self.cursor >= stop) {
            state.reader = 0;
            self.closing = true;
            drop(state);
            stream.consumed.notify_waiters();
            return Step::Send(retry_frame(stream.settings.retry));
        }
        let Some(&(oldest, _)) = state.events.front() else {
            return if state.complete { Step::End } else { Step::Wait };
        };
        if self.cursor < oldest {
            tracing::debug!(stream = stream.id, "events {}..{oldest} left the replay buffer", self.cursor);
            self.cursor = oldest;
        }
        let index = (self.cursor - oldest) as usize;
        match state.events.get(index) {
            Some((seq, frame)) => {
                let frame = frame.clone();
                self.cursor = seq + 1;
                state.reader_cursor = self.cursor;
                state.undelivered = state.undelivered.max(self.cursor);
                drop(state);
                stream.consumed.notify_waiters();
                Step::Send(frame)
            }
            None if state.complete => Step::End,
            None => Step::Wait,
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        let mut state = lock(&self.stream.state);
        if state.reader == self.generation {
            state.reader = 0;
            drop(state);
            self.stream.consumed.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(capacity: usize) -> StreamSettings {
        StreamSettings { capacity, retry: Duration::from_millis(500), keep_alive: None }
    }

    /// A session budget of `limit` bytes, in a server with plenty.
    fn budget(limit: usize) -> Arc<Budget> {
        Arc::new(Budget::new(limit, Arc::new(crate::session::budget::Pool::new(usize::MAX))))
    }

    fn new_stream(id: u64, settings: StreamSettings) -> Arc<EventStream> {
        Arc::new(EventStream::new(id, settings, budget(usize::MAX)))
    }

    fn text(frame: &Bytes) -> &str {
        std::str::from_utf8(frame).unwrap()
    }

    #[test]
    fn events_carry_the_stream_in_their_id() {
        assert_eq!(text(&encode_event(3, 7, b"{\"a\":1}")), "id: 3-7\ndata: {\"a\":1}\n\n");
        assert_eq!(text(&encode_event(3, 0, b"")), "id: 3-0\ndata:\n\n");
        assert_eq!(text(&encode_event(1, 2, b"a\nb")), "id: 1-2\ndata: a\ndata: b\n\n");
        assert_eq!(parse_event_id("3-7"), Some((3, 7)));
        assert_eq!(parse_event_id("3"), None);
        assert_eq!(parse_event_id("x-1"), None);
    }

    #[tokio::test]
    async fn a_resume_replays_after_the_last_seen_event_and_supersedes_the_old_reader() {
        let stream = new_stream(5, settings(16));
        let mut first = stream.attach(None);
        stream.prime();
        stream.push(b"one").await;
        assert_eq!(text(&first.next().await.unwrap()), "id: 5-0\nretry: 500\ndata:\n\n");
        let mut second = stream.attach(Some(0));
        assert_eq!(first.next().await, None, "the superseded reader ends");
        stream.push(b"two").await;
        stream.complete();
        assert_eq!(text(&second.next().await.unwrap()), "id: 5-1\ndata: one\n\n");
        assert_eq!(text(&second.next().await.unwrap()), "id: 5-2\ndata: two\n\n");
        assert_eq!(second.next().await, None);
    }

    #[tokio::test]
    async fn closing_the_connection_flushes_then_hints_retry() {
        let stream = new_stream(1, settings(16));
        let mut reader = stream.attach(None);
        stream.prime();
        stream.close_connection();
        stream.push(b"later").await;
        assert_eq!(text(&reader.next().await.unwrap()), "id: 1-0\nretry: 500\ndata:\n\n");
        assert_eq!(text(&reader.next().await.unwrap()), "retry: 500\n\n");
        assert_eq!(reader.next().await, None);
        let mut resumed = stream.attach(Some(0));
        assert_eq!(text(&resumed.next().await.unwrap()), "id: 1-1\ndata: later\n\n");
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_reader_gets_a_keep_alive_within_the_interval_and_events_still_flow() {
        let keep_alive = KeepAlive::new(Duration::from_secs(15));
        let settings = StreamSettings { keep_alive: Some(keep_alive.clone()), ..settings(16) };
        let stream = new_stream(1, settings.clone());
        let mut reader = stream.attach(None);
        let started = tokio::time::Instant::now();
        assert_eq!(text(&reader.next().await.unwrap()), ": keep-alive\n\n");
        assert!(started.elapsed() <= Duration::from_secs(15), "{:?}", started.elapsed());
        stream.push(b"one").await;
        assert_eq!(text(&reader.next().await.unwrap()), "id: 1-0\ndata: one\n\n");
        // Another stream with the same settings shares the ticker.
        let other = new_stream(2, settings);
        let mut other_reader = other.attach(None);
        let (a, b) = tokio::join!(reader.next(), other_reader.next());
        assert_eq!((text(&a.unwrap()), text(&b.unwrap())), (": keep-alive\n\n", ": keep-alive\n\n"));
        assert!(started.elapsed() <= Duration::from_secs(30), "{:?}", started.elapsed());
    }

    #[tokio::test]
    async fn a_full_log_waits_for_the_reader() {
        let stream = new_stream(1, settings(2));
        let mut reader = stream.attach(None);
        stream.push(b"a").await;
        stream.push(b"b").await;
        let blocked = tokio::time::timeout(Duration::from_millis(50), stream.push(b"c")).await;
        assert!(blocked.is_err(), "the writer waits while the reader is behind");
        assert_eq!(text(&reader.next().await.unwrap()), "id: 1-0\ndata: a\n\n");
        stream.push(b"c").await;
        drop(reader);
        // No reader: the oldest events make room.
        stream.push(b"d").await;
        let mut fresh = stream.attach(None);
        stream.complete();
        assert_eq!(text(&fresh.next().await.unwrap()), "id: 1-2\ndata: c\n\n");
        assert_eq!(text(&fresh.next().await.unwrap()), "id: 1-3\ndata: d\n\n");
        assert_eq!(fresh.next().await, None);
    }

    #[tokio::test]
    async fn a_spent_budget_drops_what_the_reader_has_sent_then_waits_for_it() {
        let budget = budget(100);
        let stream = Arc::new(EventStream::new(1, settings(1024), Arc::clone(&budget)));
        let big = [b'x'; 60];
        let mut reader = stream.attach(None);
        stream.push(&big).await;
        assert!(budget.used() > 60);
        assert!(!stream.try_push(&big), "the reader has not sent the first one: the writer waits");
        assert!(text(&reader.next().await.unwrap()).starts_with("id: 1-0\n"));
        assert!(stream.try_push(&big), "the sent one is dropped to make room");
        assert!(budget.used() < 100, "{}", budget.used());
        let mut resumed = stream.attach(Some(0));
        stream.complete();
        assert!(text(&resumed.next().await.unwrap()).starts_with("id: 1-1\n"), "1-0 left the replay buffer");
        drop((reader, resumed));
        drop(stream);
        assert_eq!(budget.used(), 0, "a dropped stream gives its bytes back");
    }

    #[tokio::test]
    async fn a_message_larger_than_the_budget_still_goes_out() {
        let budget = budget(10);
        let stream = Arc::new(EventStream::new(1, settings(1024), Arc::clone(&budget)));
        let mut reader = stream.attach(None);
        stream.push(&[b'y'; 50]).await;
        stream.complete();
        assert!(text(&reader.next().await.unwrap()).contains(&"y".repeat(50)));
        assert_eq!(reader.next().await, None);
    }
}
